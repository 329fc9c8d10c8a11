import type { Command } from 'commander';
import { dataOf } from './admin-client.js';
import { apiKeyClient } from './api-key-client.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, printJson, printLine } from './io.js';
import { type OrganizationOption, organizationOf, withOrganization } from './organization-option.js';
import { URL_OPTION_HELP } from './service-url.js';

interface Options extends OrganizationOption {
  url?: string;
  json?: boolean;
}
const NEEDS = 'projects:write (an owner or admin; a project grant for its own project)';

/** `cadre projects …` with the group `organization-commands.ts` made (it holds `projects list`), or a new one. */
function projectsGroup(program: Command): Command {
  return (
    program.commands.find((command) => command.name() === 'projects') ??
    program.command('projects').description("Your organization's projects")
  );
}

/** The common options of every command here. */
const withCommon = (command: Command) =>
  withOrganization(command)
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON');

function report(io: CliIo, options: Options, data: unknown, line: string) {
  if (options.json) return printJson(io, data ?? {});
  printLine(io.stdout, line);
}

/**
 * Projects, environments and agents created, renamed and deleted with the caller's own API key
 * (CADRE_API_KEY, projects:write; docs/organization-api.md, "Projects, environments and agents"). A delete
 * that connections or API-key grants depend on is refused (exit 1) with what blocks it, unless `--cascade`
 * disconnects and revokes them. Exit codes: 0, 1 for a refused request (4xx) or bad input, 2 when the server
 * cannot be reached or fails.
 */
export function registerProjectCommands(program: Command, io: CliIo): void {
  const projects = projectsGroup(program);

  withCommon(
    projects
      .command('create')
      .description('Create a project (with its production and development environments)')
      .requiredOption('--slug <slug>', 'lowercase letters, digits, "-" and "_"')
      .requiredOption('--name <name>', 'its display name'),
  ).action(async (options: Options & { slug: string; name: string }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const project = await dataOf(
      client.POST('/api/v1/organizations/{org}/projects', {
        params: { path: { org } },
        body: { slug: options.slug, name: options.name },
      }),
    );
    const environments = project.environments.map((e) => `${e.name} (${e.id})`).join(', ');
    report(io, options, project, `created project ${project.slug} (${project.id}): ${environments}`);
  });

  withCommon(
    projects
      .command('rename <project>')
      .description("Change a project's name, slug or both")
      .option('--name <name>', 'the new display name')
      .option('--slug <slug>', 'the new slug'),
  ).action(async (projectId: string, options: Options & { slug?: string; name?: string }) => {
    if (options.name === undefined && options.slug === undefined) {
      throw new CliError('give --name, --slug or both', EXIT_USER);
    }
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const project = await dataOf(
      client.PATCH('/api/v1/organizations/{org}/projects/{projectId}', {
        params: { path: { org, projectId } },
        body: {
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.slug === undefined ? {} : { slug: options.slug }),
        },
      }),
    );
    report(io, options, project, `project ${project.id} is now ${project.slug} (${project.name})`);
  });

  withCommon(
    projects
      .command('delete <project>')
      .description('Delete a project with its environments and agents')
      .option('--cascade', 'also disconnect its connections and revoke the API keys that name it'),
  ).action(async (projectId: string, options: Options & { cascade?: boolean }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    await client.DELETE('/api/v1/organizations/{org}/projects/{projectId}', {
      params: { path: { org, projectId }, query: options.cascade ? { cascade: 'true' } : {} },
    });
    report(io, options, undefined, `deleted project ${projectId}`);
  });

  const env = projects.command('env').description("A project's environments");
  withCommon(
    env
      .command('create <project>')
      .description('Add an environment to a project')
      .requiredOption('--name <name>', 'lowercase letters, digits, "-" and "_" (staging)'),
  ).action(async (projectId: string, options: Options & { name: string }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const environment = await dataOf(
      client.POST('/api/v1/organizations/{org}/projects/{projectId}/environments', {
        params: { path: { org, projectId } },
        body: { name: options.name },
      }),
    );
    report(io, options, environment, `created environment ${environment.name} (${environment.id})`);
  });
  withCommon(
    env
      .command('rename <project> <environment>')
      .description('Rename an environment')
      .requiredOption('--name <name>', 'the new name'),
  ).action(async (projectId: string, environmentId: string, options: Options & { name: string }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const environment = await dataOf(
      client.PATCH('/api/v1/organizations/{org}/projects/{projectId}/environments/{environmentId}', {
        params: { path: { org, projectId, environmentId } },
        body: { name: options.name },
      }),
    );
    report(io, options, environment, `environment ${environment.id} is now ${environment.name}`);
  });
  withCommon(
    env
      .command('delete <project> <environment>')
      .description('Delete an environment')
      .option('--cascade', 'also disconnect its connections and revoke the API keys that name it'),
  ).action(async (projectId: string, environmentId: string, options: Options & { cascade?: boolean }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    await client.DELETE('/api/v1/organizations/{org}/projects/{projectId}/environments/{environmentId}', {
      params: { path: { org, projectId, environmentId }, query: options.cascade ? { cascade: 'true' } : {} },
    });
    report(io, options, undefined, `deleted environment ${environmentId}`);
  });

  const agent = projects.command('agent').description("A project's agents");
  withCommon(
    agent
      .command('create <project>')
      .description('Add an agent to a project')
      .requiredOption('--name <name>', 'its name'),
  ).action(async (projectId: string, options: Options & { name: string }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const created = await dataOf(
      client.POST('/api/v1/organizations/{org}/projects/{projectId}/agents', {
        params: { path: { org, projectId } },
        body: { name: options.name },
      }),
    );
    report(io, options, created, `created agent ${created.name} (${created.id})`);
  });
  withCommon(
    agent
      .command('rename <project> <agentId>')
      .description('Rename an agent')
      .requiredOption('--name <name>', 'the new name'),
  ).action(async (projectId: string, agentId: string, options: Options & { name: string }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const renamed = await dataOf(
      client.PATCH('/api/v1/organizations/{org}/projects/{projectId}/agents/{agentId}', {
        params: { path: { org, projectId, agentId } },
        body: { name: options.name },
      }),
    );
    report(io, options, renamed, `agent ${renamed.id} is now ${renamed.name}`);
  });
  withCommon(
    agent
      .command('delete <project> <agentId>')
      .description('Delete an agent')
      .option('--cascade', 'also revoke the API keys that name it'),
  ).action(async (projectId: string, agentId: string, options: Options & { cascade?: boolean }) => {
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    await client.DELETE('/api/v1/organizations/{org}/projects/{projectId}/agents/{agentId}', {
      params: { path: { org, projectId, agentId }, query: options.cascade ? { cascade: 'true' } : {} },
    });
    report(io, options, undefined, `deleted agent ${agentId}`);
  });
}
