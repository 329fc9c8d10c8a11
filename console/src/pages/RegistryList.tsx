import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { StatusBadge, TagBadge } from '../components/StatusBadge.js';
import { When } from '../components/When.js';
import { expertPath } from '../format.js';
import { useExpertRecords } from './expert-records.js';

const PAGE_SIZE = 20;
const SORTS = {
  updatedAt: 'Recently updated',
  createdAt: 'Recently published',
  name: 'Name',
  version: 'Version',
} as const;
type Sort = keyof typeof SORTS;

/** Typing waits this long for a pause before asking the server, so a fast typist sends one request. */
const SEARCH_PAUSE_MS = 200;

export function RegistryList() {
  const [params, setParams] = useSearchParams();
  const filter = params.get('q') ?? '';
  const sort: Sort =
    (params.get('sort') as Sort | null) && params.get('sort')! in SORTS
      ? (params.get('sort') as Sort)
      : 'updatedAt';
  const order = params.get('order') === 'asc' ? 'asc' : 'desc';
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const [typed, setTyped] = useState(filter);
  const searchId = useId();

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    setParams(next, { replace: true });
  };

  useEffect(() => {
    if (typed === filter) return;
    const timer = window.setTimeout(
      () => update({ q: typed.trim() || undefined, page: undefined }),
      SEARCH_PAUSE_MS,
    );
    return () => window.clearTimeout(timer);
  });

  const list = useQuery({
    queryKey: ['experts', { filter, sort, order, page }],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/registry/experts', {
          params: {
            query: {
              // The registry's search: names from their start or after the scope, a - or _; descriptions.
              q: filter.toLowerCase() || undefined,
              sort,
              order,
              take: String(PAGE_SIZE),
              skip: String((page - 1) * PAGE_SIZE),
            },
          },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const experts = list.data?.data.experts ?? [];
  const records = useExpertRecords(list.isPlaceholderData ? [] : experts.map((expert) => expert.key));
  const total = list.data?.meta.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  return (
    <section className="page">
      <PageHeader title="Experts">Published agent definitions, free to read and delegate to.</PageHeader>
      <search className="toolbar">
        <div className="field grow">
          <label htmlFor={searchId}>Search</label>
          <input
            id={searchId}
            type="search"
            placeholder="A name or words of a description"
            value={typed}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => setTyped(event.target.value)}
            // Leaving the field searches at once: a search still waiting for its pause could otherwise land
            // after a link the person followed (a navigation waits for its page's code) and take them back.
            onBlur={() => {
              if (typed !== filter) update({ q: typed.trim() || undefined, page: undefined });
            }}
          />
        </div>
        <div className="field">
          <label htmlFor="sort">Sort by</label>
          <select
            id="sort"
            value={sort}
            onChange={(event) => update({ sort: event.target.value, page: undefined })}
          >
            {Object.entries(SORTS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="order">Order</label>
          <select
            id="order"
            value={order}
            onChange={(event) => update({ order: event.target.value, page: undefined })}
          >
            <option value="desc">Descending</option>
            <option value="asc">Ascending</option>
          </select>
        </div>
      </search>

      <p className="muted small" aria-live="polite">
        {list.isPending
          ? ''
          : list.isError
            ? ''
            : `${total.toLocaleString()} ${total === 1 ? 'Expert' : 'Experts'}${filter ? ` matching “${filter}”` : ''}`}
        {list.isFetching && !list.isPending ? ' · updating…' : ''}
      </p>
      <ErrorNotice error={list.error} retry={list.refetch} />
      {list.isPending && <PageSkeleton />}

      {!list.isPending && !list.isError && experts.length === 0 && (
        <div className="empty card">
          {total > 0 ? (
            <p>
              There is no page {page}: the list has {pages} {pages === 1 ? 'page' : 'pages'}.{' '}
              <Link to={`?${new URLSearchParams({ ...Object.fromEntries(params), page: String(pages) })}`}>
                Go to page {pages}
              </Link>
            </p>
          ) : filter ? (
            <p>
              No Expert matches “{filter}”. A name matches from its start or after its scope, a <code>-</code>{' '}
              or a <code>_</code> (<code>search</code> finds <code>web-search</code>); a description anywhere.
            </p>
          ) : (
            <p>
              Nothing is published yet. Publish one with <code>cadre publish</code>; see the README.
            </p>
          )}
        </div>
      )}

      <ul className="expert-list" aria-busy={list.isFetching}>
        {experts.map((expert) => (
          <li key={expert.id} className="card expert-item">
            <div className="expert-item-head">
              <Link to={expertPath(expert.name)} className="expert-name">
                {expert.name}
              </Link>
              <span className="version">v{expert.version}</span>
              {records.get(expert.key) && records.get(expert.key)?.status !== 'available' && (
                <StatusBadge status={records.get(expert.key)!.status} />
              )}
              {expert.tags
                .filter((tag) => tag !== 'latest')
                .map((tag) => (
                  <TagBadge key={tag} tag={tag} />
                ))}
            </div>
            {expert.description ? (
              <p className="description">{expert.description}</p>
            ) : (
              <p className="muted">No description.</p>
            )}
            <p className="muted small">
              by {expert.owner.name} · updated <When at={expert.updatedAt} />
            </p>
          </li>
        ))}
      </ul>

      {pages > 1 && (
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            className="button"
            disabled={page <= 1}
            onClick={() => update({ page: page > 2 ? String(page - 1) : undefined })}
          >
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button
            type="button"
            className="button"
            disabled={page >= pages}
            onClick={() => update({ page: String(page + 1) })}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
