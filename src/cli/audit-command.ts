import { type Command, InvalidArgumentError } from 'commander';
import { createAdminClient } from './admin-client.js';
import { CliError } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { resolveServiceUrl, URL_OPTION_HELP, unreachableHint } from './service-url.js';
import { formatTable } from './table.js';

interface AuditOptions {
  url?: string;
  action?: string;
  actor?: string;
  limit: number;
  json?: boolean;
}

interface AuditEvent {
  id: string;
  action: string;
  actor: { kind: string; userId: string | null; apiKeyId: string | null };
  target: { type: string; id: string };
  metadata: Record<string, unknown> | null;
  createdAt: string;
}

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
 * `cadre audit <org>`: the organization's audit events, newest first (GET
 * /api/v1/organizations/{org}/audit-events, owners and admins; docs/organization-api.md), with the caller's
 * API key (CADRE_API_KEY). Follows the cursor pages until `--limit` events are printed.
 */
export function registerAuditCommand(program: Command, io: CliIo): void {
  program
    .command('audit')
    .description("An organization's audit events, newest first (needs audit:read: owners and admins)")
    .argument('<org>', 'organization id or slug')
    .option('--action <action>', 'only events of this action, e.g. connection.deleted')
    .option('--actor <id>', 'only events by this user id, or through this API key id')
    .option('--limit <n>', 'how many events at most', limitOption, 20)
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the events as a JSON array, for scripts')
    .action(async (org: string, options: AuditOptions) => {
      const apiKey = io.env.CADRE_API_KEY;
      if (!apiKey) {
        throw new CliError('this command needs an API key', 1, 'set CADRE_API_KEY to a key with audit:read');
      }
      const { url, source } = resolveServiceUrl(io, { url: options.url });
      const client = createAdminClient({
        baseUrl: url,
        token: apiKey,
        unreachableHint: unreachableHint(source),
        unauthorizedHint: 'check CADRE_API_KEY: unknown, revoked or expired keys are refused',
      });
      const events: AuditEvent[] = [];
      let cursor: string | null | undefined;
      do {
        const query = new URLSearchParams({ limit: String(Math.min(100, options.limit - events.length)) });
        if (options.action) query.set('action', options.action);
        if (options.actor) query.set('actor', options.actor);
        if (cursor) query.set('cursor', cursor);
        const page = await client.page<AuditEvent[]>(
          'GET',
          `/api/v1/organizations/${encodeURIComponent(org)}/audit-events?${query}`,
        );
        events.push(...page.data);
        cursor = page.pagination?.nextCursor;
      } while (cursor && events.length < options.limit);

      if (options.json) return printJson(io, events);
      const rows = events.map((event) => [
        event.createdAt,
        event.action,
        `${event.target.type}:${event.target.id}`,
        actorOf(event),
      ]);
      printLine(io.stdout, formatTable(['TIME', 'ACTION', 'TARGET', 'ACTOR'], rows));
      const more = cursor ? ' (more: raise --limit)' : '';
      printLine(io.stderr, paintFor(io).dim(`${rows.length} event${rows.length === 1 ? '' : 's'}${more}`));
    });
}
