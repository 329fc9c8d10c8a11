import { type Command, InvalidArgumentError } from 'commander';
import type { components, paths } from '../api-schema.js';
import { EVENT_TYPES } from '../modules/events/event-types.js';
import { closestMatch } from '../shared/config-file/suggest.js';
import { bodyOf, dataOf } from './admin-client.js';
import { apiKeyClient, readPages } from './api-key-client.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

interface Options {
  url?: string;
  json?: boolean;
}
interface EndpointOptions extends Options {
  endpointUrl?: string;
  events?: string;
  description?: string;
  disabled?: boolean;
}
const NEEDS = 'webhooks:manage (an owner or admin)';
type Endpoint = components['schemas']['WebhookEndpoint'];
type EventType = Endpoint['eventTypes'][number];
type Delivery = components['schemas']['WebhookDelivery'];
type DeliveryStatus = Delivery['status'];
const STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const MAX_DELIVERIES = 10_000;
type UpdateBody = NonNullable<
  paths['/api/v1/webhook-endpoints/{webhookEndpointId}']['patch']['requestBody']
>['content']['application/json'];

/**
 * `--events a,b`: checked here against the documented types so a typo names its closest type at once (the
 * API refuses it with 422 anyway).
 */
export function eventTypesOption(value: string): EventType[] {
  const types = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (types.length === 0) throw new CliError('--events needs at least one event type', EXIT_USER);
  for (const type of types) {
    if ((EVENT_TYPES as readonly string[]).includes(type)) continue;
    const near = closestMatch(type, EVENT_TYPES);
    throw new CliError(
      `unknown event type ${JSON.stringify(type)}${near ? ` (did you mean ${near}?)` : ''}`,
      EXIT_USER,
      `event types: ${EVENT_TYPES.join(', ')}`,
    );
  }
  return types as EventType[];
}

const statusOf = (endpoint: Endpoint) =>
  endpoint.enabled ? 'enabled' : endpoint.disabledReason ? 'disabled by Cadre' : 'disabled';

/** The secret alone on stdout (so a script can capture it), and on stderr that it will not be shown again. */
function printSecret(io: CliIo, secret: string, what: string): void {
  printLine(io.stdout, secret);
  printLine(
    io.stderr,
    paintFor(io).yellow(`${what}; this signing secret is shown only this once: keep it (a secrets manager)`),
  );
}

/** A delivery's latest attempt in a few words: `HTTP 500 (120 ms)`, `timeout (10000 ms)`, or `-`. */
function lastAttempt(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return '-';
  const answer = last.statusCode === null ? (last.error ?? 'no answer') : `HTTP ${last.statusCode}`;
  return `${answer} (${last.latencyMs} ms)`;
}

function deliveryStatusOption(value: string): DeliveryStatus {
  if ((STATUSES as readonly string[]).includes(value)) return value as DeliveryStatus;
  throw new InvalidArgumentError(`must be one of ${STATUSES.join(', ')}`);
}

function limitOption(value: string) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_DELIVERIES)
    throw new InvalidArgumentError(`must be an integer from 1 to ${MAX_DELIVERIES}`);
  return n;
}

const common = (command: Command, json: string) =>
  command.option('--url <url>', URL_OPTION_HELP).option('--json', json);

/**
 * The organization's webhook endpoints with the caller's own API key (CADRE_API_KEY; docs/webhooks.md):
 * owners and admins (`webhooks:manage`). A signing secret is printed once, when it is made (create,
 * rotate-secret), never by list. Exit codes: 0, 1 for a refused request (4xx) or bad input, 2 when the server
 * cannot be reached or fails.
 */
export function registerWebhooksCommands(program: Command, io: CliIo): void {
  const webhooks = program
    .command('webhooks')
    .description("Your organization's webhook endpoints: where Cadre sends its events");

  common(
    webhooks.command('list').description('The endpoints, oldest first, with their status and event types'),
    'print the endpoints as a JSON array',
  ).action(async (options: Options) => {
    const client = apiKeyClient(io, options, NEEDS);
    const list = await dataOf(client.GET('/api/v1/webhook-endpoints'));
    if (options.json) return printJson(io, list);
    const rows = list.map((e) => [e.id, statusOf(e), e.url, e.eventTypes.join(','), e.description || '-']);
    printLine(io.stdout, formatTable(['ID', 'STATUS', 'URL', 'EVENTS', 'DESCRIPTION'], rows));
    for (const e of list.filter((e) => e.disabledReason)) {
      printLine(io.stderr, paintFor(io).yellow(`${e.id} was disabled by Cadre: ${e.disabledReason}`));
    }
    printLine(io.stderr, paintFor(io).dim(`${list.length} endpoint${list.length === 1 ? '' : 's'}`));
  });

  common(
    webhooks
      .command('create <endpoint-url>')
      .description('Add an endpoint (an https URL); prints its signing secret, shown only this once')
      .requiredOption('--events <types>', 'comma-separated event types, e.g. expert.published,member.joined')
      .option('--description <text>', 'what it is for (shown in the console)')
      .option('--disabled', 'create it disabled (nothing is sent until it is enabled)'),
    'print the endpoint and its secret as JSON',
  ).action(async (endpointUrl: string, options: EndpointOptions) => {
    const eventTypes = eventTypesOption(options.events ?? '');
    const client = apiKeyClient(io, options, NEEDS);
    const created = await dataOf(
      client.POST('/api/v1/webhook-endpoints', {
        body: {
          url: endpointUrl,
          eventTypes,
          ...(options.description === undefined ? {} : { description: options.description }),
          ...(options.disabled ? { enabled: false } : {}),
        },
      }),
    );
    if (options.json) return printJson(io, created);
    const { endpoint } = created;
    const count = endpoint.eventTypes.length;
    printSecret(
      io,
      created.secret,
      `created ${endpoint.id} for ${endpoint.url} (${count} event type${count === 1 ? '' : 's'}, ${statusOf(endpoint)})`,
    );
  });

  const patch = async (
    id: string,
    body: UpdateBody,
    options: Options,
    words: (endpoint: Endpoint) => string,
  ) => {
    const client = apiKeyClient(io, options, NEEDS);
    const endpoint = await dataOf(
      client.PATCH('/api/v1/webhook-endpoints/{webhookEndpointId}', {
        params: { path: { webhookEndpointId: id } },
        body,
      }),
    );
    if (options.json) return printJson(io, endpoint);
    printLine(io.stdout, words(endpoint));
  };

  common(
    webhooks
      .command('update <id>')
      .description("Change an endpoint's URL, event types or description")
      .option('--endpoint-url <url>', 'the new URL (https)')
      .option('--events <types>', 'the new comma-separated event types (replaces the list)')
      .option('--description <text>', 'the new description'),
    'print the endpoint as JSON',
  ).action(async (id: string, options: EndpointOptions) => {
    const body = {
      ...(options.endpointUrl === undefined ? {} : { url: options.endpointUrl }),
      ...(options.events === undefined ? {} : { eventTypes: eventTypesOption(options.events) }),
      ...(options.description === undefined ? {} : { description: options.description }),
    };
    if (Object.keys(body).length === 0) {
      throw new CliError('nothing to change: give --endpoint-url, --events or --description', EXIT_USER);
    }
    await patch(id, body, options, (e) => `updated ${e.id}: ${e.url} (${e.eventTypes.join(', ')})`);
  });

  common(
    webhooks
      .command('enable <id>')
      .description('Start sending events to it again (clears why Cadre disabled it)'),
    'print the endpoint as JSON',
  ).action((id: string, options: Options) =>
    patch(id, { enabled: true }, options, (e) => `${e.id} is enabled`),
  );

  common(
    webhooks.command('disable <id>').description('Stop sending events to it (it keeps its settings)'),
    'print the endpoint as JSON',
  ).action((id: string, options: Options) =>
    patch(id, { enabled: false }, options, (e) => `${e.id} is disabled`),
  );

  common(
    webhooks.command('delete <id>').description('Delete an endpoint: nothing more is sent to it'),
    'print the deleted endpoint as JSON',
  ).action(async (id: string, options: Options) => {
    const client = apiKeyClient(io, options, NEEDS);
    const endpoint = await dataOf(
      client.DELETE('/api/v1/webhook-endpoints/{webhookEndpointId}', {
        params: { path: { webhookEndpointId: id } },
      }),
    );
    if (options.json) return printJson(io, endpoint);
    printLine(io.stdout, `deleted ${endpoint.id} (${endpoint.url})`);
  });

  common(
    webhooks
      .command('rotate-secret <id>')
      .description('A new signing secret, shown once; the previous one keeps signing for 24 hours'),
    'print the endpoint and its new secret as JSON',
  ).action(async (id: string, options: Options) => {
    const client = apiKeyClient(io, options, NEEDS);
    const rotated = await dataOf(
      client.POST('/api/v1/webhook-endpoints/{webhookEndpointId}/rotate-secret', {
        params: { path: { webhookEndpointId: id } },
      }),
    );
    if (options.json) return printJson(io, rotated);
    const until = rotated.endpoint.secretRotation?.previousSecretExpiresAt;
    printSecret(
      io,
      rotated.secret,
      `new secret for ${rotated.endpoint.id}${until ? `; the previous one keeps signing alongside it until ${until}` : ''}`,
    );
  });

  common(
    webhooks
      .command('deliveries <id>')
      .description("An endpoint's delivery log, newest first: each delivery's status and latest attempt")
      .option('--status <status>', 'only pending, succeeded or failed deliveries', deliveryStatusOption)
      .option('--limit <n>', 'how many deliveries at most', limitOption, 20),
    "print the deliveries as a JSON array, with every attempt and the answers' first bytes",
  ).action(async (id: string, options: Options & { status?: DeliveryStatus; limit: number }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const { items, more } = await readPages(
      (page) =>
        bodyOf(
          client.GET('/api/v1/webhook-endpoints/{webhookEndpointId}/deliveries', {
            params: {
              path: { webhookEndpointId: id },
              query: { ...page, ...(options.status ? { status: options.status } : {}) },
            },
          }),
        ),
      options.limit,
    );
    if (options.json) return printJson(io, items);
    const rows = items.map((d) => [
      d.createdAt,
      d.eventType,
      d.status,
      String(d.attempts.length),
      lastAttempt(d),
      d.status === 'pending' && d.nextAttemptAt ? d.nextAttemptAt : '-',
      d.eventId,
    ]);
    printLine(
      io.stdout,
      formatTable(['TIME', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ATTEMPT', 'NEXT TRY', 'EVENT ID'], rows),
    );
    const hint = more ? ' (more: raise --limit)' : '';
    printLine(io.stderr, paintFor(io).dim(`${rows.length} deliver${rows.length === 1 ? 'y' : 'ies'}${hint}`));
  });

  const queued = (delivery: Delivery, words: string) =>
    `${words}: delivery ${delivery.id} (the webhook-id header), event ${delivery.eventId}, ${delivery.status}`;

  common(
    webhooks
      .command('test <id>')
      .description('Send a webhook.test event to this endpoint only (it must be enabled)'),
    'print the queued delivery as JSON',
  ).action(async (id: string, options: Options) => {
    const client = apiKeyClient(io, options, NEEDS);
    const delivery = await dataOf(
      client.POST('/api/v1/webhook-endpoints/{webhookEndpointId}/test', {
        params: { path: { webhookEndpointId: id } },
      }),
    );
    if (options.json) return printJson(io, delivery);
    printLine(io.stdout, queued(delivery, 'test event queued'));
    printLine(io.stderr, paintFor(io).dim(`follow it with: cadre webhooks deliveries ${id}`));
  });

  common(
    webhooks
      .command('resend <id> <eventId>')
      .description(
        "Send one of the organization's events to this endpoint again (the same webhook-id as before)",
      ),
    'print the queued delivery as JSON',
  ).action(async (id: string, eventId: string, options: Options) => {
    const client = apiKeyClient(io, options, NEEDS);
    const delivery = await dataOf(
      client.POST('/api/v1/webhook-endpoints/{webhookEndpointId}/resend', {
        params: { path: { webhookEndpointId: id } },
        body: { eventId },
      }),
    );
    if (options.json) return printJson(io, delivery);
    printLine(io.stdout, queued(delivery, `${delivery.eventType} queued again`));
    printLine(io.stderr, paintFor(io).dim(`follow it with: cadre webhooks deliveries ${id}`));
  });
}
