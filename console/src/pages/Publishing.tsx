import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DefinitionDiff } from '../components/DefinitionDiff.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { When } from '../components/When.js';
import { compareVersionsPath, expertPath } from '../format.js';
import { useCan, useMe } from '../session.js';

type Policy = components['schemas']['PublishPolicy'];
type Approval = components['schemas']['RegistryApproval'];
type Status = Approval['status'];

/** A list typed one item a line or separated by commas, as the API takes it (empty: none). */
const parseList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * `/publishing`: what the organization may publish (its publish policy; owners and admins change it) and the
 * versions waiting for a second owner's or admin's approval, each with what it changes (docs/registry.md
 * "Publish policies").
 */
export function Publishing() {
  const can = useCan();
  const policy = useQuery({
    queryKey: ['publish-policy'],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/v1/organization/publish-policy', { signal })).data,
  });
  return (
    <section className="page">
      <PageHeader title="Publishing">
        What your organization's Experts may run and reach, and the versions waiting for approval.
      </PageHeader>
      <Approvals />
      <section aria-labelledby="policy-heading" className="card">
        <h2 id="policy-heading">Publish policy</h2>
        <ErrorNotice error={policy.error} retry={policy.refetch} />
        <PolicyWarnings warnings={policy.data?.warnings ?? []} invites={can('members:manage')} />
        {policy.isPending && <PageSkeleton lines={4} />}
        {policy.data &&
          (can('publish-policy:manage') ? (
            <PolicyForm
              policy={policy.data.policy}
              recommended={policy.data.presets.recommended.allowedCommands}
            />
          ) : (
            <>
              <PolicyFacts policy={policy.data.policy} />
              <p className="small muted">Owners and admins change the policy.</p>
            </>
          ))}
        {policy.data?.updatedAt && (
          <p className="small muted">
            Last changed <When at={policy.data.updatedAt} />.
          </p>
        )}
      </section>
    </section>
  );
}

/**
 * What the policy does that its owners may not mean (the answer's warnings: approval required with nobody to
 * approve), after every load and every save, with the way out for those who can take it.
 */
function PolicyWarnings({ warnings, invites }: { warnings: readonly string[]; invites: boolean }) {
  return (
    <div aria-live="polite">
      {warnings.length > 0 && (
        <div className="notice notice-warning" data-testid="policy-warnings">
          {warnings.map((warning) => (
            <p key={warning}>{warning}</p>
          ))}
          {invites && (
            <p>
              <Link to="/members">Invite an admin on the Members page</Link>
            </p>
          )}
        </div>
      )}
    </div>
  );
}

const anyOr = (list: readonly string[] | null, what: string) =>
  list === null ? `any ${what}` : list.join(', ');

function PolicyFacts({ policy }: { policy: Policy }) {
  return (
    <dl className="facts">
      <dt>Skill commands</dt>
      <dd>{anyOr(policy.allowedCommands, 'command')}</dd>
      <dt>Package versions</dt>
      <dd>
        {policy.requirePinnedVersions ? 'must be pinned (pkg@1.2.3)' : 'any (a range or latest is accepted)'}
      </dd>
      <dt>SSE endpoint hosts</dt>
      <dd>{anyOr(policy.allowedSseHosts, 'host')}</dd>
      <dt>Wider access</dt>
      <dd>
        {policy.approvalRequiredForWidening
          ? 'a second owner or admin approves before it becomes latest'
          : 'becomes latest at once'}
      </dd>
    </dl>
  );
}

/** The policy as a form: each rule in words; "any" or a list for commands and hosts. */
function PolicyForm({ policy, recommended }: { policy: Policy; recommended: readonly string[] }) {
  const client = useQueryClient();
  const id = useId();
  const [anyCommand, setAnyCommand] = useState(policy.allowedCommands === null);
  const [commands, setCommands] = useState((policy.allowedCommands ?? recommended).join(', '));
  const [pinned, setPinned] = useState(policy.requirePinnedVersions);
  const [anyHost, setAnyHost] = useState(policy.allowedSseHosts === null);
  const [hosts, setHosts] = useState((policy.allowedSseHosts ?? []).join('\n'));
  const [approval, setApproval] = useState(policy.approvalRequiredForWidening);
  const [fromCatalog, setFromCatalog] = useState(policy.skillsFromCatalog);
  const save = useMutation({
    mutationFn: async (body: components['schemas']['PublishPolicyChange']) =>
      unwrap(await api.PUT('/api/v1/organization/publish-policy', { body })),
    onSuccess: (answer) => client.setQueryData(['publish-policy'], answer.data),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      allowedCommands: anyCommand ? null : parseList(commands),
      requirePinnedVersions: pinned,
      allowedSseHosts: anyHost ? null : parseList(hosts),
      approvalRequiredForWidening: approval,
      skillsFromCatalog: fromCatalog,
    });
  };
  const applyRecommended = () => {
    setAnyCommand(false);
    setCommands(recommended.join(', '));
  };
  return (
    <form className="form policy-form" onSubmit={submit}>
      <fieldset className="fieldset">
        <legend>Commands a skill may run</legend>
        <label className="check">
          <input
            type="radio"
            name={`${id}-commands`}
            checked={anyCommand}
            onChange={() => setAnyCommand(true)}
          />
          Any command
        </label>
        <label className="check">
          <input
            type="radio"
            name={`${id}-commands`}
            checked={!anyCommand}
            onChange={() => setAnyCommand(false)}
          />
          Only these
        </label>
        <label htmlFor={`${id}-command-list`} className="visually-hidden">
          Allowed commands
        </label>
        <input
          id={`${id}-command-list`}
          value={commands}
          disabled={anyCommand}
          aria-describedby={`${id}-command-hint`}
          spellCheck={false}
          autoComplete="off"
          onChange={(event) => setCommands(event.target.value)}
        />
        <p id={`${id}-command-hint`} className="small muted">
          Separated by commas. The recommended preset is {recommended.join(' and ')}: package runners whose
          packages can be pinned, and what Perstack's own registry accepts.
        </p>
        <button type="button" className="button button-small" onClick={applyRecommended}>
          Use the recommended preset
        </button>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Package versions</legend>
        <label className="check">
          <input type="checkbox" checked={pinned} onChange={(event) => setPinned(event.target.checked)} />
          <span>
            npx and uvx packages must be pinned to an exact version (<code>pkg@1.2.3</code>, not a range or{' '}
            <code>@latest</code>)
          </span>
        </label>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Hosts an SSE skill may reach</legend>
        <label className="check">
          <input type="radio" name={`${id}-hosts`} checked={anyHost} onChange={() => setAnyHost(true)} />
          Any host
        </label>
        <label className="check">
          <input type="radio" name={`${id}-hosts`} checked={!anyHost} onChange={() => setAnyHost(false)} />
          Only these
        </label>
        <label htmlFor={`${id}-host-list`} className="visually-hidden">
          Allowed hosts
        </label>
        <textarea
          id={`${id}-host-list`}
          rows={3}
          value={hosts}
          disabled={anyHost}
          aria-describedby={`${id}-host-hint`}
          spellCheck={false}
          onChange={(event) => setHosts(event.target.value)}
        />
        <p id={`${id}-host-hint`} className="small muted">
          One per line: <code>mcp.example.com</code>, or <code>*.example.com</code> for its subdomains.
        </p>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Versions that widen access</legend>
        <label className="check">
          <input type="checkbox" checked={approval} onChange={(event) => setApproval(event.target.checked)} />
          <span>
            A version that can reach more than the latest waits for a second owner or admin to approve it
            before it becomes latest
          </span>
        </label>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Where MCP skills come from</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={fromCatalog}
            onChange={(event) => setFromCatalog(event.target.checked)}
          />
          <span>
            Every skill's package (name and exact version) and SSE endpoint must be an active server of the
            organization's MCP catalog
          </span>
        </label>
      </fieldset>
      <ErrorNotice error={save.error} title="The policy was not saved." />
      <p role="status" className="success">
        {save.isSuccess ? 'Policy saved.' : ''}
      </p>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save policy'}
        </button>
      </div>
    </form>
  );
}

const STATUS_WORDS: Record<Status, string> = {
  pending: 'Waiting for approval',
  approved: 'Approved',
  rejected: 'Rejected',
};

/** Versions awaiting approval (or decided ones), each with what it changes and, for approvers, the decision. */
function Approvals() {
  const [status, setStatus] = useState<Status>('pending');
  // A decided version leaves the waiting list at once: what happened is said here, above the list.
  const [outcome, setOutcome] = useState('');
  const statusId = useId();
  const approvals = useQuery({
    queryKey: ['approvals', status],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/v1/registry/approvals', { params: { query: { status } }, signal })).data
        .approvals,
  });
  return (
    <section aria-labelledby="approvals-heading" className="approvals">
      <div className="row space-between">
        <h2 id="approvals-heading">Approvals</h2>
        <div className="field">
          <label htmlFor={statusId}>Show</label>
          <select id={statusId} value={status} onChange={(event) => setStatus(event.target.value as Status)}>
            <option value="pending">Waiting</option>
            <option value="approved">Approved</option>
            <option value="rejected">Rejected</option>
          </select>
        </div>
      </div>
      <p role="status" className="success">
        {outcome}
      </p>
      <ErrorNotice error={approvals.error} retry={approvals.refetch} />
      {approvals.isPending && <PageSkeleton lines={3} />}
      {approvals.data?.length === 0 && (
        <p className="muted">
          {status === 'pending'
            ? 'No version is waiting for approval. When the policy asks for it, a version that widens access waits here before it becomes latest.'
            : `No ${STATUS_WORDS[status].toLowerCase()} version yet.`}
        </p>
      )}
      <ul className="approval-list">
        {approvals.data?.map((approval) => (
          <ApprovalItem key={approval.id} approval={approval} onDecided={setOutcome} />
        ))}
      </ul>
    </section>
  );
}

function ApprovalItem({ approval, onDecided }: { approval: Approval; onDecided: (words: string) => void }) {
  const can = useCan();
  const me = useMe();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [confirmingReject, setConfirmingReject] = useState(false);
  const from = approval.diff.from;
  const diff = useQuery({
    queryKey: ['diff', approval.name, from, approval.version],
    enabled: open && from !== null,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/registry/diff', {
          params: { query: { from: from ?? '', to: approval.key } },
          signal,
        }),
      ).data.diff,
  });
  const decide = useMutation({
    mutationFn: async (decision: 'approve' | 'reject') =>
      unwrap(
        decision === 'approve'
          ? await api.POST('/api/v1/registry/approvals/{approvalId}/approve', {
              params: { path: { approvalId: approval.id } },
            })
          : await api.POST('/api/v1/registry/approvals/{approvalId}/reject', {
              params: { path: { approvalId: approval.id } },
            }),
      ).data,
    onSettled: () => setConfirmingReject(false),
    onSuccess: (answer) => {
      onDecided(
        answer.approval.status === 'rejected'
          ? `Rejected: ${approval.key} stays published but never becomes latest.`
          : answer.movedLatest
            ? `Approved: ${approval.key} is now latest.`
            : `Approved ${approval.key}. A newer version holds latest, so latest stays where it is.`,
      );
      return Promise.all([
        client.invalidateQueries({ queryKey: ['approvals'] }),
        client.invalidateQueries({ queryKey: ['expert'] }),
        client.invalidateQueries({ queryKey: ['versions', approval.name] }),
      ]);
    },
  });
  const own = me.data?.user.id === approval.requestedBy.userId;
  const headingId = useId();
  return (
    <li className="card approval" aria-labelledby={headingId}>
      <div className="row space-between">
        <h3 id={headingId} className="approval-title">
          <Link to={expertPath(approval.key)}>{approval.key}</Link>
        </h3>
        <span className={`badge badge-approval-${approval.status}`}>{STATUS_WORDS[approval.status]}</span>
      </div>
      <p className="small muted">
        Published by {approval.requestedBy.name ?? 'a member'} <When at={approval.createdAt} />
        {approval.previousVersion ? `, over ${approval.name}@${approval.previousVersion}` : ''}
        {approval.decidedAt && (
          <>
            {' '}
            · decided <When at={approval.decidedAt} />
          </>
        )}
      </p>
      <p className="approval-why">
        <strong>Widens access:</strong>
      </p>
      <ul className="diff-reasons">
        {approval.diff.reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      <ErrorNotice error={decide.error} />
      <div className="actions wrap">
        {from !== null && (
          <button
            type="button"
            className="button button-small"
            aria-expanded={open}
            onClick={() => setOpen((value) => !value)}
          >
            {open ? 'Hide the changes' : 'Show the changes'}
          </button>
        )}
        {from !== null && (
          <Link
            className="button button-small"
            to={compareVersionsPath(approval.name, from.slice(approval.name.length + 1), approval.version)}
          >
            Open the comparison
          </Link>
        )}
        {approval.status === 'pending' && can('experts:approve') && !own && !decide.data && (
          <>
            <button
              type="button"
              className="button button-small button-primary"
              disabled={decide.isPending}
              onClick={() => decide.mutate('approve')}
            >
              {decide.isPending && decide.variables === 'approve' ? 'Approving…' : 'Approve'}
            </button>
            <button
              type="button"
              className="button button-small button-danger-outline"
              disabled={decide.isPending}
              onClick={() => setConfirmingReject(true)}
            >
              Reject…
            </button>
          </>
        )}
      </div>
      {approval.status === 'pending' && own && (
        <p className="small muted">You published this version: another owner or admin approves it.</p>
      )}
      {approval.status === 'pending' && !can('experts:approve') && !own && (
        <p className="small muted">Owners and admins approve or reject it.</p>
      )}
      <ConfirmDialog
        open={confirmingReject}
        title={`Reject ${approval.key}?`}
        confirmLabel="Reject"
        danger
        busy={decide.isPending}
        onConfirm={() => decide.mutate('reject')}
        onCancel={() => setConfirmingReject(false)}
      >
        <p>
          Rejecting is final: the version stays published (anyone who names it exactly can still use it) but
          it never becomes latest. Publish a new version to try again.
        </p>
      </ConfirmDialog>
      {open && (
        <div className="approval-diff">
          <ErrorNotice error={diff.error} retry={diff.refetch} />
          {diff.isPending && <PageSkeleton lines={3} />}
          {diff.data && <DefinitionDiff diff={diff.data} headingLevel={4} />}
        </div>
      )}
    </li>
  );
}
