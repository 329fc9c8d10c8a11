import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { createAdminClient, dataOf } from './admin-client.js';
import type { CadreApi, RequestBody } from './api.js';
import { CliError } from './errors.js';
import { type CliIo, printJson, printLine } from './io.js';
import { resolveServiceUrl, URL_OPTION_HELP, unreachableHint } from './service-url.js';

// Values from the command line where the API wants its own types (enums, grants) are cast, not checked:
// the server validates them and its 400 is printed.
type Role = RequestBody<'/admin/v1/organizations/{org}/members', 'post'>['role'];

interface AdminOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** `cadre admin …`: the operator's commands, each one call to the admin API (docs/admin-api.md). */
export function registerAdminCommands(program: Command, io: CliIo): void {
  const admin = program
    .command('admin')
    .description(
      'Operate a Cadre server: organizations, members, projects, environments, agents, API keys, Experts',
    )
    .option('--url <url>', URL_OPTION_HELP)
    .option('--token <token>', 'admin token (env CADRE_ADMIN_TOKEN)')
    .option('--json', 'print the answer as JSON, for scripts');

  const run =
    <T>(
      action: (api: CadreApi, ...args: string[]) => Promise<T>,
      human: (data: T) => string[],
      timeoutMs?: number,
    ) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const options = command.optsWithGlobals<AdminOptions>();
      const token = options.token ?? io.env.CADRE_ADMIN_TOKEN;
      if (!token) throw new CliError('an admin token is needed', 1, 'pass --token or set CADRE_ADMIN_TOKEN');
      const { url, source } = resolveServiceUrl(io, { url: options.url });
      const api = createAdminClient({
        baseUrl: url,
        token,
        unreachableHint: unreachableHint(source),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      const positional = args.slice(0, -2).filter((value): value is string => typeof value === 'string');
      const data = await action(api, ...positional);
      if (options.json) printJson(io, data);
      else for (const line of human(data)) printLine(io.stdout, line);
    };
  const opts = (command: Command) => command.opts() as Record<string, string>;

  const org = admin.command('org').description('Organizations');
  const createOrg = org
    .command('create')
    .description('Create an organization with its owner; prints the owner API key (shown once)')
    .requiredOption('--slug <slug>', 'organization slug (the scope of team Expert names)')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--type <accountType>', 'personal, personalPlus or team')
    .requiredOption('--owner-email <email>', "owner's email")
    .option('--owner-name <name>', "owner's name")
    .option(
      '--reset-unverified-account',
      'end the password, sessions and API keys of an account that never proved the email, and use it',
    );
  createOrg.action(
    run(
      (api) => {
        const o = opts(createOrg);
        return dataOf(
          api.POST('/admin/v1/organizations', {
            body: {
              slug: o.slug!,
              name: o.name!,
              accountType: o.type as RequestBody<'/admin/v1/organizations', 'post'>['accountType'],
              owner: {
                email: o.ownerEmail!,
                ...(o.ownerName ? { name: o.ownerName } : {}),
                ...(o.resetUnverifiedAccount ? { unverifiedAccount: 'reset' as const } : {}),
              },
            },
          }),
        );
      },
      ({ organization, owner, apiKey }) => [
        `organization ${organization.slug} (${organization.id}, ${organization.accountType})`,
        `owner        ${owner.email} (${owner.id})`,
        `owner key    ${apiKey.key}`,
        'Store the key now: it is not shown again.',
      ],
    ),
  );

  const member = admin.command('member').description('Memberships');
  const addMember = member
    .command('add <org>')
    .description('Add a member (creates the user when the email is new)')
    .requiredOption('--email <email>', 'email')
    .requiredOption('--role <role>', 'admin or member')
    .option('--name <name>', 'name')
    .option(
      '--reset-unverified-account',
      'end the password, sessions and API keys of an account that never proved the email, and use it',
    );
  addMember.action(
    run(
      (api, org) => {
        const o = opts(addMember);
        return dataOf(
          api.POST('/admin/v1/organizations/{org}/members', {
            params: { path: { org: org! } },
            body: {
              email: o.email!,
              role: o.role as Role,
              ...(o.name ? { name: o.name } : {}),
              ...(o.resetUnverifiedAccount ? { unverifiedAccount: 'reset' as const } : {}),
            },
          }),
        );
      },
      ({ user, membership }) => [`member ${user.email} (${user.id}) as ${membership.role}`],
    ),
  );
  const setRole = member
    .command('role <org> <userId>')
    .description("Change a member's role (its API keys follow at once)")
    .requiredOption('--role <role>', 'admin or member');
  setRole.action(
    run(
      (api, org, userId) =>
        dataOf(
          api.PUT('/admin/v1/organizations/{org}/members/{userId}', {
            params: { path: { org: org!, userId: userId! } },
            body: { role: opts(setRole).role as Role },
          }),
        ),
      (d) => [`${d.userId} is now ${d.role}`],
    ),
  );

  const limits = org
    .command('limits <org>')
    .description(
      'Show the organization\'s limits, or override its plan\'s (a number, or "plan" to return to it)',
    )
    .option('--api-requests <n>', 'API requests per period')
    .option('--expert-versions <n>', 'Expert versions published per period')
    .option('--api-keys <n>', 'active API keys')
    .option('--connections <n>', 'OAuth connections');
  limits.action(
    run(
      (api, org) => {
        const o = opts(limits);
        const given = Object.entries({
          apiRequests: o.apiRequests,
          expertVersions: o.expertVersions,
          apiKeys: o.apiKeys,
          connections: o.connections,
        }).filter(([, value]) => value !== undefined);
        for (const [key, value] of given) {
          if (value !== 'plan' && !/^\d+$/.test(value!)) {
            throw new CliError(
              `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} takes a whole number or "plan"`,
            );
          }
        }
        const params = { path: { org: org! } };
        if (given.length === 0) return dataOf(api.GET('/admin/v1/organizations/{org}/limits', { params }));
        const body = Object.fromEntries(
          given.map(([key, value]) => [key, value === 'plan' ? null : Number(value)]),
        );
        return dataOf(api.PUT('/admin/v1/organizations/{org}/limits', { params, body }));
      },
      (d) => {
        const overridden = new Set<string>(d.overridden);
        return Object.entries(d.limits).map(
          ([key, value]) =>
            `${key.padEnd(15)} ${value ?? 'no limit'}${overridden.has(key) ? '  (override)' : `  (plan ${d.planKey})`}`,
        );
      },
    ),
  );

  org
    .command('transfer-ownership <org> <userId>')
    .description('Make a member the owner; the previous owner becomes an admin')
    .action(
      run(
        (api, org, userId) =>
          dataOf(
            api.POST('/admin/v1/organizations/{org}/ownership-transfer', {
              params: { path: { org: org! } },
              body: { userId: userId! },
            }),
          ),
        ({ owner, previousOwner }) => [
          `${owner.userId} is now the owner; ${previousOwner.userId} is now ${previousOwner.role}`,
        ],
      ),
    );

  const project = admin.command('project').description('Projects');
  const createProject = project
    .command('create <org>')
    .description('Create a project with production and development environments')
    .requiredOption('--slug <slug>', 'project slug')
    .requiredOption('--name <name>', 'display name');
  createProject.action(
    run(
      (api, org) =>
        dataOf(
          api.POST('/admin/v1/organizations/{org}/projects', {
            params: { path: { org: org! } },
            body: { slug: opts(createProject).slug!, name: opts(createProject).name! },
          }),
        ),
      ({ project, environments }) => [
        `project ${project.slug} (${project.id})`,
        ...environments.map((e) => `  environment ${e.name} (${e.id})`),
      ],
    ),
  );

  const env = admin.command('env').description('Environments');
  const createEnv = env
    .command('create <projectId>')
    .description('Add an environment')
    .requiredOption('--name <name>', 'name');
  createEnv.action(
    run(
      (api, projectId) =>
        dataOf(
          api.POST('/admin/v1/projects/{projectId}/environments', {
            params: { path: { projectId: projectId! } },
            body: { name: opts(createEnv).name! },
          }),
        ),
      ({ environment }) => [`environment ${environment.name} (${environment.id})`],
    ),
  );

  const agent = admin.command('agent').description('Agents');
  const createAgent = agent
    .command('create <projectId>')
    .description('Add an agent')
    .requiredOption('--name <name>', 'name');
  createAgent.action(
    run(
      (api, projectId) =>
        dataOf(
          api.POST('/admin/v1/projects/{projectId}/agents', {
            params: { path: { projectId: projectId! } },
            body: { name: opts(createAgent).name! },
          }),
        ),
      ({ agent }) => [`agent ${agent.name} (${agent.id})`],
    ),
  );

  const key = admin.command('key').description('API keys');
  const createKey = key
    .command('create <org> <userId>')
    .description('Create an API key for a member; prints the secret (shown once)')
    .option('--grants <json>', 'grants as JSON', '{"type":"organization","permissions":["*"]}')
    .option('--name <name>', 'name')
    .option('--expires-in <seconds>', 'lifetime in seconds');
  createKey.action(
    run(
      (api, org, userId) => {
        const o = opts(createKey);
        let grants: unknown;
        try {
          grants = JSON.parse(o.grants ?? '');
        } catch {
          throw new CliError(
            '--grants is not valid JSON',
            1,
            `e.g. --grants '{"type":"organization","permissions":["experts:write"]}'`,
          );
        }
        return dataOf(
          api.POST('/admin/v1/organizations/{org}/users/{userId}/api-keys', {
            params: { path: { org: org!, userId: userId! } },
            body: {
              grants: grants as RequestBody<
                '/admin/v1/organizations/{org}/users/{userId}/api-keys',
                'post'
              >['grants'],
              ...(o.name ? { name: o.name } : {}),
              ...(o.expiresIn ? { expiresIn: Number(o.expiresIn) } : {}),
            },
          }),
        );
      },
      (d) => [
        `api key ${d.id} (${d.start}…)`,
        `secret  ${d.key}`,
        'Store the secret now: it is not shown again.',
      ],
    ),
  );

  const password = admin.command('password').description('Console passwords');
  const setPassword = password
    .command('set <userId>')
    .description("Set a user's console password, read from a file or standard input (never an argument)")
    .option('--from-file <path>', 'read the password from this file (- for standard input)', '-');
  setPassword.action(
    run(
      (api, userId) => {
        const source = opts(setPassword).fromFile ?? '-';
        const text = readFileSync(source === '-' ? 0 : source, 'utf8').replace(/\r?\n$/, '');
        return dataOf(
          api.PUT('/admin/v1/users/{userId}/password', {
            params: { path: { userId: userId! } },
            body: { password: text },
          }),
        );
      },
      () => ['password set'],
    ),
  );

  const rotate = admin
    .command('rotate-encryption-key')
    .description('Re-encrypt stored secrets under the newest key of CADRE_ENCRYPTION_KEYS (resumable)')
    .option('--max-rows <rows>', 'stop after this many rows (run again to continue)');
  rotate.action(
    run(
      (api) => {
        const maxRows = opts(rotate).maxRows;
        return dataOf(
          api.POST('/admin/v1/encryption-keys/rotate', { body: maxRows ? { maxRows: Number(maxRows) } : {} }),
        );
      },
      (d) => [
        `re-encrypted ${d.integrationVersions} client secret(s), ${d.connections} connection(s), ${d.webhookEndpoints} webhook secret(s) and ${d.ssoProviders} identity provider secret(s)`,
        ...(d.unreadable.length
          ? [`unreadable, skipped (no key of the ring opens them): ${d.unreadable.join(', ')}`]
          : []),
        d.done ? 'done: nothing remains under an older key' : 'not done: run again to continue',
      ],
      // One call runs the whole rotation server-side, in batches: allow it minutes, not seconds.
      600_000,
    ),
  );

  const expert = admin.command('expert').description('Registry Experts');
  const takedown = expert
    .command('takedown <expertKey>')
    .description(
      'Take an exact version (name@1.2.3) down: it leaves every read, even when other Experts delegate to it (audited)',
    )
    .requiredOption('--reason <text>', 'why; shown to whoever reads the version or delegates to it');
  takedown.action(
    run(
      (api, expertKey) =>
        dataOf(
          api.POST('/admin/v1/registry/experts/{expertKey}/takedown', {
            params: { path: { expertKey: expertKey! } },
            body: { reason: opts(takedown).reason! },
          }),
        ),
      ({ takedown: record }) => [
        `taken down  ${record.key} (${record.expertId})`,
        `reason      ${record.reason}`,
      ],
    ),
  );

  const audit = admin
    .command('audit <org>')
    .description("The organization's audit events (docs/organization-api.md), newest first")
    .option('--limit <n>', 'how many', '100');
  audit.action(
    run(
      (api, org) =>
        dataOf(
          api.GET('/admin/v1/organizations/{org}/audit-events', {
            params: { path: { org: org! }, query: { limit: Number(opts(audit).limit) } },
          }),
        ),
      (d) =>
        d.events.map(
          (e) =>
            `${e.createdAt}  ${e.action}  ${e.targetType}:${e.targetId}  by ${e.actorKind}${e.actorUserId ? `:${e.actorUserId}` : ''}`,
        ),
    ),
  );
}
