import type { Command } from 'commander';
import { bodyOf, dataOf } from './admin-client.js';
import { apiKeyClient, callerKey, readPages } from './api-key-client.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { type OrganizationOption, organizationOf, withOrganization } from './organization-option.js';
import { resolveServiceUrl, URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

interface Options {
  url?: string;
  json?: boolean;
}
const LIST_LIMIT = 10_000;

/**
 * The member's read commands with their own API key (CADRE_API_KEY; docs/organization-api.md):
 * `cadre whoami`, `cadre projects list`, `cadre members list` (`--org`, default the key's own); each with `--json` for scripts.
 */
export function registerOrganizationCommands(program: Command, io: CliIo): void {
  program
    .command('whoami')
    .description(
      'Who the CLI acts as (CADRE_API_KEY, else the cadre login key): user, organization, role, rights',
    )
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON')
    .action(async (options: Options) => {
      const me = await dataOf(apiKeyClient(io, options, 'any permission').GET('/api/v1/me'));
      if (options.json) return printJson(io, me);
      const who = me.user.name ? `${me.user.name} <${me.user.email}>` : me.user.email;
      printLine(io.stdout, `${who}, ${me.role} of ${me.organization.name} (${me.organization.slug})`);
      const key = me.authentication.kind === 'apiKey' ? me.authentication : undefined;
      printLine(io.stdout, `key ${key?.start ?? ''}… (${key?.apiKeyId ?? ''})`);
      printLine(io.stdout, `may: ${me.permissions.join(', ') || 'nothing'}`);
      const { url } = resolveServiceUrl(io, { url: options.url });
      printLine(io.stderr, paintFor(io).dim(`the key is from ${callerKey(io, url)?.from}`));
    });

  const projects = program.command('projects').description("Your organization's projects");
  withOrganization(projects.command('list'))
    .description('Projects with their environments and agents, as far as the key reaches (projects:read)')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the projects as a JSON array')
    .action(async (options: Options & OrganizationOption) => {
      const client = apiKeyClient(io, options, 'projects:read');
      const org = await organizationOf(client, options);
      const { items } = await readPages(
        (query) =>
          bodyOf(client.GET('/api/v1/organizations/{org}/projects', { params: { path: { org }, query } })),
        LIST_LIMIT,
      );
      if (options.json) return printJson(io, items);
      const rows = items.map((p) => [
        p.id,
        p.slug,
        p.environments.map((e) => `${e.name} (${e.id})`).join(', ') || '-',
        p.agents.map((a) => a.name).join(', ') || '-',
      ]);
      printLine(io.stdout, formatTable(['ID', 'SLUG', 'ENVIRONMENTS', 'AGENTS'], rows));
      printLine(io.stderr, paintFor(io).dim(`${rows.length} project${rows.length === 1 ? '' : 's'}`));
    });

  const members = program.command('members').description("Your organization's members");
  withOrganization(members.command('list'))
    .description('Members and roles; emails for owners and admins (members:read)')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the members as a JSON array')
    .action(async (options: Options & OrganizationOption) => {
      const client = apiKeyClient(io, options, 'members:read');
      const organization = await organizationOf(client, options);
      const { items } = await readPages(
        (query) =>
          bodyOf(
            client.GET('/api/v1/organizations/{org}/members', {
              params: { path: { org: organization }, query },
            }),
          ),
        LIST_LIMIT,
      );
      if (options.json) return printJson(io, items);
      const rows = items.map((m) => [m.userId, m.name ?? '-', m.email ?? '(hidden)', m.role]);
      printLine(io.stdout, formatTable(['USER', 'NAME', 'EMAIL', 'ROLE'], rows));
    });
}
