import { type Command, InvalidArgumentError } from 'commander';
import type { components } from '../api-schema.js';
import { dataOf } from './admin-client.js';
import { apiKeyClient } from './api-key-client.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

type Policy = components['schemas']['PublishPolicy'];
type PolicyChange = components['schemas']['PublishPolicyChange'];
type Approval = components['schemas']['RegistryApproval'];

interface Options {
  url?: string;
  json?: boolean;
}

/** `a,b,c` → a list; `any` stays "any" (sent as null: every value allowed; commander keeps no null). */
const listOrAny = (value: string): string[] | 'any' => {
  if (value.trim() === 'any') return 'any';
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError('give a comma-separated list, or "any"');
  return items;
};
const orNull = (value: string[] | 'any') => (value === 'any' ? null : value);

const onOff = (value: string): boolean => {
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new InvalidArgumentError('on or off');
};

function printPolicy(io: CliIo, policy: Policy): void {
  const any = (list: string[] | null) => (list === null ? 'any' : list.join(', '));
  const rows = [
    ['allowed commands', any(policy.allowedCommands)],
    ['pinned package versions', policy.requirePinnedVersions ? 'required' : 'not required'],
    ['allowed SSE hosts', any(policy.allowedSseHosts)],
    ['approval for widening versions', policy.approvalRequiredForWidening ? 'required' : 'not required'],
    ['skills from the MCP catalog', policy.skillsFromCatalog ? 'required' : 'not required'],
  ];
  for (const [label, value] of rows) printLine(io.stdout, `${`${label}:`.padEnd(32)}${value}`);
}

/**
 * `cadre policy show|set|preset` and `cadre approvals list|approve|reject` with the caller's own key
 * (CADRE_API_KEY): the organization's publish policy and the versions waiting for approval under it
 * (docs/registry.md "Publish policies").
 */
export function registerPolicyCommands(program: Command, io: CliIo): void {
  const policy = program.command('policy').description("Your organization's publish policy");

  const change = async (options: Options, body: PolicyChange) => {
    const client = apiKeyClient(io, options, 'publish-policy:manage (an owner or admin)');
    const answer = await dataOf(client.PUT('/api/v1/organization/publish-policy', { body }));
    // Said on stderr even with --json: a script's log shows it too.
    for (const warning of answer.warnings ?? [])
      printLine(io.stderr, `${paintFor(io).yellow('warning')}: ${warning}`);
    if (options.json) return printJson(io, answer);
    printPolicy(io, answer.policy);
    printLine(io.stderr, paintFor(io).dim('publish policy saved'));
  };

  policy
    .command('show')
    .description('The publish policy (any member: publish-policy:read)')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON')
    .action(async (options: Options) => {
      const client = apiKeyClient(io, options, 'publish-policy:read');
      const answer = await dataOf(client.GET('/api/v1/organization/publish-policy'));
      if (options.json) return printJson(io, answer);
      printPolicy(io, answer.policy);
    });

  policy
    .command('set')
    .description(
      'Change rules of the publish policy; rules not given keep their value (publish-policy:manage)',
    )
    .option('--commands <list>', 'allowed skill commands, comma-separated, or "any"', listOrAny)
    .option(
      '--sse-hosts <list>',
      'allowed SSE endpoint hosts (*.example.com for subdomains), or "any"',
      listOrAny,
    )
    .option('--pinned <on|off>', 'require npx/uvx packages pinned to an exact version', onOff)
    .option('--approval <on|off>', 'versions that widen access wait for a second owner or admin', onOff)
    .option(
      '--from-catalog <on|off>',
      "every MCP skill must be a server of the organization's MCP catalog",
      onOff,
    )
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON')
    .action(
      async (
        options: Options & {
          commands?: string[] | 'any';
          sseHosts?: string[] | 'any';
          pinned?: boolean;
          approval?: boolean;
          fromCatalog?: boolean;
        },
      ) => {
        const body: PolicyChange = {
          ...(options.commands !== undefined ? { allowedCommands: orNull(options.commands) } : {}),
          ...(options.sseHosts !== undefined ? { allowedSseHosts: orNull(options.sseHosts) } : {}),
          ...(options.pinned !== undefined ? { requirePinnedVersions: options.pinned } : {}),
          ...(options.approval !== undefined ? { approvalRequiredForWidening: options.approval } : {}),
          ...(options.fromCatalog !== undefined ? { skillsFromCatalog: options.fromCatalog } : {}),
        };
        if (Object.keys(body).length === 0) {
          throw new CliError(
            'nothing to change',
            EXIT_USER,
            'give --commands, --sse-hosts, --pinned, --approval or --from-catalog (or: cadre policy preset recommended)',
          );
        }
        await change(options, body);
      },
    );

  policy
    .command('preset')
    .description('Apply a preset: recommended = allowed commands npx and uvx (publish-policy:manage)')
    .argument('<name>', 'recommended')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON')
    .action(async (name: string, options: Options) => {
      if (name !== 'recommended')
        throw new CliError(`unknown preset "${name}"`, EXIT_USER, 'presets: recommended');
      await change(options, { preset: 'recommended' });
    });

  const approvals = program.command('approvals').description('Expert versions waiting for approval');

  approvals
    .command('list')
    .description('Versions awaiting approval, with why each widens access (publish-policy:read)')
    .option('--status <status>', 'pending (default), approved or rejected', 'pending')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the approvals as a JSON array')
    .action(async (options: Options & { status: string }) => {
      if (!['pending', 'approved', 'rejected'].includes(options.status)) {
        throw new CliError(`unknown status "${options.status}"`, EXIT_USER, 'pending, approved or rejected');
      }
      const client = apiKeyClient(io, options, 'publish-policy:read');
      const { approvals: items } = await dataOf(
        client.GET('/api/v1/registry/approvals', {
          params: { query: { status: options.status as Approval['status'] } },
        }),
      );
      if (options.json) return printJson(io, items);
      const rows = items.map((a) => [
        a.id,
        a.key,
        a.previousVersion ?? '-',
        a.requestedBy.name ?? a.requestedBy.userId,
        a.diff.reasons.join('; '),
      ]);
      printLine(
        io.stdout,
        formatTable(['ID', 'VERSION', 'LATEST WAS', 'PUBLISHED BY', 'WIDENS ACCESS'], rows),
      );
      const count = `${rows.length} ${options.status} approval${rows.length === 1 ? '' : 's'}`;
      printLine(io.stderr, paintFor(io).dim(`${count}; the whole diff: cadre diff <latest was> <version>`));
    });

  for (const decision of ['approve', 'reject'] as const) {
    approvals
      .command(decision)
      .description(
        decision === 'approve'
          ? 'Approve a version: it takes latest if still the newest that may (experts:approve; not your own)'
          : 'Reject a version: it stays published, never latest (experts:approve; not your own)',
      )
      .argument('<approvalId>', 'the ID from cadre approvals list')
      .option('--url <url>', URL_OPTION_HELP)
      .option('--json', 'print the answer as JSON')
      .action(async (approvalId: string, options: Options) => {
        const client = apiKeyClient(io, options, 'experts:approve (an owner or admin)');
        const path =
          decision === 'approve'
            ? '/api/v1/registry/approvals/{approvalId}/approve'
            : '/api/v1/registry/approvals/{approvalId}/reject';
        const answer = await dataOf(client.POST(path, { params: { path: { approvalId } } }));
        if (options.json) return printJson(io, answer);
        const { approval, movedLatest } = answer;
        printLine(
          io.stdout,
          `${approval.key} ${approval.status}${decision === 'approve' ? (movedLatest ? '; it is now latest' : '; latest stays where it is (a newer version holds it)') : ''}`,
        );
      });
  }
}
