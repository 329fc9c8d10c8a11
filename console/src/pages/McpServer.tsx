import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { TableScroll } from '../components/TableScroll.js';
import { expertPath } from '../format.js';
import { VersionCells } from './mcp-version-cells.js';

/**
 * `/mcp-catalog/servers/<name>`: one server of the organization's MCP catalog (docs/mcp-registry.md "Who
 * uses a server"): its versions with their status, and the organization's Experts whose skills run it.
 */
export function McpServer() {
  const name = useParams()['*'] ?? '';
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
          params: { path: { organization: organization ?? '', serverName: name } },
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
  return (
    <section className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb small">
        <Link to="/mcp-catalog">MCP catalog</Link> / <span>{name}</span>
      </nav>
      <PageHeader title={name}>{description ?? 'A server of your organization’s MCP catalog.'}</PageHeader>
      <div className="stack">
        <ErrorNotice error={settings.error ?? versions.error} retry={versions.refetch} />
        {versions.isPending && !versions.error && <PageSkeleton lines={3} />}
        {versions.data && (
          <section aria-labelledby="mcp-server-versions-heading" className="card">
            <h2 id="mcp-server-versions-heading">Versions</h2>
            <TableScroll label="Versions">
              <table className="table">
                <caption className="visually-hidden">Versions of {name}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Version</th>
                    <th scope="col">Status</th>
                    <th scope="col">Published</th>
                  </tr>
                </thead>
                <tbody>
                  {versions.data.map((entry) => (
                    <tr key={entry.server.version}>
                      <VersionCells entry={entry} />
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
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
