import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { TableScroll } from '../components/TableScroll.js';
import { expertPath } from '../format.js';
import { useCan } from '../session.js';
import { InstallCard } from './mcp-install-card.js';
import { StatusButtons, StatusDialog, type StatusRequest } from './mcp-status-actions.js';
import { VersionCells } from './mcp-version-cells.js';

/**
 * `/mcp-catalog/servers/<name>`: one server of the organization's MCP catalog (docs/mcp-registry.md "The
 * console"): what VS Code writes to install it, its versions with their status (changed here by those with
 * mcp:write), and the organization's Experts whose skills run it.
 */
export function McpServer() {
  const name = useParams()['*'] ?? '';
  const can = useCan();
  const manages = can('mcp:write');
  const [request, setRequest] = useState<StatusRequest>();
  const [outcome, setOutcome] = useState({ words: '', count: 0 });
  const outcomeRef = useRef<HTMLParagraphElement>(null);
  // The confirmation gives focus back to its opener as it closes; the outcome takes it after, on the next frame.
  useEffect(() => {
    if (outcome.count === 0) return;
    const frame = requestAnimationFrame(() => outcomeRef.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, [outcome.count]);
  const settings = useQuery({
    queryKey: ['mcp-catalog'],
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/mcp/catalog', { signal })).data,
  });
  const organization = settings.data?.organization;
  const versions = useQuery({
    queryKey: ['mcp-server-versions', organization, name],
    enabled: organization !== undefined,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/mcp/{organization}/v0.1/servers/{serverName}/versions', {
          // Deleted versions too: this page is where they are restored.
          params: {
            path: { organization: organization ?? '', serverName: name },
            query: { include_deleted: 'true' },
          },
          signal,
        }),
      ).servers,
  });
  const users = useQuery({
    queryKey: ['mcp-server-users', name],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/mcp/servers/{serverName}/experts', {
          params: { path: { serverName: name } },
          signal,
        }),
      ).data,
  });
  const description = versions.data?.[0]?.server.description;
  const changed = (words: string) => setOutcome((previous) => ({ words, count: previous.count + 1 }));
  return (
    <section className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb small">
        <Link to="/mcp-catalog">MCP catalog</Link> / <span>{name}</span>
      </nav>
      <PageHeader title={breakable(name)}>
        {description ?? 'A server of your organization’s MCP catalog.'}
      </PageHeader>
      <div className="stack">
        <ErrorNotice error={settings.error ?? versions.error} retry={versions.refetch} />
        {versions.isPending && !versions.error && <PageSkeleton lines={3} />}
        {versions.data && <InstallCard versions={versions.data} />}
        {versions.data && (
          <section aria-labelledby="mcp-server-versions-heading" className="card">
            <h2 id="mcp-server-versions-heading">Versions</h2>
            <p ref={outcomeRef} tabIndex={-1} role="status" className="success">
              {outcome.words}
            </p>
            <TableScroll label="Versions">
              <table className="table">
                <caption className="visually-hidden">Versions of {name}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Version</th>
                    <th scope="col">Status</th>
                    <th scope="col">Published</th>
                    {manages && <th scope="col">Status actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {versions.data.map((entry) => (
                    <tr key={entry.server.version}>
                      <VersionCells entry={entry} />
                      {manages && (
                        <td data-label="Status actions">
                          <StatusButtons entry={entry} onRequest={setRequest} />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
            {manages && (
              <StatusDialog
                name={name}
                request={request}
                onClose={() => setRequest(undefined)}
                onChanged={changed}
              />
            )}
          </section>
        )}
        <section aria-labelledby="mcp-server-users-heading" className="card">
          <h2 id="mcp-server-users-heading">Used by Experts</h2>
          <p className="muted small">
            Your organization’s Experts whose latest version runs one of this server’s packages or remote
            endpoints, as the publish policy’s catalog rule matches them.
          </p>
          <ErrorNotice error={users.error} retry={users.refetch} />
          {users.data?.length === 0 && <p className="muted">No Expert of your organization uses it.</p>}
          {users.data && users.data.length > 0 && (
            <ul className="link-list">
              {users.data.map((user) => (
                <li key={`${user.name}@${user.version}`}>
                  <Link to={expertPath(`${user.name}@${user.version}`)}>
                    {user.name}@{user.version}
                  </Link>{' '}
                  <span className="small muted">
                    skill {user.skills.join(', ')} runs version {user.serverVersions.join(', ')}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </section>
  );
}

/** A server's name may break after its namespace's `/` on a narrow screen, rather than mid-word. */
function breakable(name: string) {
  const slash = name.indexOf('/');
  if (slash < 0) return name;
  return (
    <>
      {name.slice(0, slash + 1)}
      <wbr />
      {name.slice(slash + 1)}
    </>
  );
}
