import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { dataOf } from './admin-client.js';
import { createCadreApi } from './api.js';
import { apiKeyClient } from './api-key-client.js';
import { CliError, EXIT_SERVER, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { resolveServiceUrl, URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

const STATUSES = ['active', 'deprecated', 'deleted'] as const;
type Status = (typeof STATUSES)[number];

function statusArgument(value: string): Status {
  if (!(STATUSES as readonly string[]).includes(value))
    throw new CliError(`status "${value}" must be one of ${STATUSES.join(', ')}`);
  return value as Status;
}

function readServerJson(io: CliIo, file: string): Record<string, unknown> {
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

type Official = { status: string; isLatest: boolean; statusMessage?: string };
const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const CADRE = 'dev.cadre/catalog';
const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;

/**
 * `cadre mcp publish|list|status`: the organization's MCP catalog (docs/mcp-registry.md), with the
 * caller's key (CADRE_API_KEY): publishing and status changes need mcp:write, the list mcp:read.
 */
export function registerMcpCommands(program: Command, io: CliIo): void {
  const mcp = program
    .command('mcp')
    .description("Your organization's MCP catalog, served to IDEs in the MCP Registry's v0.1 API");

  mcp
    .command('publish <server.json>')
    .description('Publish an MCP server version from its server.json (needs mcp:write)')
    .option('--url <url>', URL_OPTION_HELP)
    .action(async (file: string, options: { url?: string }) => {
      const body = readServerJson(io, file);
      const client = apiKeyClient(io, options, 'mcp:write (an owner or admin)');
      // The server.json is sent as written: Cadre validates it and names each problem by its path.
      const published = await dataOf(client.POST('/api/v1/mcp/servers', { body: body as never }));
      const official = published._meta[OFFICIAL] as Official;
      printLine(
        io.stdout,
        `published ${published.server.name} ${published.server.version}${official.isLatest ? ' (latest)' : ''}`,
      );
      const waiting = published._meta[CADRE]?.approval;
      if (waiting) {
        const id = published._meta[CADRE]?.id;
        printLine(
          io.stdout,
          `waits for approval by another owner or admin (cadre mcp approve ${id}): ${waiting.reasons.join('; ')}`,
        );
      }
    });

  mcp
    .command('list')
    .description('The catalog as IDEs see it: the latest version of each server (needs mcp:read)')
    .option('--search <text>', 'only servers whose name holds this text')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answers as a JSON array, for scripts')
    .action(async (options: { url?: string; search?: string; json?: boolean }) => {
      const client = apiKeyClient(io, options, 'mcp:read');
      const catalog = await dataOf(client.GET('/api/v1/mcp/catalog'));
      const reader = catalogReader(io, options);
      const servers: Array<{
        server: { name: string; version: string; description: string };
        _meta: Record<string, unknown>;
      }> = [];
      let cursor: string | undefined;
      do {
        const { data } = await reader.GET('/mcp/{organization}/v0.1/servers', {
          params: {
            path: { organization: catalog.organization },
            query: {
              version: 'latest',
              limit: 100,
              ...(options.search ? { search: options.search } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
        });
        if (!data) throw new CliError('the catalog answered without a body', EXIT_SERVER);
        servers.push(...data.servers);
        cursor = data.metadata.nextCursor;
      } while (cursor);
      if (options.json) return printJson(io, servers);
      const rows = servers.map((entry) => {
        const official = entry._meta[OFFICIAL] as Official;
        return [entry.server.name, entry.server.version, official.status, entry.server.description];
      });
      printLine(io.stdout, formatTable(['NAME', 'VERSION', 'STATUS', 'DESCRIPTION'], rows));
      printLine(
        io.stderr,
        paintFor(io).dim(`${rows.length} server${rows.length === 1 ? '' : 's'} · ${catalog.url}`),
      );
    });

  mcp
    .command('status <name> <version> <status>')
    .description('Set a version active, deprecated (with --message) or deleted (needs mcp:write)')
    .option('--message <text>', 'why (shown to IDEs), e.g. "Use 2.0.0"')
    .option('--url <url>', URL_OPTION_HELP)
    .action(
      async (name: string, version: string, status: string, options: { url?: string; message?: string }) => {
        const wanted = statusArgument(status);
        const client = apiKeyClient(io, options, 'mcp:write (an owner or admin)');
        const changed = await dataOf(
          client.PATCH('/api/v1/mcp/servers/{serverName}/versions/{version}/status', {
            params: { path: { serverName: name, version } },
            body: { status: wanted, ...(options.message ? { statusMessage: options.message } : {}) },
          }),
        );
        const official = changed._meta[OFFICIAL] as Official;
        printLine(
          io.stdout,
          `${name} ${version} is ${official.status}${official.isLatest ? ' (latest)' : ''}`,
        );
      },
    );

  registerApprovalCommands(mcp, io);
}

/** `cadre mcp approvals|approve|reject`: the catalog's versions that widen access and wait for a decision. */
function registerApprovalCommands(mcp: Command, io: CliIo): void {
  mcp
    .command('approvals')
    .description('Catalog versions that widen access, waiting for approval or decided (needs mcp:read)')
    .option('--status <status>', `one of ${APPROVAL_STATUSES.join(', ')}`, 'pending')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the approvals as a JSON array, for scripts')
    .action(async (options: { url?: string; status: string; json?: boolean }) => {
      const status = APPROVAL_STATUSES.find((candidate) => candidate === options.status);
      if (!status) throw new CliError(`--status must be one of ${APPROVAL_STATUSES.join(', ')}`);
      const client = apiKeyClient(io, options, 'mcp:read');
      const approvals = await dataOf(client.GET('/api/v1/mcp/approvals', { params: { query: { status } } }));
      if (options.json) return printJson(io, approvals);
      const rows = approvals.map((a) => [
        a.id,
        a.name,
        a.version,
        a.previousVersion ?? '-',
        a.reasons.join('; '),
      ]);
      printLine(io.stdout, formatTable(['ID', 'NAME', 'VERSION', 'LATEST WAS', 'WIDENS ACCESS'], rows));
      printLine(
        io.stderr,
        paintFor(io).dim(`${rows.length} ${status} approval${rows.length === 1 ? '' : 's'}`),
      );
    });

  for (const decision of ['approve', 'reject'] as const) {
    mcp
      .command(`${decision} <approvalId>`)
      .description(
        decision === 'approve'
          ? 'Approve a waiting version: it joins the catalog (experts:approve; not your own)'
          : 'Refuse a waiting version: it never joins the catalog (experts:approve; not your own)',
      )
      .option('--url <url>', URL_OPTION_HELP)
      .action(async (approvalId: string, options: { url?: string }) => {
        const client = apiKeyClient(io, options, 'experts:approve (an owner or admin)');
        const path =
          decision === 'approve'
            ? '/api/v1/mcp/approvals/{mcpApprovalId}/approve'
            : '/api/v1/mcp/approvals/{mcpApprovalId}/reject';
        const { approval, movedLatest } = await dataOf(
          client.POST(path, { params: { path: { mcpApprovalId: approvalId } } }),
        );
        const outcome =
          decision === 'reject'
            ? 'refused: it never joins the catalog'
            : movedLatest
              ? 'approved; it is now latest'
              : 'approved; latest stays on a newer version';
        printLine(io.stdout, `${approval.name} ${approval.version} ${outcome}`);
      });
  }
}

/** The catalog's v0.1 API with the caller's key: its answers are `{ servers, metadata }`, not `{ data }`. */
function catalogReader(io: CliIo, options: { url?: string | undefined }) {
  const { url } = resolveServiceUrl(io, { url: options.url });
  return createCadreApi({
    baseUrl: url,
    token: io.env.CADRE_API_KEY ?? '',
    accepts: (json) => Array.isArray((json as { servers?: unknown } | undefined)?.servers),
    unreachable: (base, why) => new CliError(`cannot reach Cadre at ${base} (${why})`, EXIT_SERVER),
    refused: ({ status, text, json }) =>
      new CliError(
        `${status}: ${(json as { reason?: string } | undefined)?.reason ?? text}`,
        status >= 500 ? EXIT_SERVER : EXIT_USER,
      ),
  });
}
