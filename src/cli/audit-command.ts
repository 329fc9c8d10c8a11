import { type Command, InvalidArgumentError } from 'commander';
import { bodyOf } from './admin-client.js';
import type { CadreApi } from './api.js';
import { apiKeyClient, readPages } from './api-key-client.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { ORG_OPTION_HELP, type OrganizationOption, organizationOf } from './organization-option.js';
import { URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

interface AuditOptions extends OrganizationOption {
  url?: string;
  action?: string;
  actor?: string;
  limit: number;
  json?: boolean;
}

type AuditEvent = Awaited<ReturnType<typeof readEvents>>['items'][number];

const MAX_EVENTS = 10_000;

function limitOption(value: string) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_EVENTS)
    throw new InvalidArgumentError(`must be an integer from 1 to ${MAX_EVENTS}`);
  return n;
}

const actorOf = (event: AuditEvent) =>
  [event.actor.kind, event.actor.userId, event.actor.apiKeyId && `key ${event.actor.apiKeyId}`]
    .filter(Boolean)
    .join(' ');

/**
 * `cadre audit [--org acme]`: the organization's audit events, newest first (GET
 * /api/v1/organizations/{org}/audit-events, owners and admins; docs/organization-api.md), with the caller's
 * API key (CADRE_API_KEY). Follows the cursor pages until `--limit` events are printed.
 */
export function registerAuditCommand(program: Command, io: CliIo): void {
  program
    .command('audit')
    .description("An organization's audit events, newest first (needs audit:read: owners and admins)")
    .option('--org <org>', ORG_OPTION_HELP)
    .option('--action <action>', 'only events of this action, e.g. connection.deleted')
    .option('--actor <id>', 'only events by this user id, or through this API key id')
    .option('--limit <n>', 'how many events at most', limitOption, 20)
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the events as a JSON array, for scripts')
    .action(async (options: AuditOptions) => {
      const { items: events, more } = await readEvents(apiKeyClient(io, options, 'audit:read'), options);
      if (options.json) return printJson(io, events);
      const rows = events.map((event) => [
        event.createdAt,
        event.action,
        `${event.target.type}:${event.target.id}`,
        actorOf(event),
      ]);
      printLine(io.stdout, formatTable(['TIME', 'ACTION', 'TARGET', 'ACTOR'], rows));
      const hint = more ? ' (more: raise --limit)' : '';
      printLine(io.stderr, paintFor(io).dim(`${rows.length} event${rows.length === 1 ? '' : 's'}${hint}`));
    });
}

async function readEvents(client: CadreApi, options: AuditOptions) {
  const organization = await organizationOf(client, options);
  const filters = {
    ...(options.action ? { action: options.action } : {}),
    ...(options.actor ? { actor: options.actor } : {}),
  };
  return readPages(
    (page) =>
      bodyOf(
        client.GET('/api/v1/organizations/{org}/audit-events', {
          params: { path: { org: organization }, query: { ...filters, ...page } },
        }),
      ),
    options.limit,
  );
}
