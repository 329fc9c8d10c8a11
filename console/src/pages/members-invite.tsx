import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { formatDate } from '../format.js';

type CreatedInvitation = components['schemas']['CreatedInvitation'];
type InvitationLink = components['schemas']['InvitationLink'];
export type InvitedRole = 'admin' | 'member';

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

/** Invite by email with a role; the answer's link is shown once, with whether it was also emailed. */
export function InviteForm({ org, onInvited }: { org: string; onInvited: () => Promise<unknown> }) {
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
        <ShownLink link={sent} testId="invitation-link" onDone={close} />
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

/** A pending invitation's new copy of its link, shown once (the copy shown before no longer works). */
export function LinkCopy({ copy, onDone }: { copy: InvitationLink; onDone: () => void }) {
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
      <ShownLink link={copy} testId="invitation-link-copy" onDone={onDone} />
    </section>
  );
}

/** An invitation link shown once: the link with its copy button, what it is good for, and Done. */
function ShownLink({
  link,
  testId,
  onDone,
}: {
  link: Pick<InvitationLink, 'url' | 'expiresAt' | 'email' | 'role'>;
  testId: string;
  onDone: () => void;
}) {
  return (
    <>
      <div className="key-row">
        <code className="key" data-testid={testId}>
          {link.url}
        </code>
        <CopyButton text={link.url} label="Copy link" context={`for ${link.email}`} />
      </div>
      <p className="muted small">
        It works once, until {formatDate(link.expiresAt)}, for {link.email} as{' '}
        {link.role === 'admin' ? 'an admin' : 'a member'}.
      </p>
      <div className="actions">
        <button type="button" className="button button-primary" onClick={onDone}>
          Done
        </button>
      </div>
    </>
  );
}
