import type { Command } from 'commander';
import { bodyOf, dataOf } from './admin-client.js';
import { apiKeyClient, readPages } from './api-key-client.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { type OrganizationOption, organizationOf, withOrganization } from './organization-option.js';
import { URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

interface Options extends OrganizationOption {
  url?: string;
  json?: boolean;
}
const LIST_LIMIT = 10_000;
const NEEDS = 'members:manage (an owner or admin)';
/** The answer's emailStatus, after the invitation's summary line. */
const MAIL_WORDS = {
  sent: 'the link was sent by email',
  queued:
    'the mail server is slow and Cadre is still sending the email: give them the link too, it is shown only this once',
  failed: 'the mail server refused the email: give them the link, it is shown only this once',
  not_configured: 'no email was sent: give them the link, it is shown only this once',
} as const;

function role(value: string | undefined): 'admin' | 'member' {
  if (value === 'admin' || value === 'member') return value;
  throw new CliError(`--role must be admin or member, not ${JSON.stringify(value)}`, EXIT_USER);
}

/** `cadre members …` with the group `organization-commands.ts` made (it holds `members list`), or a new one. */
function membersGroup(program: Command): Command {
  return (
    program.commands.find((command) => command.name() === 'members') ??
    program.command('members').description("Your organization's members")
  );
}

/**
 * Owners and admins manage members with their own API key (CADRE_API_KEY; docs/organization-api.md,
 * "Members and invitations"): invite, list and revoke invitations, change roles, remove members, transfer the
 * ownership. Exit codes: 0, 1 for a refused request (4xx) or bad input, 2 when the server cannot be reached.
 */
export function registerMembersCommands(program: Command, io: CliIo): void {
  const members = membersGroup(program);

  withOrganization(members.command('invite'))
    .description('Invite someone by email with a role; prints the invitation link (shown once)')
    .requiredOption('--email <email>', 'who to invite')
    .requiredOption('--role <role>', 'admin or member')
    .option('--expires-in-days <days>', 'how long the link stays valid (1-30, default 7)')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON (with the token and link)')
    .action(async (options: Options & { email: string; role: string; expiresInDays?: string }) => {
      const days = options.expiresInDays === undefined ? undefined : Number(options.expiresInDays);
      if (days !== undefined && !Number.isInteger(days)) {
        throw new CliError('--expires-in-days must be a whole number of days', EXIT_USER);
      }
      const client = apiKeyClient(io, options, NEEDS);
      const org = await organizationOf(client, options);
      const invitation = await dataOf(
        client.POST('/api/v1/organizations/{org}/invitations', {
          params: { path: { org } },
          body: {
            email: options.email,
            role: role(options.role),
            ...(days === undefined ? {} : { expiresInDays: days }),
          },
        }),
      );
      if (options.json) return printJson(io, invitation);
      printLine(io.stdout, invitation.url);
      const paint = paintFor(io);
      printLine(
        io.stderr,
        paint.dim(
          `${invitation.email} invited as ${invitation.role} until ${invitation.expiresAt} (${invitation.id}); ` +
            MAIL_WORDS[invitation.emailStatus],
        ),
      );
    });

  withOrganization(members.command('invitations'))
    .description('Pending invitations (not accepted, revoked or expired)')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the invitations as a JSON array')
    .action(async (options: Options) => {
      const client = apiKeyClient(io, options, NEEDS);
      const org = await organizationOf(client, options);
      const { items } = await readPages(
        (query) =>
          bodyOf(client.GET('/api/v1/organizations/{org}/invitations', { params: { path: { org }, query } })),
        LIST_LIMIT,
      );
      if (options.json) return printJson(io, items);
      const rows = items.map((i) => [i.id, i.email, i.role, i.expiresAt, i.invitedByUserId ?? '-']);
      printLine(io.stdout, formatTable(['ID', 'EMAIL', 'ROLE', 'EXPIRES', 'INVITED BY'], rows));
      printLine(io.stderr, paintFor(io).dim(`${rows.length} pending`));
    });

  withOrganization(members.command('invitation-link <invitationId>'))
    .description("A pending invitation's link again (a new copy: the previous copy stops working)")
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON (with the token and link)')
    .action(async (invitationId: string, options: Options) => {
      const client = apiKeyClient(io, options, NEEDS);
      const org = await organizationOf(client, options);
      const invitation = await dataOf(
        client.POST('/api/v1/organizations/{org}/invitations/{invitationId}/link', {
          params: { path: { org, invitationId } },
        }),
      );
      if (options.json) return printJson(io, invitation);
      printLine(io.stdout, invitation.url);
      printLine(
        io.stderr,
        paintFor(io).dim(
          `${invitation.email} (${invitation.role}) until ${invitation.expiresAt}; the previous copy no longer works, an emailed link still does`,
        ),
      );
    });

  withOrganization(members.command('revoke-invitation <invitationId>'))
    .description('Revoke an invitation: its link no longer works')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON')
    .action(async (invitationId: string, options: Options) => {
      const client = apiKeyClient(io, options, NEEDS);
      const org = await organizationOf(client, options);
      const invitation = await dataOf(
        client.DELETE('/api/v1/organizations/{org}/invitations/{invitationId}', {
          params: { path: { org, invitationId } },
        }),
      );
      if (options.json) return printJson(io, invitation);
      printLine(io.stdout, `invitation ${invitation.id} for ${invitation.email} is ${invitation.state}`);
    });

  withOrganization(members.command('role <userId>'))
    .description("Change a member's role (never the owner's: transfer the ownership instead)")
    .requiredOption('--role <role>', 'admin or member')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the membership as JSON')
    .action(async (userId: string, options: Options & { role: string }) => {
      const client = apiKeyClient(io, options, NEEDS);
      const org = await organizationOf(client, options);
      const membership = await dataOf(
        client.PUT('/api/v1/organizations/{org}/members/{memberId}', {
          params: { path: { org, memberId: userId } },
          body: { role: role(options.role) },
        }),
      );
      if (options.json) return printJson(io, membership);
      printLine(io.stdout, `${membership.userId} is now ${membership.role}`);
    });

  withOrganization(members.command('remove <userId>'))
    .description('Remove a member: their API keys are revoked and their console sessions end at once')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON')
    .action(async (userId: string, options: Options) => {
      const client = apiKeyClient(io, options, NEEDS);
      const org = await organizationOf(client, options);
      const removed = await dataOf(
        client.DELETE('/api/v1/organizations/{org}/members/{memberId}', {
          params: { path: { org, memberId: userId } },
        }),
      );
      if (options.json) return printJson(io, removed);
      const keys = removed.revokedApiKeyIds.length;
      const invitations = removed.revokedInvitationIds.length;
      printLine(
        io.stdout,
        `${removed.userId} (${removed.role}) removed; ${keys} API key${keys === 1 ? '' : 's'} revoked, ` +
          `${removed.endedSessions} session${removed.endedSessions === 1 ? '' : 's'} ended, ` +
          `${invitations} invitation${invitations === 1 ? '' : 's'} they sent revoked`,
      );
    });

  withOrganization(members.command('transfer-ownership <userId>'))
    .description('Make another member the owner (the owner only); you become an admin')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON')
    .action(async (userId: string, options: Options) => {
      const client = apiKeyClient(io, options, 'members:manage (the owner)');
      const org = await organizationOf(client, options);
      const answer = await dataOf(
        client.POST('/api/v1/organizations/{org}/ownership-transfer', {
          params: { path: { org } },
          body: { userId },
        }),
      );
      if (options.json) return printJson(io, answer);
      printLine(
        io.stdout,
        `${answer.owner.userId} is now the owner; ${answer.previousOwner.userId} is now ${answer.previousOwner.role}`,
      );
    });
}
