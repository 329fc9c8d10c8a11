import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiProblem, api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { expertPath } from '../format.js';
import { useCan } from '../session.js';

type Expert = components['schemas']['RegistryExpert'];
type Update = components['schemas']['UpdateExpert'];

/**
 * Why a delete was refused, in words: the API's sentence names the delegating Experts in parentheses and
 * ends with a hint for API users (the request to disable), which this page replaces with a button.
 */
function refusalReason(message: string): string {
  const delegators = /delegate to it \(([^)]+)\)/.exec(message)?.[1];
  return delegators ? `Other Experts delegate to it: ${delegators}.` : message;
}

/** What the owning organization may do to one version: status, tags, delete; each refusal in words. */
export function OwnerActions({ expert }: { expert: Expert }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState<'disable' | 'delete' | null>(null);
  const customTags = expert.tags.filter((tag) => tag !== 'latest');
  const [tags, setTags] = useState(customTags.join(', '));
  const [done, setDone] = useState('');
  const can = useCan();

  const refresh = () => client.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'session' });

  const update = useMutation({
    mutationFn: async (body: Update) =>
      unwrap(
        await api.POST('/registry/experts/{expertKey}', {
          params: { path: { expertKey: expert.key } },
          body,
        }),
      ),
    onSuccess: (_answer, body) => {
      setConfirming(null);
      remove.reset();
      setDone(body.status ? `Marked ${body.status}.` : 'Tags saved.');
      return refresh();
    },
    onError: () => {
      setConfirming(null);
      setDone('');
    },
  });
  const remove = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.DELETE('/registry/experts/{expertKey}', { params: { path: { expertKey: expert.key } } }),
      ),
    onSuccess: async () => {
      setConfirming(null);
      await refresh();
      navigate(expertPath(expert.name), { replace: true });
    },
    onError: () => setConfirming(null),
  });

  // A delete refused because other Experts delegate to this version (400): the refusal is said in words
  // next to the buttons, takes focus, and offers what the owner can do instead, disabling.
  const refusal =
    remove.error instanceof ApiProblem && remove.error.status === 400 ? remove.error : undefined;
  const refusalBox = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (refusal) refusalBox.current?.focus();
  }, [refusal]);

  const saveTags = (event: FormEvent) => {
    event.preventDefault();
    const list = tags
      .split(/[\s,]+/)
      .map((tag) => tag.trim())
      .filter(Boolean);
    update.mutate({ tags: list });
  };

  // Every role may write Experts today; a credential that may neither write nor delete sees nothing here.
  if (!can('experts:write') && !can('experts:delete')) return null;
  const disabled = expert.status === 'disabled';
  return (
    <section className="card owner-actions" aria-labelledby="owner-actions">
      <h2 id="owner-actions">Manage this version</h2>
      <p className="muted small">You see this because your organization owns {expert.name}.</p>
      <div className="actions wrap">
        {expert.status === 'available' && (
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => update.mutate({ status: 'deprecated' })}
          >
            Deprecate
          </button>
        )}
        {expert.status === 'deprecated' && (
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => update.mutate({ status: 'available' })}
          >
            Mark available again
          </button>
        )}
        {!disabled && (
          <button
            type="button"
            className="button button-danger-outline"
            onClick={() => setConfirming('disable')}
          >
            Disable…
          </button>
        )}
        {can('experts:delete') && (
          <button
            type="button"
            className="button button-danger-outline"
            onClick={() => setConfirming('delete')}
          >
            Delete…
          </button>
        )}
      </div>
      {refusal && !disabled && (
        <div className="notice notice-error" role="alert" ref={refusalBox} tabIndex={-1}>
          <p className="notice-title">{expert.key} cannot be deleted.</p>
          <p>{refusalReason(refusal.message)}</p>
          <p>
            Disable it instead: it is withdrawn for good and stays readable, and whoever resolves one of those
            Experts is told this version is disabled.
          </p>
          <button
            type="button"
            className="button button-danger-outline"
            onClick={() => setConfirming('disable')}
          >
            Disable instead…
          </button>
        </div>
      )}

      <form className="inline-form" onSubmit={saveTags}>
        <label htmlFor="tags">Custom tags (comma separated)</label>
        <div className="row">
          <input
            id="tags"
            value={tags}
            onChange={(event) => setTags(event.target.value)}
            placeholder="stable, beta"
          />
          <button type="submit" className="button" disabled={update.isPending}>
            Save tags
          </button>
        </div>
        <p className="muted small">
          A tag moves here from whichever version held it. “latest” is set by publishing.
        </p>
      </form>

      <p role="status" className="success">
        {done}
      </p>
      <ErrorNotice error={update.error} />
      {!refusal && <ErrorNotice error={remove.error} />}

      <ConfirmDialog
        open={confirming === 'disable'}
        title={`Disable ${expert.key}?`}
        confirmLabel="Disable for good"
        danger
        busy={update.isPending}
        onConfirm={() => update.mutate({ status: 'disabled' })}
        onCancel={() => setConfirming(null)}
      >
        <p>
          Disabling is final: this version can never be made available or deprecated again. It stays readable,
          and its tags can still change.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'delete'}
        title={`Delete ${expert.key}?`}
        confirmLabel="Delete this version"
        danger
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(null)}
      >
        <p>
          The version is removed and its number stays reserved: <code>{expert.version}</code> can never be
          published again. Experts that delegate to it keep Cadre from deleting it; disable it instead.
        </p>
      </ConfirmDialog>
    </section>
  );
}
