import { type Command, InvalidArgumentError } from 'commander';
import { bodyOf } from './admin-client.js';
import { apiKeyClient, readPages } from './api-key-client.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';
import { eventTypesOption } from './webhooks-commands.js';

interface EventsOptions {
  url?: string;
  type?: string;
  order: 'newest' | 'oldest';
  limit: number;
  json?: boolean;
}

const MAX_EVENTS = 10_000;

function limitOption(value: string) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_EVENTS)
    throw new InvalidArgumentError(`must be an integer from 1 to ${MAX_EVENTS}`);
  return n;
}

function orderOption(value: string) {
  if (value !== 'newest' && value !== 'oldest') throw new InvalidArgumentError('must be newest or oldest');
  return value;
}

/**
 * `cadre events list`: the organization's events (GET /api/v1/events, owners and admins: `events:read`;
 * docs/webhooks.md), the same ones webhooks deliver, for scripts that pull instead of receiving. Follows the
 * cursor pages until `--limit` events are printed.
 */
export function registerEventsCommand(program: Command, io: CliIo): void {
  const events = program
    .command('events')
    .description("Your organization's events: every change Cadre tells webhooks about");

  events
    .command('list')
    .description('The events, newest first (needs events:read: owners and admins)')
    .option('--type <types>', 'only these types, comma-separated, e.g. expert.published,member.joined')
    .option('--order <order>', 'newest or oldest first', orderOption, 'newest')
    .option('--limit <n>', 'how many events at most', limitOption, 20)
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the events as a JSON array (with their payloads), for scripts')
    .action(async (options: EventsOptions) => {
      const type = options.type === undefined ? undefined : eventTypesOption(options.type).join(',');
      const client = apiKeyClient(io, options, 'events:read (an owner or admin)');
      const { items, more } = await readPages(
        (page) =>
          bodyOf(
            client.GET('/api/v1/events', {
              params: { query: { ...page, order: options.order, ...(type ? { type } : {}) } },
            }),
          ),
        options.limit,
      );
      if (options.json) return printJson(io, items);
      const rows = items.map((event) => [
        event.createdAt,
        event.type,
        `${event.resource.type}:${event.resource.id}`,
        [event.actor.kind, event.actor.userId, event.actor.apiKeyId && `key ${event.actor.apiKeyId}`]
          .filter(Boolean)
          .join(' '),
        event.id,
      ]);
      printLine(io.stdout, formatTable(['TIME', 'TYPE', 'RESOURCE', 'ACTOR', 'ID'], rows));
      const hint = more ? ' (more: raise --limit)' : '';
      printLine(io.stderr, paintFor(io).dim(`${rows.length} event${rows.length === 1 ? '' : 's'}${hint}`));
    });
}
