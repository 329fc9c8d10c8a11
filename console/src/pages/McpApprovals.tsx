import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { When } from '../components/When.js';
import { useCan, useMe } from '../session.js';
import { catalogServerPath } from './SkillsTable.js';

type Approval = components['schemas']['McpApproval'];

/**
 * The catalog versions that widen access and wait for a second owner or admin (docs/mcp-registry.md): each
 * with who published it and how it widens access, and, for those with experts:approve, the decision. Nothing
 * waits: one quiet line. A decided version leaves the list at once, so what happened is said above it.
 */
export function McpApprovals({ organization }: { organization: string }) {
  const [outcome, setOutcome] = useState({ words: '', count: 0 });
  const outcomeRef = useRef<HTMLParagraphElement>(null);
  const approvals = useQuery({
    queryKey: ['mcp-approvals', 'pending'],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/v1/mcp/approvals', { params: { query: { status: 'pending' } }, signal }))
        .data,
  });
  // The publisher is said by name: the API answers with their id only.
  const members = useQuery({
    queryKey: ['members', organization, 'names'],
    enabled: (approvals.data?.length ?? 0) > 0,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/members', {
          params: { path: { org: organization }, query: { limit: 100 } },
          signal,
        }),
      ).data,
    staleTime: 60_000,
  });
  // A confirmation gives focus back to its opener as it closes; the message takes it after, on the next frame.
  useEffect(() => {
    if (outcome.count === 0) return;
    const frame = requestAnimationFrame(() => outcomeRef.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, [outcome.count]);
  const nameOf = (userId: string) => {
    const member = members.data?.find((candidate) => candidate.userId === userId);
    return member?.name ?? member?.email ?? 'a former member';
  };
  const decided = (words: string) => setOutcome((previous) => ({ words, count: previous.count + 1 }));
  const waiting = approvals.data ?? [];
  return (
    <section aria-labelledby="mcp-approvals-heading" className="card">
      <h2 id="mcp-approvals-heading">Waiting for approval</h2>
      <p ref={outcomeRef} tabIndex={-1} role="status" className="success outcome">
        {outcome.words}
      </p>
      <ErrorNotice error={approvals.error} retry={approvals.refetch} />
      {approvals.data && waiting.length === 0 && <p className="muted">No version is waiting for approval.</p>}
      {waiting.length > 0 && (
        <ul className="approval-list">
          {waiting.map((approval) => (
            <ApprovalItem
              key={approval.id}
              approval={approval}
              publisher={nameOf(approval.publishedByUserId)}
              onDecided={decided}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function ApprovalItem(props: { approval: Approval; publisher: string; onDecided: (words: string) => void }) {
  const { approval, publisher, onDecided } = props;
  const can = useCan();
  const me = useMe();
  const client = useQueryClient();
  const [confirmingReject, setConfirmingReject] = useState(false);
  const headingId = useId();
  const label = `${approval.name} ${approval.version}`;
  const decide = useMutation({
    mutationFn: async (decision: 'approve' | 'reject') => {
      const params = { path: { mcpApprovalId: approval.id } };
      return unwrap(
        decision === 'approve'
          ? await api.POST('/api/v1/mcp/approvals/{mcpApprovalId}/approve', { params })
          : await api.POST('/api/v1/mcp/approvals/{mcpApprovalId}/reject', { params }),
      ).data;
    },
    onError: () => setConfirmingReject(false),
    // The confirmation closes first (giving focus back to its opener), the list reloads without the version,
    // and only then is the outcome said, so the message takes focus last.
    onSuccess: async (answer) => {
      setConfirmingReject(false);
      await Promise.all([
        client.invalidateQueries({ queryKey: ['mcp-approvals'] }),
        client.invalidateQueries({ queryKey: ['mcp-servers'] }),
      ]);
      onDecided(
        answer.approval.status === 'rejected'
          ? `Rejected: ${label} never joins the catalog.`
          : answer.movedLatest
            ? `Approved: ${label} is now latest.`
            : `Approved ${label}. A newer version holds latest, so latest stays where it is.`,
      );
    },
  });
  const own = me.data?.user.id === approval.publishedByUserId;
  return (
    <li className="approval-entry" aria-labelledby={headingId}>
      <h3 id={headingId} className="approval-title">
        <Link to={catalogServerPath(approval.name)}>
          <code>{approval.name}</code> {approval.version}
        </Link>
      </h3>
      <p className="small muted">
        Published by {own ? 'you' : publisher} <When at={approval.publishedAt} />
        {approval.previousVersion ? `, over ${approval.previousVersion}` : ', its first version'}
      </p>
      <p className="approval-why">
        <strong>Widens access:</strong>
      </p>
      <ul className="diff-reasons">
        {approval.reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      <ErrorNotice error={decide.error} />
      {own && <p className="small muted">You published this version: another owner or admin approves it.</p>}
      {!own && !can('experts:approve') && (
        <p className="small muted">Owners and admins approve or reject it.</p>
      )}
      {!own && can('experts:approve') && !decide.data && (
        <div className="actions wrap">
          <button
            type="button"
            className="button button-small button-primary"
            disabled={decide.isPending}
            aria-describedby={headingId}
            onClick={() => decide.mutate('approve')}
          >
            {decide.isPending && decide.variables === 'approve' ? 'Approving…' : 'Approve'}
          </button>
          <button
            type="button"
            className="button button-small button-danger-outline"
            disabled={decide.isPending}
            aria-describedby={headingId}
            onClick={() => setConfirmingReject(true)}
          >
            Reject…
          </button>
        </div>
      )}
      <ConfirmDialog
        open={confirmingReject}
        title={`Reject ${label}?`}
        confirmLabel="Reject"
        danger
        busy={decide.isPending}
        onConfirm={() => decide.mutate('reject')}
        onCancel={() => setConfirmingReject(false)}
      >
        <p>
          Rejecting is final: the version never joins the catalog, so IDEs and Experts never see it. Publish a
          new version to try again.
        </p>
      </ConfirmDialog>
    </li>
  );
}
