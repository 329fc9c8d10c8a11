import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { TableScroll } from '../components/TableScroll.js';
import { useCan } from '../session.js';
import { McpApprovals } from './McpApprovals.js';
import { VersionCells } from './mcp-version-cells.js';
import { catalogServerPath } from './SkillsTable.js';

type Settings = components['schemas']['McpCatalogSettings'];
type Access = Settings['access'];

const ACCESS_WORDS: Record<Access, string> = {
  public: 'Public: anyone who has the address reads it',
  key: 'Private: read with a Bearer key that has mcp:read',
  link: 'Private behind a catalog link: for IDEs that send no credentials; rotate it to end the old one',
};

/**
 * `/mcp-catalog`: the organization's MCP catalog (docs/mcp-registry.md): its servers and versions with their
 * status, the versions waiting for approval, how to publish, the address IDEs read, and (owners and admins) who
 * may read it and the catalog link.
 */
export function McpCatalog() {
  const settings = useQuery({
    queryKey: ['mcp-catalog'],
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/mcp/catalog', { signal })).data,
  });
  return (
    <section className="page">
      <PageHeader title="MCP catalog">
        The MCP servers your organization approves, served to IDEs in the MCP Registry's v0.1 API. Experts can
        be held to them by the <Link to="/publishing">publish policy</Link>.
      </PageHeader>
      <div className="stack">
        <ErrorNotice error={settings.error} retry={settings.refetch} />
        {settings.isPending && <PageSkeleton lines={4} />}
        {settings.data && <AccessCard settings={settings.data} />}
        {settings.data && <McpApprovals organization={settings.data.organization} />}
        {settings.data && <Servers organization={settings.data.organization} />}
        <PublishingHelp />
      </div>
    </section>
  );
}

function PublishingHelp() {
  return (
    <section aria-labelledby="mcp-publish-heading" className="card">
      <h2 id="mcp-publish-heading">Publishing a server</h2>
      <p>
        Write the server's <code>server.json</code> (the official MCP Registry format) and publish it with an
        owner's or admin's key: <code>cadre mcp publish server.json</code>. Versions are immutable;{' '}
        <code>cadre mcp status NAME VERSION deprecated --message "…"</code> deprecates one.
      </p>
    </section>
  );
}

function AccessCard({ settings }: { settings: Settings }) {
  const can = useCan();
  const client = useQueryClient();
  const id = useId();
  const [access, setAccess] = useState<Access>(settings.access);
  const [link, setLink] = useState<string>();
  const save = useMutation({
    mutationFn: async (next: Access) =>
      unwrap(await api.PUT('/api/v1/mcp/catalog', { body: { access: next } })).data,
    onSuccess: (answer) => client.setQueryData(['mcp-catalog'], answer),
  });
  const rotate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/mcp/catalog/link')).data,
    onSuccess: (answer) => {
      setLink(answer.url);
      void client.invalidateQueries({ queryKey: ['mcp-catalog'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(access);
  };
  return (
    <section aria-labelledby="mcp-access-heading" className="card">
      <h2 id="mcp-access-heading">Address and access</h2>
      <dl className="facts">
        <dt>Address for IDEs</dt>
        <dd>
          <code>{settings.url}</code>{' '}
          <CopyButton text={settings.url} label="Copy the address" context="for IDEs" />
        </dd>
        <dt>Who may read it</dt>
        <dd>{ACCESS_WORDS[settings.access]}</dd>
      </dl>
      {can('mcp:write') && (
        <form className="form" onSubmit={submit}>
          <fieldset className="fieldset">
            <legend>Change who may read it</legend>
            {(Object.keys(ACCESS_WORDS) as Access[]).map((mode) => (
              <label key={mode} className="check">
                <input
                  type="radio"
                  name={`${id}-access`}
                  checked={access === mode}
                  onChange={() => setAccess(mode)}
                />
                {ACCESS_WORDS[mode]}
              </label>
            ))}
          </fieldset>
          <ErrorNotice error={save.error} title="The access was not changed." />
          <div className="actions wrap">
            <button type="submit" className="button button-primary" disabled={save.isPending}>
              Save access
            </button>
            <button
              type="button"
              className="button"
              disabled={rotate.isPending}
              onClick={() => rotate.mutate()}
            >
              {settings.linkCreated ? 'Rotate the catalog link' : 'Create a catalog link'}
            </button>
          </div>
          <p role="status" className="success outcome">
            {save.isSuccess ? 'Access saved.' : ''}
          </p>
          <ErrorNotice error={rotate.error} title="No link was made." />
          {link && (
            <p role="status">
              The new catalog link, shown once (the old one no longer works): <code>{link}</code>{' '}
              <CopyButton text={link} label="Copy the catalog link" />
            </p>
          )}
        </form>
      )}
    </section>
  );
}

/** Every version of every server, in name order, with its status; searched by name. */
function Servers({ organization }: { organization: string }) {
  const [search, setSearch] = useState('');
  const searchId = useId();
  const servers = useQuery({
    queryKey: ['mcp-servers', organization, search],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/mcp/{organization}/v0.1/servers', {
          params: { path: { organization }, query: { limit: 100, ...(search ? { search } : {}) } },
          signal,
        }),
      ).servers,
  });
  return (
    <section aria-labelledby="mcp-servers-heading" className="card">
      <h2 id="mcp-servers-heading">Servers</h2>
      <div className="toolbar">
        <div className="field grow">
          <label htmlFor={searchId}>Search by name</label>
          <input
            id={searchId}
            type="search"
            value={search}
            spellCheck={false}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
      </div>
      <ErrorNotice error={servers.error} retry={servers.refetch} />
      {servers.data?.length === 0 && (
        <p className="muted">No server {search ? 'matches' : 'is published yet'}.</p>
      )}
      {servers.data && servers.data.length > 0 && (
        <TableScroll label="Servers">
          <table className="table">
            <caption className="visually-hidden">Servers and their versions</caption>
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                <th scope="col">Published</th>
              </tr>
            </thead>
            <tbody>
              {servers.data.map((entry) => (
                <tr key={`${entry.server.name}@${entry.server.version}`}>
                  <td>
                    <Link to={catalogServerPath(entry.server.name)}>
                      <code>{entry.server.name}</code>
                    </Link>
                    <div className="small muted">{entry.server.description}</div>
                  </td>
                  <VersionCells entry={entry} />
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
