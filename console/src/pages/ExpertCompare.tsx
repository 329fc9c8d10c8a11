import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { DefinitionDiff } from '../components/DefinitionDiff.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { compareVersionsPath, expertPath } from '../format.js';

/**
 * Two versions of one Expert name side by side (`/experts/<name>/compare?from=1.0.0&to=1.1.0`), from
 * `GET /registry/diff`. Without `from` or `to`, the latest is compared with the version before it; the
 * address always says what is shown, so a comparison can be linked.
 */
export function ExpertCompare({ name }: { name: string }) {
  const [params, setParams] = useSearchParams();
  const fromId = useId();
  const toId = useId();
  const versions = useQuery({
    queryKey: ['versions', name],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/registry/experts/{expertKey}/versions', {
          params: { path: { expertKey: name } },
          signal,
        }),
      ).data,
  });
  const list = versions.data?.versions ?? [];
  const latestIndex = Math.max(
    0,
    list.findIndex((version) => version.version === versions.data?.latest),
  );
  const to = params.get('to') ?? versions.data?.latest;
  const from = params.get('from') ?? list[latestIndex + 1]?.version ?? list[latestIndex - 1]?.version;
  const diff = useQuery({
    queryKey: ['diff', name, from, to],
    enabled: from !== undefined && to !== undefined && from !== to,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/registry/diff', {
          params: { query: { from: `${name}@${from}`, to: `${name}@${to}` } },
          signal,
        }),
      ).data.diff,
  });

  // The list is newest first: after Swap (or any pick) the labels say which side is the newer one.
  const rank = (version: string | undefined) => list.findIndex((item) => item.version === version);
  const fromIsNewer = rank(from) >= 0 && rank(to) >= 0 && rank(from) < rank(to);
  const choose = (side: 'from' | 'to', value: string) => {
    const next = new URLSearchParams(params);
    if (from) next.set('from', from);
    if (to) next.set('to', to);
    next.set(side, value);
    setParams(next, { replace: true });
  };
  const options = (chosen: string | undefined) => {
    const known = list.some((version) => version.version === chosen);
    return [
      ...(chosen && !known ? [{ value: chosen, label: chosen }] : []),
      ...list.map((version) => ({
        value: version.version,
        label: version.tags.length ? `${version.version} (${version.tags.join(', ')})` : version.version,
      })),
    ];
  };

  return (
    <article className="page compare">
      <nav aria-label="Breadcrumb" className="breadcrumb small">
        <Link to="/">Experts</Link> / <Link to={expertPath(name)}>{name}</Link> / <span>Compare</span>
      </nav>
      <h1 tabIndex={-1}>Compare versions of {name}</h1>
      {versions.isPending ? (
        <PageSkeleton />
      ) : versions.isError ? (
        <ErrorNotice error={versions.error} retry={versions.refetch} />
      ) : list.length < 2 ? (
        <p className="notice" role="note">
          {name} has one version only: there is nothing to compare yet.{' '}
          <Link to={expertPath(name)}>Back to {name}</Link>
        </p>
      ) : (
        <>
          <div className="toolbar compare-pick">
            <div className="field">
              <label htmlFor={fromId}>From ({fromIsNewer ? 'newer' : 'older'})</label>
              <select id={fromId} value={from} onChange={(event) => choose('from', event.target.value)}>
                {options(from).map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={toId}>To ({fromIsNewer ? 'older' : 'newer'})</label>
              <select id={toId} value={to} onChange={(event) => choose('to', event.target.value)}>
                {options(to).map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </div>
            {from && to && (
              <Link className="button button-small" to={compareVersionsPath(name, to, from)} replace>
                Swap
              </Link>
            )}
          </div>
          {from === to ? (
            <p className="notice" role="note">
              Choose two different versions to compare.
            </p>
          ) : diff.isPending ? (
            <PageSkeleton />
          ) : diff.isError ? (
            <ErrorNotice error={diff.error} retry={diff.refetch} />
          ) : (
            <>
              <dl className="facts compare-sides">
                <dt>From</dt>
                <dd>
                  <Link to={expertPath(diff.data.from)}>{diff.data.from}</Link>{' '}
                  <code className="integrity">{diff.data.fromIntegrity}</code>
                </dd>
                <dt>To</dt>
                <dd>
                  <Link to={expertPath(diff.data.to)}>{diff.data.to}</Link>{' '}
                  <code className="integrity">{diff.data.toIntegrity}</code>
                </dd>
              </dl>
              <DefinitionDiff diff={diff.data} />
            </>
          )}
        </>
      )}
    </article>
  );
}
