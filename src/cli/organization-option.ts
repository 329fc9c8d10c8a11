import type { Command } from 'commander';
import { dataOf } from './admin-client.js';
import type { CadreApi } from './api.js';
import { CliError, EXIT_USER } from './errors.js';

/**
 * `--org` the same way on every command whose request names the organization (docs/organization-api.md,
 * "Organizations, projects and environments in paths"): its slug or id, and without it the organization of
 * the key the command runs with (a key acts in exactly one). Projects and environments are named by slug or
 * name as well as by id; the server resolves them.
 */
export interface OrganizationOption {
  org?: string;
}

export const ORG_OPTION_HELP = "the organization's slug or id (default: the key's own)";

/**
 * Adds `--org`. An extra word where the organization used to be positional (`cadre members invitations acme`,
 * before `--org`) is refused with the spelling that works now, rather than commander's bare "too many
 * arguments", so an old script says how to fix itself.
 */
export const withOrganization = (command: Command): Command =>
  command
    .option('--org <org>', ORG_OPTION_HELP)
    .allowExcessArguments()
    .hook('preAction', (_command, action) => {
      const extra = action.args.slice(action.registeredArguments.length);
      if (extra.length === 0) return;
      throw new CliError(
        `unexpected argument ${JSON.stringify(extra[0])}: name the organization with --org`,
        EXIT_USER,
        `${commandPath(action)} ${action.args.slice(0, action.registeredArguments.length).join(' ')} --org ${extra[0]}`.replace(
          / {2,}/g,
          ' ',
        ),
      );
    });

/** `cadre members invitations`: the words that reach a command. */
function commandPath(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/** The organization named by `--org`, else the key's own (one GET /api/v1/me). */
export async function organizationOf(client: CadreApi, options: OrganizationOption): Promise<string> {
  return options.org ?? (await dataOf(client.GET('/api/v1/me'))).organization.slug;
}
