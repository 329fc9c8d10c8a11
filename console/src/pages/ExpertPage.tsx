import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { StatusBadge, TagBadge } from '../components/StatusBadge.js';
import { When } from '../components/When.js';
import { compareNameOf, expertPath, formatDate, formatDateTime } from '../format.js';
import { useCan, useSession } from '../session.js';
import { useExpertRecords } from './expert-records.js';
import { OwnerActions } from './OwnerActions.js';
import { SkillsTable } from './SkillsTable.js';
import { CompareForm, PendingApprovalNotice, UsedBy } from './VersionTools.js';

// The compare view is its own chunk, loaded when a comparison is opened.
const ExpertCompare = lazy(async () => ({ default: (await import('./ExpertCompare.js')).ExpertCompare }));

/**
 * `/experts/<key>`: an Expert by any key form (`name`, `name@1.2.0`, `name@tag`, scoped or not), or
 * `/experts/<name>/compare?from=…&to=…`: two of its versions compared.
 */
export function ExpertPage() {
  const key = useParams()['*'] ?? '';
  const compared = compareNameOf(key);
  if (compared !== undefined) {
    return (
      <Suspense
        fallback={
          <section className="page" aria-busy="true">
            <h1 tabIndex={-1}>Compare versions of {compared}</h1>
            <PageSkeleton />
          </section>
        }
      >
        <ExpertCompare name={compared} />
      </Suspense>
    );
  }
  return <ExpertDetails expertKey={key} />;
}

/**
 * Which server of the organization's MCP catalog each skill comes from: asked only of the owner's own
 * Experts, by a member who may read the catalog.
 */
function useCatalogEntries(
  expert: { name: string; version: string; owner: { organizationId: string } } | undefined,
  organizationId: string | undefined,
) {
  const can = useCan();
  const mine = expert !== undefined && expert.owner.organizationId === organizationId;
  return useQuery({
    queryKey: ['mcp-skills', expert?.name, expert?.version],
    enabled: mine && can('mcp:read'),
    queryFn: async ({ signal }) => {
      const entries = unwrap(
        await api.GET('/api/v1/mcp/skills', {
          params: { query: { expert: expert?.name ?? '', version: expert?.version ?? '' } },
          signal,
        }),
      ).data;
      return new Map(entries.map((entry) => [entry.skill, entry.server]));
    },
  });
}

function ExpertDetails({ expertKey: key }: { expertKey: string }) {
  const session = useSession();
  const expert = useQuery({
    queryKey: ['expert', key],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/registry/experts/{expertKey}', { params: { path: { expertKey: key } }, signal }))
        .data.expert,
  });
  const name = expert.data?.name;
  const versions = useQuery({
    queryKey: ['versions', name],
    enabled: name !== undefined,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/registry/experts/{expertKey}/versions', {
          params: { path: { expertKey: name ?? '' } },
          signal,
        }),
      ).data,
  });

  const delegators = useQuery({
    queryKey: ['delegators', name],
    enabled: name !== undefined,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/registry/experts/{expertKey}/delegators', {
          params: { path: { expertKey: name ?? '' } },
          signal,
        }),
      ).data.experts,
  });
  const versionRecords = useExpertRecords(versions.data?.versions.map((version) => version.key) ?? []);
  const catalog = useCatalogEntries(expert.data, session.data?.organization.id);

  if (expert.isPending) {
    return (
      <section className="page" aria-busy="true">
        <h1 tabIndex={-1}>{key}</h1>
        <PageSkeleton />
      </section>
    );
  }
  if (expert.isError) {
    return (
      <section className="page">
        <h1 tabIndex={-1}>{key}</h1>
        <ErrorNotice error={expert.error} retry={expert.refetch} />
        <p>
          <Link to="/">Back to the registry</Link>
        </p>
      </section>
    );
  }
  const e = expert.data;
  const isLatest = e.tags.includes('latest');
  const owns = session.data?.organization.id === e.owner.organizationId;
  const snippet = `[experts."my-expert"]\ndelegates = ["${e.key}"]`;
  return (
    <article className="page expert">
      <nav aria-label="Breadcrumb" className="breadcrumb small">
        <Link to="/">Experts</Link> / <span>{e.name}</span>
      </nav>
      <header className="expert-header">
        <h1 tabIndex={-1}>
          {e.name} <span className="version">v{e.version}</span>
        </h1>
        <div className="badges">
          <StatusBadge status={e.status} />
          {e.tags.map((tag) => (
            <TagBadge key={tag} tag={tag} />
          ))}
        </div>
        <div className="key-row">
          <code className="key">{e.key}</code>
          <CopyButton text={e.key} label="Copy key" context="of this Expert version" />
        </div>
        {!isLatest && versions.data && (
          <p className="notice" role="note">
            This is not the latest version. The latest is{' '}
            <Link to={expertPath(`${e.name}@${versions.data.latest}`)}>{versions.data.latest}</Link>.
          </p>
        )}
        {owns && <PendingApprovalNotice expert={e} />}
        {e.status === 'deprecated' && (
          <p className="notice notice-warning">The owner deprecated this version: prefer another one.</p>
        )}
        {e.status === 'disabled' && (
          <p className="notice notice-error">The owner disabled this version: it should not be used.</p>
        )}
      </header>

      <div className="expert-grid">
        <div className="expert-main">
          <section aria-labelledby="about">
            <h2 id="about">About</h2>
            {e.description ? (
              <p className="description">{e.description}</p>
            ) : (
              <p className="muted">No description.</p>
            )}
            <dl className="facts">
              <dt>Owner</dt>
              <dd>{e.owner.name}</dd>
              <dt>Published</dt>
              <dd>{formatDateTime(e.createdAt)}</dd>
              <dt>Updated</dt>
              <dd>
                <When at={e.updatedAt} />
              </dd>
              <dt>Runtime</dt>
              <dd>{e.minRuntimeVersion} or later</dd>
            </dl>
          </section>

          <section aria-labelledby="instruction">
            <h2 id="instruction">Instruction</h2>
            <ScrollableCode className="instruction" label="Instruction text">
              {e.instruction}
            </ScrollableCode>
          </section>

          <section aria-labelledby="skills">
            <h2 id="skills">Skills</h2>
            <SkillsTable skills={e.skills} catalog={catalog.data} />
          </section>

          <section aria-labelledby="delegates">
            <h2 id="delegates">Delegates</h2>
            {e.delegates.length === 0 ? (
              <p className="muted">This Expert delegates to no other Expert.</p>
            ) : (
              <ul className="link-list">
                {e.delegates.map((delegate) => (
                  <li key={delegate}>
                    <Link to={expertPath(delegate)}>{delegate}</Link>
                  </li>
                ))}
              </ul>
            )}
            {e.unavailableDelegates?.map((item) => (
              <p key={item.key} className="notice notice-warning">
                <code>{item.key}</code> is unavailable: {item.reason}
              </p>
            ))}
          </section>
          <UsedBy expert={e} otherVersions={delegators} />
        </div>

        <aside className="expert-side">
          {owns && <OwnerActions key={e.id} expert={e} />}
          <section className="card" aria-labelledby="use">
            <h2 id="use">Delegate to it</h2>
            <p className="small">Add it to an Expert in your cadre.toml:</p>
            <pre className="code">{snippet}</pre>
            <CopyButton text={snippet} label="Copy snippet" />
          </section>
          <section className="card" aria-labelledby="versions">
            <h2 id="versions">Versions</h2>
            <ErrorNotice error={versions.error} retry={versions.refetch} />
            <ul className="versions">
              {versions.data?.versions.map((version) => (
                <li key={version.id} aria-current={version.id === e.id ? 'page' : undefined}>
                  <Link to={expertPath(version.key)}>{version.version}</Link>
                  {versionRecords.get(version.key) &&
                    versionRecords.get(version.key)?.status !== 'available' && (
                      <StatusBadge status={versionRecords.get(version.key)!.status} />
                    )}
                  {version.tags.map((tag) => (
                    <TagBadge key={tag} tag={tag} />
                  ))}
                  {versionRecords.get(version.key) && (
                    <span className="muted small">
                      {formatDate(versionRecords.get(version.key)!.createdAt)}
                    </span>
                  )}
                </li>
              ))}
            </ul>
            {versions.data && versions.data.versions.length > 1 && (
              <CompareForm name={e.name} current={e.version} versions={versions.data.versions} />
            )}
          </section>
        </aside>
      </div>
    </article>
  );
}
