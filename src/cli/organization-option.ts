import type { Command } from 'commander';
import { dataOf } from './admin-client.js';
import type { CadreApi } from './api.js';

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

export const withOrganization = (command: Command): Command => command.option('--org <org>', ORG_OPTION_HELP);

/** The organization named by `--org`, else the key's own (one GET /api/v1/me). */
export async function organizationOf(client: CadreApi, options: OrganizationOption): Promise<string> {
  return options.org ?? (await dataOf(client.GET('/api/v1/me'))).organization.slug;
}
