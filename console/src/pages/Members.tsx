import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { Pager, useCursors } from '../components/Pager.js';
import { TableScroll } from '../components/TableScroll.js';
import { When } from '../components/When.js';
import { formatDate } from '../format.js';
import { useCan, useMe } from '../session.js';
import { type InvitedRole, InviteForm, LinkCopy } from './members-invite.js';

type Member = components['schemas']['Member'];
type Invitation = components['schemas']['Invitation'];
type InvitationLink = components['schemas']['InvitationLink'];

const PAGE = 50;
const ROLE_WORDS: Record<Member['role'], string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };
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
  const seesEveryone = me.data?.role === 'owner' || me.data?.role === 'admin';
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
          <table className="table members-table">
            <caption className="visually-hidden">Members</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">Last active</th>
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
                // Emails and activity are the owners' and admins' to see, and each member's own.
                const visible = seesEveryone || self;
                return (
                  <tr key={member.userId}>
                    <th scope="row">
                      {member.name ?? <span className="muted">No name yet</span>}
                      {self && <span className="muted"> (you)</span>}
                      {/* The id API users pass (members/{memberId}, the audit log's actor, a transfer). */}
                      <span className="cell-note copyable record-id">
                        <code>{member.userId}</code>
                        <CopyButton text={member.userId} label="Copy id" context={`of ${who(member)}`} />
                      </span>
                    </th>
                    <td data-label="Email">{member.email ?? <span className="muted">not shown</span>}</td>
                    <td data-label="Role">
                      <span className={member.role === 'owner' ? 'badge badge-latest' : 'badge'}>
                        {ROLE_WORDS[member.role]}
                      </span>
                    </td>
                    <td data-label="Joined" className="date-cell">
                      {formatDate(member.joinedAt)}
                    </td>
                    <td data-label="Last active" className="date-cell">
                      {member.lastActiveAt ? (
                        <When at={member.lastActiveAt} />
                      ) : (
                        <span className="muted">{visible ? 'not yet' : 'not shown'}</span>
                      )}
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
