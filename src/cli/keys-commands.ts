import type { Command } from 'commander';
import type { components } from '../api-schema.js';
import type { Permission } from '../modules/auth/grants.js';
import { levelPermissions, PERMISSION_AREAS } from '../modules/auth/permission-areas.js';
import { bodyOf, dataOf } from './admin-client.js';
import { apiKeyClient } from './api-key-client.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

type Grant = components['schemas']['Grant'];
type ApiKey = components['schemas']['ApiKey'];
type CreateBody = components['schemas']['CreateApiKeyRequestInput'];

interface Common {
  url?: string;
  json?: boolean;
}
interface CreateOptions extends Common {
  name?: string;
  access: string[];
  permission: string[];
  project: string[];
  environment: string[];
  agent: string[];
  expires: string;
}
const DAY_S = 86_400;
const LIST_LIMIT = 10_000;
const collect = (value: string, previous: string[]) => [...previous, value];

/** `--access area=level` (the console's areas and levels) and `--permission name`, as one list. */
function permissionsOf(options: Pick<CreateOptions, 'access' | 'permission'>): string[] {
  const fromAccess = options.access.flatMap((entry) => {
    const [areaId, levelId] = entry.split('=');
    const area = PERMISSION_AREAS.find((a) => a.id === areaId);
    if (!area) {
      throw new CliError(
        `--access ${entry}: unknown area`,
        EXIT_USER,
        `areas: ${PERMISSION_AREAS.map((a) => a.id).join(', ')}`,
      );
    }
    const permissions = levelPermissions(area, levelId ?? '');
    if (permissions.length === 0) {
      throw new CliError(
        `--access ${entry}: unknown level`,
        EXIT_USER,
        `levels of ${area.id}: ${area.levels.map((l) => l.id).join(', ')}`,
      );
    }
    return permissions;
  });
  return [...new Set([...fromAccess, ...options.permission])];
}

/** The grant the options describe: everything the role allows unless areas or permissions are named. */
function grantOf(options: CreateOptions): Grant {
  const listed = permissionsOf(options);
  const targets = [
    ['project', options.project],
    ['environment', options.environment],
    ['agent', options.agent],
  ].filter(([, ids]) => ids!.length > 0) as Array<['project' | 'environment' | 'agent', string[]]>;
  if (targets.length > 1) {
    throw new CliError('a key reaches one kind of target: --project, --environment or --agent', EXIT_USER);
  }
  const [target] = targets;
  if (!target) return { type: 'organization', permissions: listed.length ? (listed as Permission[]) : ['*'] };
  const [type, ids] = target;
  if (listed.length === 0) {
    throw new CliError(
      `a --${type} key needs its permissions`,
      EXIT_USER,
      'e.g. --access projects=operate --access agents=run',
    );
  }
  // The server refuses (422) a permission the variant does not carry, naming the ones it does.
  const permissions = listed as Array<'projects:operate' | 'projects:read' | 'projects:write' | 'agents:run'>;
  if (type === 'project') return { type, projectIds: ids, permissions };
  if (type === 'environment') return { type, environmentIds: ids, permissions };
  return { type, agentIds: ids, permissions: permissions as ['agents:run'] };
}

type KeysClient = ReturnType<typeof apiKeyClient>;

/**
 * The ids a grant names, from what people type (docs/api-keys.md, "cadre keys"): `--project web` by slug or id
 * (the API resolves a slug in the path), `--environment web/staging` as project and environment name, or an
 * environment's id. Another organization's project answers 404, as an unknown one does.
 */
async function resolveTargets(client: KeysClient, options: CreateOptions): Promise<CreateOptions> {
  const projectOf = (projectId: string) =>
    dataOf(client.GET('/api/v1/projects/{projectId}', { params: { path: { projectId } } }));
  const project = await Promise.all(options.project.map(async (ref) => (await projectOf(ref)).id));
  const environment = await Promise.all(
    options.environment.map(async (ref) => {
      const slash = ref.indexOf('/');
      if (slash < 0) return ref;
      const [projectRef, name] = [ref.slice(0, slash), ref.slice(slash + 1)];
      const found = (await projectOf(projectRef)).environments.find((e) => e.name === name);
      if (!found) {
        throw new CliError(
          `--environment ${ref}: project ${projectRef} has no environment ${name}`,
          EXIT_USER,
        );
      }
      return found.id;
    }),
  );
  return { ...options, project, environment };
}

/** `--expires 90d | never | 2027-01-31`: the create body's expiry. */
function expiryOf(value: string): Pick<CreateBody, 'expiresIn' | 'expiresAt'> {
  if (value === 'never') return {};
  const days = /^(\d+)d$/.exec(value);
  if (days) return { expiresIn: Number(days[1]) * DAY_S };
  const date = new Date(value);
  if (!Number.isNaN(date.getTime())) return { expiresAt: date.toISOString() };
  throw new CliError(
    `--expires ${value}: not a duration or date`,
    EXIT_USER,
    'e.g. 30d, never or 2027-01-31',
  );
}

function grantWords(grant: Grant): string {
  const listed: string[] = grant.permissions;
  const what = listed.includes('*') ? 'everything the role allows' : listed.join(',');
  switch (grant.type) {
    case 'organization':
      return what;
    case 'project':
      return `projects ${grant.projectIds.join(',')}: ${what}`;
    case 'environment':
      return `environments ${grant.environmentIds.join(',')}: ${what}`;
    case 'agent':
      return `agents ${grant.agentIds.join(',')}: ${what}`;
  }
}

const stateOf = (key: ApiKey, now: number) =>
  key.revokedAt ? 'revoked' : key.expiresAt && Date.parse(key.expiresAt) <= now ? 'expired' : 'active';

/** Prints a new key: the secret alone on stdout (to pipe it), what it is on stderr. */
function printCreated(io: CliIo, options: Common, created: ApiKey & { key: string }, verb: string) {
  if (options.json) return printJson(io, created);
  printLine(io.stdout, created.key);
  printLine(
    io.stderr,
    paintFor(io).dim(
      `${verb} ${created.id}${created.name ? ` (${created.name})` : ''}: ${grantWords(created.grants)}; ` +
        `expires ${created.expiresAt ?? 'never'}. The secret is shown only this once.`,
    ),
  );
}

/**
 * `cadre keys create|list|revoke|roll`: the caller's API keys, with the caller's own key (docs/api-keys.md).
 * A new key follows the caller's role unless areas (`--access projects=write`) or permissions are named; it
 * never exceeds the role (403). Exit codes: 0, 1 for a refused request or bad input, 2 when the server
 * cannot be reached or fails.
 */
export function registerKeysCommands(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('Your API keys');
  const needs = (permission: string) => `${permission} (any role; members manage their own keys)`;

  keys
    .command('create')
    .description('Create an API key; prints its secret (shown once)')
    .option('--name <name>', 'what the key is for')
    .option('--access <area=level>', `an area and level, repeatable (${areaHelp()})`, collect, [])
    .option('--permission <permission>', 'a single permission, repeatable', collect, [])
    .option('--project <project>', 'reach only this project (its slug or id), repeatable', collect, [])
    .option(
      '--environment <environment>',
      'reach only this environment (project/name, e.g. web/staging, or its id), repeatable',
      collect,
      [],
    )
    .option('--agent <agentId>', 'reach only this agent, repeatable', collect, [])
    .option('--expires <when>', 'a duration in days (30d), a date, or never', '90d')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the new key (with its secret) as JSON')
    .action(async (options: CreateOptions) => {
      grantOf(options); // refuse a malformed grant before any request
      const client = apiKeyClient(io, options, needs('api-keys:create'));
      const body: CreateBody = {
        ...(options.name ? { name: options.name } : {}),
        grants: grantOf(await resolveTargets(client, options)),
        ...expiryOf(options.expires),
      };
      printCreated(io, options, await dataOf(client.POST('/api/v1/api-keys', { body })), 'created');
    });

  keys
    .command('list')
    .description('Your keys (owners and admins: every key of the organization)')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the keys as a JSON array')
    .action(async (options: Common) => {
      const client = apiKeyClient(io, options, needs('api-keys:read'));
      const items: ApiKey[] = [];
      let cursor: string | null = null;
      do {
        const query: { limit: number; cursor?: string } = { limit: 100, ...(cursor ? { cursor } : {}) };
        const page = await bodyOf(client.GET('/api/v1/api-keys', { params: { query } }));
        items.push(...page.apiKeys);
        cursor = page.pagination.nextCursor;
      } while (cursor && items.length < LIST_LIMIT);
      if (options.json) return printJson(io, items);
      const now = Date.now();
      const rows = items.map((k) => [
        k.id,
        k.name ?? '-',
        k.start,
        stateOf(k, now),
        k.expiresAt ?? 'never',
        k.lastUsedAt ?? 'never',
        grantWords(k.grants),
      ]);
      printLine(
        io.stdout,
        formatTable(['ID', 'NAME', 'START', 'STATE', 'EXPIRES', 'LAST USED', 'GRANTS'], rows),
      );
    });

  keys
    .command('revoke <apiKeyId>')
    .description('Revoke a key: refused everywhere from the moment this answers')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the revoked key as JSON')
    .action(async (apiKeyId: string, options: Common) => {
      const client = apiKeyClient(io, options, needs('api-keys:revoke'));
      const revoked = await dataOf(
        client.DELETE('/api/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId } } }),
      );
      if (options.json) return printJson(io, revoked);
      printLine(io.stdout, `revoked ${revoked.id}${revoked.name ? ` (${revoked.name})` : ''}`);
    });

  keys
    .command('roll <apiKeyId>')
    .description('Replace a key: a new one with the same name and grants, then the old one revoked')
    .option('--expires <when>', 'a duration (30d), a date, or never (default: as long as the old key lasted)')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the new key (with its secret) as JSON')
    .action(async (apiKeyId: string, options: Common & { expires?: string }) => {
      const client = apiKeyClient(io, options, needs('api-keys:create and api-keys:revoke'));
      const old = await dataOf(client.GET('/api/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId } } }));
      if (old.revokedAt)
        throw new CliError(`${old.id} is already revoked: create a new key instead`, EXIT_USER);
      // The same lifetime as the old key, counted from now, so a rolled 90-day key lasts 90 days again.
      const lifetime =
        old.expiresAt === null
          ? undefined
          : Math.max(60, Math.round((Date.parse(old.expiresAt) - Date.parse(old.createdAt)) / 1000));
      const created = await dataOf(
        client.POST('/api/v1/api-keys', {
          body: {
            ...(old.name ? { name: old.name } : {}),
            grants: old.grants,
            ...(options.expires ? expiryOf(options.expires) : lifetime ? { expiresIn: lifetime } : {}),
          },
        }),
      );
      // The new secret is out before the old key goes: if the revoke fails, nothing is lost but a retry.
      printCreated(io, options, created, `rolled ${old.id} into`);
      await dataOf(client.DELETE('/api/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId } } }));
      if (!options.json) printLine(io.stderr, paintFor(io).dim(`revoked ${old.id}`));
    });
}

function areaHelp(): string {
  return PERMISSION_AREAS.map((area) => `${area.id}=${area.levels.map((l) => l.id).join('|')}`).join(', ');
}
