import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { createAdminClient } from './admin-client.js';
import { CliError } from './errors.js';
import { type CliIo, printJson, printLine } from './io.js';
import { resolveServiceUrl, URL_OPTION_HELP, unreachableHint } from './service-url.js';

interface AdminOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

type Row = Record<string, unknown>;

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
    (
      action: (call: ReturnType<typeof createAdminClient>['call'], ...args: string[]) => Promise<Row>,
      human: (data: Row) => string[],
    ) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const options = command.optsWithGlobals<AdminOptions>();
      const token = options.token ?? io.env.CADRE_ADMIN_TOKEN;
      if (!token) throw new CliError('an admin token is needed', 1, 'pass --token or set CADRE_ADMIN_TOKEN');
      const { url, source } = resolveServiceUrl(io, { url: options.url });
      const client = createAdminClient({ baseUrl: url, token, unreachableHint: unreachableHint(source) });
      const positional = args.slice(0, -2).filter((value): value is string => typeof value === 'string');
      const data = await action(client.call, ...positional);
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
    .option('--owner-name <name>', "owner's name");
  createOrg.action(
    run(
      (call) => {
        const o = opts(createOrg);
        return call('POST', '/admin/v1/organizations', {
          slug: o.slug,
          name: o.name,
          accountType: o.type,
          owner: { email: o.ownerEmail, ...(o.ownerName ? { name: o.ownerName } : {}) },
        });
      },
      (d) => {
        const organization = d.organization as Row;
        const owner = d.owner as Row;
        const key = d.apiKey as Row;
        return [
          `organization ${organization.slug} (${organization.id}, ${organization.accountType})`,
          `owner        ${owner.email} (${owner.id})`,
          `owner key    ${key.key}`,
          'Store the key now: it is not shown again.',
        ];
      },
    ),
  );

  const member = admin.command('member').description('Memberships');
  const addMember = member
    .command('add <org>')
    .description('Add a member (creates the user when the email is new)')
    .requiredOption('--email <email>', 'email')
    .requiredOption('--role <role>', 'admin or member')
    .option('--name <name>', 'name');
  addMember.action(
    run(
      (call, orgRef) => {
        const o = opts(addMember);
        return call('POST', `/admin/v1/organizations/${encodeURIComponent(orgRef!)}/members`, {
          email: o.email,
          role: o.role,
          ...(o.name ? { name: o.name } : {}),
        });
      },
      (d) => [`member ${(d.user as Row).email} (${(d.user as Row).id}) as ${(d.membership as Row).role}`],
    ),
  );
  const setRole = member
    .command('role <org> <userId>')
    .description("Change a member's role (its API keys follow at once)")
    .requiredOption('--role <role>', 'admin or member');
  setRole.action(
    run(
      (call, orgRef, userId) =>
        call(
          'PUT',
          `/admin/v1/organizations/${encodeURIComponent(orgRef!)}/members/${encodeURIComponent(userId!)}`,
          {
            role: opts(setRole).role,
          },
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
      (call, orgRef) => {
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
        const path = `/admin/v1/organizations/${encodeURIComponent(orgRef!)}/limits`;
        if (given.length === 0) return call('GET', path);
        return call(
          'PUT',
          path,
          Object.fromEntries(given.map(([key, value]) => [key, value === 'plan' ? null : Number(value)])),
        );
      },
      (d) => {
        const overridden = new Set(d.overridden as string[]);
        return Object.entries(d.limits as Row).map(
          ([key, value]) =>
            `${key.padEnd(15)} ${value}${overridden.has(key) ? '  (override)' : `  (plan ${d.planKey})`}`,
        );
      },
    ),
  );

  org
    .command('transfer-ownership <org> <userId>')
    .description('Make a member the owner; the previous owner becomes an admin')
    .action(
      run(
        (call, orgRef, userId) =>
          call('POST', `/admin/v1/organizations/${encodeURIComponent(orgRef!)}/ownership-transfer`, {
            userId,
          }),
        (d) => [
          `${(d.owner as Row).userId} is now the owner; ${(d.previousOwner as Row).userId} is now ${(d.previousOwner as Row).role}`,
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
      (call, orgRef) =>
        call('POST', `/admin/v1/organizations/${encodeURIComponent(orgRef!)}/projects`, {
          slug: opts(createProject).slug,
          name: opts(createProject).name,
        }),
      (d) => [
        `project ${(d.project as Row).slug} (${(d.project as Row).id})`,
        ...(d.environments as Row[]).map((e) => `  environment ${e.name} (${e.id})`),
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
      (call, projectId) =>
        call('POST', `/admin/v1/projects/${encodeURIComponent(projectId!)}/environments`, {
          name: opts(createEnv).name,
        }),
      (d) => [`environment ${(d.environment as Row).name} (${(d.environment as Row).id})`],
    ),
  );

  const agent = admin.command('agent').description('Agents');
  const createAgent = agent
    .command('create <projectId>')
    .description('Add an agent')
    .requiredOption('--name <name>', 'name');
  createAgent.action(
    run(
      (call, projectId) =>
        call('POST', `/admin/v1/projects/${encodeURIComponent(projectId!)}/agents`, {
          name: opts(createAgent).name,
        }),
      (d) => [`agent ${(d.agent as Row).name} (${(d.agent as Row).id})`],
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
      (call, orgRef, userId) => {
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
        return call(
          'POST',
          `/admin/v1/organizations/${encodeURIComponent(orgRef!)}/users/${encodeURIComponent(userId!)}/api-keys`,
          {
            grants,
            ...(o.name ? { name: o.name } : {}),
            ...(o.expiresIn ? { expiresIn: Number(o.expiresIn) } : {}),
          },
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
      (call, userId) => {
        const source = opts(setPassword).fromFile ?? '-';
        const text = readFileSync(source === '-' ? 0 : source, 'utf8').replace(/\r?\n$/, '');
        return call('PUT', `/admin/v1/users/${encodeURIComponent(userId!)}/password`, { password: text });
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
      (call) => {
        const maxRows = opts(rotate).maxRows;
        // One call runs the whole rotation server-side, in batches: allow it minutes, not seconds.
        return call(
          'POST',
          '/admin/v1/encryption-keys/rotate',
          maxRows ? { maxRows: Number(maxRows) } : {},
          600_000,
        );
      },
      (d) => [
        `re-encrypted ${d.integrationVersions} client secret(s) and ${d.connections} connection(s)`,
        ...((d.unreadable as string[]).length
          ? [`unreadable, skipped (no key of the ring opens them): ${(d.unreadable as string[]).join(', ')}`]
          : []),
        d.done ? 'done: nothing remains under an older key' : 'not done: run again to continue',
      ],
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
      (call, key) =>
        call('POST', `/admin/v1/registry/experts/${encodeURIComponent(key!)}/takedown`, {
          reason: opts(takedown).reason,
        }),
      (d) => {
        const record = d.takedown as Row;
        return [`taken down  ${record.key} (${record.expertId})`, `reason      ${record.reason}`];
      },
    ),
  );

  const audit = admin
    .command('audit <org>')
    .description("The organization's audit events (docs/organization-api.md), newest first")
    .option('--limit <n>', 'how many', '100');
  audit.action(
    run(
      (call, orgRef) =>
        call(
          'GET',
          `/admin/v1/organizations/${encodeURIComponent(orgRef!)}/audit-events?limit=${Number(opts(audit).limit)}`,
        ),
      (d) =>
        (d.events as Row[]).map(
          (e) =>
            `${e.createdAt}  ${e.action}  ${e.targetType}:${e.targetId}  by ${e.actorKind}${e.actorUserId ? `:${e.actorUserId}` : ''}`,
        ),
    ),
  );
}
