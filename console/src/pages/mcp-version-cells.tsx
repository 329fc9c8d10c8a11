import type { components } from '../api/schema.js';
import { When } from '../components/When.js';

type ServerEntry = components['schemas']['McpServerResponse'];

/** The registry's own facts about a version, under its reverse-DNS `_meta` key (docs/mcp-registry.md). */
export const OFFICIAL = 'io.modelcontextprotocol.registry/official';

/** A catalog version's cells, as the catalog's list and a server's page both show them: version, status, when. */
export function VersionCells({ entry }: { entry: ServerEntry }) {
  const meta = entry._meta[OFFICIAL];
  return (
    <>
      <td data-label="Version">
        {entry.server.version}
        {meta.isLatest ? ' (latest)' : ''}
      </td>
      <td data-label="Status">
        {meta.status}
        {meta.statusMessage ? `: ${meta.statusMessage}` : ''}
      </td>
      <td data-label="Published">
        <When at={meta.publishedAt} />
      </td>
    </>
  );
}
