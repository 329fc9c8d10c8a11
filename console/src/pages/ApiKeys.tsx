import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { Pager, useCursors } from '../components/Pager.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { TableScroll } from '../components/TableScroll.js';
import { When } from '../components/When.js';
import { formatDate } from '../format.js';
import { useCan } from '../session.js';
import { grantInWords } from '../words.js';

// The key form carries the permission list from src/modules/auth/grants.ts, which brings zod: loaded when
// opened, so the first page's script stays under its budget (test/console/bundle-budget.test.ts).
const CreateKeyForm = lazy(async () => ({ default: (await import('./CreateKeyForm.js')).CreateKeyForm }));

type ApiKey = components['schemas']['ApiKey'];
const PAGE = 20;

function keyState(key: ApiKey): { label: string; className: string } {
  if (key.revokedAt) return { label: 'Revoked', className: 'badge badge-disabled' };
  if (key.expiresAt && new Date(key.expiresAt) < new Date())
    return { label: 'Expired', className: 'badge badge-deprecated' };
  return { label: 'Active', className: 'badge badge-available' };
}

export function ApiKeys() {
  const client = useQueryClient();
  const { cursor, pagerProps } = useCursors();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const can = useCan();
  const keys = useQuery({
    queryKey: ['api-keys', cursor],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/api-keys', {
          params: { query: { limit: PAGE, ...(cursor ? { cursor } : {}) } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
  // Focus after an action: closing the form returns to the button that opened it; a revoked key's row
  // (its Revoke button gone) takes focus and says "Revoked".
  const createButton = useRef<HTMLButtonElement>(null);
  const wasCreating = useRef(false);
  useEffect(() => {
    if (creating) wasCreating.current = true;
    else if (wasCreating.current) {
      wasCreating.current = false;
      createButton.current?.focus();
    }
  }, [creating]);
  const [revokedId, setRevokedId] = useState<string>();
  const revoke = useMutation({
    mutationFn: async (key: ApiKey) =>
      unwrap(await api.DELETE('/api/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId: key.id } } })),
    onSuccess: async (_answer, key) => {
      setRevoking(null);
      await client.invalidateQueries({ queryKey: ['api-keys'] });
      setRevokedId(key.id);
    },
    onError: () => setRevoking(null),
  });
  const list = keys.data?.apiKeys ?? [];
  return (
    <section className="page">
      <PageHeader
        title="API keys"
        action={
          !creating &&
          can('api-keys:create') && (
            <button
              type="button"
              className="button button-primary"
              ref={createButton}
              onClick={() => setCreating(true)}
            >
              Create an API key
            </button>
          )
        }
      >
        Keys let programs call Cadre as you, with the rights you grant them.
      </PageHeader>
      {creating && (
        <Suspense fallback={<PageSkeleton />}>
          <CreateKeyForm onDone={() => setCreating(false)} />
        </Suspense>
      )}
      <ErrorNotice error={keys.error} retry={keys.refetch} />
      <ErrorNotice error={revoke.error} />
      {!keys.isPending && list.length === 0 && !keys.isError && (
        <div className="empty card">
          <p>No API keys yet. Create one for a script, a CI job or the CLI.</p>
        </div>
      )}
      {list.length > 0 && (
        <TableScroll label="API keys">
          <table className="table">
            <caption className="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Rights</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((key) => {
                const state = keyState(key);
                return (
                  <tr key={key.id}>
                    <th
                      scope="row"
                      tabIndex={key.id === revokedId ? -1 : undefined}
                      ref={key.id === revokedId ? (node) => node?.focus() : undefined}
                    >
                      {key.name ?? <span className="muted">unnamed</span>}{' '}
                      <span className={state.className}>{state.label}</span>
                      <span className="cell-note key-start">
                        <code>{key.start}…</code>
                      </span>
                      {/* The id API users pass to revoke it (DELETE /api/v1/api-keys/{id}); never the secret. */}
                      <span className="cell-note copyable record-id">
                        <code>{key.id}</code>
                        <CopyButton
                          text={key.id}
                          label="Copy id"
                          context={`of ${key.name ?? `${key.start}…`}`}
                        />
                      </span>
                    </th>
                    <td data-label="Rights">{grantInWords(key.grants)}</td>
                    <td data-label="Created" className="date-cell">
                      {formatDate(key.createdAt)}
                    </td>
                    <td data-label="Last used" className="date-cell">
                      {key.lastUsedAt ? <When at={key.lastUsedAt} /> : <span className="muted">never</span>}
                    </td>
                    <td data-label="Expires" className="date-cell">
                      {key.revokedAt
                        ? `revoked ${formatDate(key.revokedAt)}`
                        : key.expiresAt
                          ? formatDate(key.expiresAt)
                          : 'never'}
                    </td>
                    <td>
                      {!key.revokedAt && can('api-keys:revoke') && (
                        <button
                          type="button"
                          className="button button-small button-danger-outline"
                          onClick={() => setRevoking(key)}
                        >
                          Revoke…
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      <Pager {...pagerProps(keys.data?.pagination)} />
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke ${revoking?.name ?? revoking?.start ?? 'this key'}?`}
        confirmLabel="Revoke the key"
        danger
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
      >
        <p>Programs using this key stop working at once. A revoked key cannot be restored.</p>
      </ConfirmDialog>
    </section>
  );
}
