import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DefinitionDiff } from '../components/DefinitionDiff.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { When } from '../components/When.js';
import { compareVersionsPath, expertPath } from '../format.js';
import { useCan, useMe } from '../session.js';

type Approval = components['schemas']['RegistryApproval'];
type Status = Approval['status'];

const STATUS_WORDS: Record<Status, string> = {
  pending: 'Waiting for approval',
  approved: 'Approved',
  rejected: 'Rejected',
};

/** Versions awaiting approval (or decided ones), each with what it changes and, for approvers, the decision. */
export function Approvals() {
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
