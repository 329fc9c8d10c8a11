import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { Pager, useCursors } from '../components/Pager.js';
import { TableScroll } from '../components/TableScroll.js';
import { formatDate } from '../format.js';
import { useCan, useMe } from '../session.js';

type Member = components['schemas']['Member'];
type Invitation = components['schemas']['Invitation'];
type CreatedInvitation = components['schemas']['CreatedInvitation'];
type InvitationLink = components['schemas']['InvitationLink'];
type InvitedRole = 'admin' | 'member';

const PAGE = 50;
const ROLE_WORDS: Record<Member['role'], string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };
/** What became of the invitation email (the answer's emailStatus), and what the inviter should do. */
const MAIL_WORDS: Record<CreatedInvitation['emailStatus'], (email: string) => string> = {
  sent: (email) => `Cadre emailed this link to ${email}. You can also copy it now; it is not shown again.`,
  queued: (email) =>
    `The mail server is slow: Cadre is still sending the email to ${email}. Copy this link now in case it does not arrive; it is not shown again.`,
  failed: (email) =>
    `The mail server refused the email: copy this link now and send it to ${email} yourself. It is not shown again.`,
  not_configured: (email) =>
    `Cadre did not email it (no mail server is set up): copy this link now and send it to ${email} yourself. It is not shown again.`,
};

/** What a change to one member is, for the confirmation dialog. */
type Pending =
  | { kind: 'remove'; member: Member }
  | { kind: 'transfer'; member: Member }
  | { kind: 'revoke'; invitation: Invitation }
  | { kind: 'link'; invitation: Invitation };

const who = (member: Member) => member.name ?? member.email ?? 'this member';

/**
 * The organization's people. Everyone sees the list; owners and admins (members:manage) invite, change roles
 * and remove, within the ceilings the API enforces: nobody but the owner touches the owner's row, nobody is
 * made owner except by the owner's transfer.
 */
export function Members() {
  const client = useQueryClient();
  const me = useMe();
  const can = useCan();
  const org = me.data?.organization.id;
  const manages = can('members:manage');
  const isOwner = me.data?.role === 'owner';
  const { cursor, pagerProps } = useCursors();
  const [pending, setPending] = useState<Pending | null>(null);
  const [done, setDone] = useState('');
  const [linkCopy, setLinkCopy] = useState<InvitationLink | null>(null);

  const members = useQuery({
    queryKey: ['members', org, cursor],
    enabled: Boolean(org),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/members', {
          params: { path: { org: org ?? '' }, query: { limit: PAGE, ...(cursor ? { cursor } : {}) } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const invitations = useQuery({
    queryKey: ['invitations', org],
    enabled: Boolean(org) && manages,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/invitations', {
          params: { path: { org: org ?? '' }, query: { limit: 100 } },
          signal,
        }),
      ),
  });
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['members'] }),
      client.invalidateQueries({ queryKey: ['invitations'] }),
      client.invalidateQueries({ queryKey: ['me'] }),
    ]);

  const setRole = useMutation({
    mutationFn: async ({ member, role }: { member: Member; role: InvitedRole }) =>
      unwrap(
        await api.PUT('/api/v1/organizations/{org}/members/{memberId}', {
          params: { path: { org: org ?? '', memberId: member.userId } },
          body: { role },
        }),
      ),
    onSuccess: (_answer, { member, role }) => {
      setDone(`${who(member)} is now ${role === 'admin' ? 'an admin' : 'a member'}.`);
      return refresh();
    },
    onMutate: () => setDone(''),
  });
  const act = useMutation({
    mutationFn: async (action: Pending) => {
      if (action.kind === 'remove') {
        return unwrap(
          await api.DELETE('/api/v1/organizations/{org}/members/{memberId}', {
            params: { path: { org: org ?? '', memberId: action.member.userId } },
          }),
        );
      }
      if (action.kind === 'transfer') {
        return unwrap(
          await api.POST('/api/v1/organizations/{org}/ownership-transfer', {
            params: { path: { org: org ?? '' } },
            body: { userId: action.member.userId },
          }),
        );
      }
      if (action.kind === 'link') {
        return unwrap(
          await api.POST('/api/v1/organizations/{org}/invitations/{invitationId}/link', {
            params: { path: { org: org ?? '', invitationId: action.invitation.id } },
          }),
        );
      }
      return unwrap(
        await api.DELETE('/api/v1/organizations/{org}/invitations/{invitationId}', {
          params: { path: { org: org ?? '', invitationId: action.invitation.id } },
        }),
      );
    },
    onMutate: () => {
      setDone('');
      setLinkCopy(null);
    },
    onSuccess: (answer, action) => {
      setPending(null);
      if (action.kind === 'link') {
        setLinkCopy((answer as { data: InvitationLink }).data);
        return;
      }
      setDone(
        action.kind === 'remove'
          ? `${who(action.member)} was removed: their API keys are revoked and their sessions ended.`
          : action.kind === 'transfer'
            ? `${who(action.member)} is now the owner; you are an admin.`
            : `The invitation for ${action.invitation.email} was revoked: its link no longer works.`,
      );
      return refresh();
    },
    onError: () => setPending(null),
  });

  const list = members.data?.data ?? [];
  const pendingInvitations = invitations.data?.data ?? [];
  const selfId = me.data?.user.id;
  return (
    <section className="page">
      <PageHeader title="Members">
        {manages
          ? `The people of ${me.data?.organization.name ?? 'your organization'}: invite someone, change a role, remove a member.`
          : `The people of ${me.data?.organization.name ?? 'your organization'}. Owners and admins invite and manage members.`}
      </PageHeader>
      {manages && org && <InviteForm org={org} onInvited={refresh} />}
      <p role="status" className="success">
        {done}
      </p>
      <ErrorNotice error={members.error} />
      <ErrorNotice error={setRole.error} />
      <ErrorNotice error={act.error} />
      {list.length > 0 && (
        <TableScroll label="Members">
          <table className="table">
            <caption className="visually-hidden">Members</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                {manages && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {list.map((member) => {
                const self = member.userId === selfId;
                // The owner's row is touched by nobody here (transfer first); an admin never makes an owner.
                const changeable = manages && member.role !== 'owner' && !self;
                return (
                  <tr key={member.userId}>
                    <th scope="row">
                      {member.name ?? <span className="muted">No name yet</span>}
                      {self && <span className="muted"> (you)</span>}
                      {member.email && <p className="small muted">{member.email}</p>}
                    </th>
                    <td>
                      <span className={member.role === 'owner' ? 'badge badge-latest' : 'badge'}>
                        {ROLE_WORDS[member.role]}
                      </span>
                      <p className="small muted">since {formatDate(member.joinedAt)}</p>
                    </td>
                    {manages && (
                      <td>
                        {changeable && (
                          <div className="actions wrap">
                            <button
                              type="button"
                              className="button button-small"
                              disabled={setRole.isPending}
                              onClick={() =>
                                setRole.mutate({
                                  member,
                                  role: member.role === 'admin' ? 'member' : 'admin',
                                })
                              }
                            >
                              {member.role === 'admin' ? 'Make member' : 'Make admin'}
                            </button>
                            {isOwner && (
                              <button
                                type="button"
                                className="button button-small"
                                onClick={() => setPending({ kind: 'transfer', member })}
                              >
                                Transfer ownership…
                              </button>
                            )}
                            <button
                              type="button"
                              className="button button-small button-danger-outline"
                              onClick={() => setPending({ kind: 'remove', member })}
                            >
                              Remove…
                            </button>
                          </div>
                        )}
                        {member.role === 'owner' && self && (
                          <p className="small muted">
                            To leave or step down, transfer the ownership to another member first.
                          </p>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      <Pager {...pagerProps(members.data?.pagination)} />

      {manages && (
        <section aria-labelledby="pending-invitations">
          <h2 id="pending-invitations">Pending invitations</h2>
          <ErrorNotice error={invitations.error} />
          {linkCopy && <LinkCopy copy={linkCopy} onDone={() => setLinkCopy(null)} />}
          {!invitations.isPending && pendingInvitations.length === 0 && !invitations.isError && (
            <p className="muted">No invitation is waiting to be accepted.</p>
          )}
          {pendingInvitations.length > 0 && (
            <TableScroll label="Pending invitations">
              <table className="table">
                <caption className="visually-hidden">Pending invitations</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Link</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {pendingInvitations.map((invitation) => (
                    <tr key={invitation.id}>
                      <th scope="row">{invitation.email}</th>
                      <td>{ROLE_WORDS[invitation.role]}</td>
                      <td>
                        expires {formatDate(invitation.expiresAt)}
                        <p className="small muted">sent {formatDate(invitation.createdAt)}</p>
                      </td>
                      <td>
                        <div className="actions wrap">
                          <button
                            type="button"
                            className="button button-small"
                            onClick={() => setPending({ kind: 'link', invitation })}
                          >
                            Copy link again…
                          </button>
                          <button
                            type="button"
                            className="button button-small button-danger-outline"
                            onClick={() => setPending({ kind: 'revoke', invitation })}
                          >
                            Revoke…
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
        </section>
      )}

      <ConfirmDialog
        open={pending !== null}
        title={
          pending?.kind === 'remove'
            ? `Remove ${who(pending.member)}?`
            : pending?.kind === 'transfer'
              ? `Make ${who(pending.member)} the owner?`
              : pending?.kind === 'link'
                ? `A new copy of the link for ${pending.invitation.email}?`
                : `Revoke the invitation for ${pending?.invitation.email ?? ''}?`
        }
        confirmLabel={
          pending?.kind === 'remove'
            ? 'Remove the member'
            : pending?.kind === 'transfer'
              ? 'Transfer ownership'
              : pending?.kind === 'link'
                ? 'Show a new copy'
                : 'Revoke the invitation'
        }
        danger={pending?.kind === 'remove' || pending?.kind === 'revoke'}
        busy={act.isPending}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => setPending(null)}
      >
        {pending?.kind === 'remove' && (
          <p>
            They leave the organization at once: their API keys here are revoked and their console sessions
            end. To bring them back, invite them again.
          </p>
        )}
        {pending?.kind === 'transfer' && (
          <p>
            They become the owner, with every right over the organization, and you become an admin. Only they
            can give the ownership back.
          </p>
        )}
        {pending?.kind === 'revoke' && <p>The link stops working. You can invite the same email again.</p>}
        {pending?.kind === 'link' && (
          <p>
            The copy of the link you were shown before stops working; a link Cadre emailed keeps working. The
            new copy is shown once.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

/** A pending invitation's new copy of its link, shown once (the copy shown before no longer works). */
function LinkCopy({ copy, onDone }: { copy: InvitationLink; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The confirmation closes in the same commit and the browser gives focus back to its opener: the heading
  // takes it after that, on the next frame.
  useEffect(() => {
    const frame = requestAnimationFrame(() => heading.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, []);
  return (
    <section className="card secret" aria-labelledby="invitation-link-copy">
      <h3 id="invitation-link-copy" tabIndex={-1} ref={heading}>
        New link for {copy.email}
      </h3>
      <p className="notice" role="status">
        Copy it now and send it to {copy.email}: it is not shown again. The copy shown before no longer works.
      </p>
      <div className="key-row">
        <code className="key" data-testid="invitation-link-copy">
          {copy.url}
        </code>
        <CopyButton text={copy.url} label="Copy link" />
      </div>
      <p className="muted small">
        It works once, until {formatDate(copy.expiresAt)}, for {copy.email} as{' '}
        {copy.role === 'admin' ? 'an admin' : 'a member'}.
      </p>
      <div className="actions">
        <button type="button" className="button button-primary" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

/** Invite by email with a role; the answer's link is shown once, with whether it was also emailed. */
function InviteForm({ org, onInvited }: { org: string; onInvited: () => Promise<unknown> }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InvitedRole>('member');
  const [days, setDays] = useState('7');
  const invite = useMutation({
    mutationFn: async (): Promise<CreatedInvitation> =>
      unwrap(
        await api.POST('/api/v1/organizations/{org}/invitations', {
          params: { path: { org } },
          body: { email, role, expiresInDays: Number(days) },
        }),
      ).data,
    onSuccess: () => onInvited(),
  });
  const close = () => {
    invite.reset();
    setEmail('');
    setRole('member');
    setOpen(false);
  };
  if (invite.data) {
    const sent = invite.data;
    return (
      <section className="card secret" aria-labelledby="new-invitation">
        <h2 id="new-invitation">Invitation for {sent.email}</h2>
        <p className={sent.emailStatus === 'sent' ? 'notice' : 'notice notice-warning'} role="status">
          {MAIL_WORDS[sent.emailStatus](sent.email)}
        </p>
        <div className="key-row">
          <code className="key" data-testid="invitation-link">
            {sent.url}
          </code>
          <CopyButton text={sent.url} label="Copy link" />
        </div>
        <p className="muted small">
          It works once, until {formatDate(sent.expiresAt)}, for {sent.email} as{' '}
          {sent.role === 'admin' ? 'an admin' : 'a member'}.
        </p>
        <div className="actions">
          <button type="button" className="button button-primary" onClick={close}>
            Done
          </button>
        </div>
      </section>
    );
  }
  if (!open) {
    return (
      <div className="actions">
        <button type="button" className="button button-primary" onClick={() => setOpen(true)}>
          Invite someone
        </button>
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <label htmlFor="invite-email">Email</label>
      <input
        id="invite-email"
        type="email"
        required
        autoComplete="off"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <label htmlFor="invite-role">Role</label>
      <select id="invite-role" value={role} onChange={(event) => setRole(event.target.value as InvitedRole)}>
        <option value="member">Member: uses the organization, manages their own keys</option>
        <option value="admin">Admin: also manages members, projects, integrations and billing</option>
      </select>
      <label htmlFor="invite-days">The link works for</label>
      <select id="invite-days" value={days} onChange={(event) => setDays(event.target.value)}>
        <option value="1">1 day</option>
        <option value="7">7 days</option>
        <option value="14">14 days</option>
        <option value="30">30 days</option>
      </select>
      <ErrorNotice error={invite.error} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={invite.isPending}>
          {invite.isPending ? 'Inviting…' : 'Send invitation'}
        </button>
        <button type="button" className="button" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
