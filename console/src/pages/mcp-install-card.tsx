import { useId, useState } from 'react';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { mcpJsonFor } from './mcp-install.js';
import { OFFICIAL } from './mcp-version-cells.js';

type ServerEntry = components['schemas']['McpServerResponse'];

/** The version an IDE installs by default: the latest, unless it is deleted; then the newest one left. */
function defaultVersion(versions: ServerEntry[]) {
  const shown = versions.filter((entry) => entry._meta[OFFICIAL].status !== 'deleted');
  return (shown.find((entry) => entry._meta[OFFICIAL].isLatest) ?? shown[0])?.server.version;
}

/**
 * What VS Code writes into mcp.json when it installs a version of the server (docs/mcp-registry.md "The
 * install snippet"), for the latest version or one chosen: to paste, or to check what the IDE will run.
 * Secrets in it are only `${input:…}` prompts.
 */
export function InstallCard({ versions }: { versions: ServerEntry[] }) {
  const selectId = useId();
  const installable = versions.filter((entry) => entry._meta[OFFICIAL].status !== 'deleted');
  const [chosen, setChosen] = useState<string>();
  // A chosen version that has since been deleted is no longer offered: back to the default.
  const version = installable.some((candidate) => candidate.server.version === chosen)
    ? chosen
    : defaultVersion(versions);
  const entry = installable.find((candidate) => candidate.server.version === version);
  const json = entry && mcpJsonFor(entry.server);
  const text = json && JSON.stringify(json, null, 2);
  const status = entry?._meta[OFFICIAL].status;
  return (
    <section aria-labelledby="mcp-install-heading" className="card">
      <h2 id="mcp-install-heading">Install in VS Code</h2>
      {installable.length === 0 ? (
        <p className="muted">Every version is deleted: there is nothing to install.</p>
      ) : (
        <>
          <p className="muted small">
            What VS Code writes into <code>mcp.json</code> when it installs this server from your catalog.
            Paste it into <code>.vscode/mcp.json</code> or your user <code>mcp.json</code>; VS Code asks for
            each input (secrets as passwords) when the server first starts.
          </p>
          <div className="field">
            <label htmlFor={selectId}>Version</label>
            <select id={selectId} value={version} onChange={(event) => setChosen(event.target.value)}>
              {installable.map((candidate) => (
                <option key={candidate.server.version} value={candidate.server.version}>
                  {candidate.server.version}
                  {candidate._meta[OFFICIAL].isLatest ? ' (latest)' : ''}
                  {candidate._meta[OFFICIAL].status === 'deprecated' ? ' (deprecated)' : ''}
                </option>
              ))}
            </select>
          </div>
          {status === 'deprecated' && (
            <p className="notice-inline-warning">
              This version is deprecated
              {entry?._meta[OFFICIAL].statusMessage ? `: ${entry._meta[OFFICIAL].statusMessage}` : '.'}
            </p>
          )}
          {text ? (
            <>
              <ScrollableCode className="code small" label={`mcp.json for ${version}`}>
                {text}
              </ScrollableCode>
              <CopyButton text={text} label="Copy mcp.json" />
            </>
          ) : (
            <p className="muted">
              This version is an MCP bundle (or lists no package and no remote): VS Code installs a bundle
              from the gallery itself, so there is no configuration to paste.
            </p>
          )}
        </>
      )}
    </section>
  );
}
