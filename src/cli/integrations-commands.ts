import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { dataOf } from './admin-client.js';
import { apiKeyClient } from './api-key-client.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, printJson, printLine } from './io.js';
import { ORG_OPTION_HELP, organizationOf } from './organization-option.js';
import { URL_OPTION_HELP } from './service-url.js';
import { formatTable } from './table.js';

interface Options {
  url?: string;
  json?: boolean;
  org?: string;
}
interface ClientOptions extends Options {
  clientId?: string;
  clientSecretFile?: string;
  scopes?: string;
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  tokenEndpointAuth?: string;
}
const NEEDS = 'integrations:manage (an owner or admin)';

/** The options describing the OAuth client, shared by `add` and `update`. */
const clientOptions = (command: Command) =>
  command
    .option('--client-id <id>', "the OAuth app's client id")
    .option(
      '--client-secret-file <path>',
      "a file holding the client secret ('-': standard input); never on the command line",
    )
    .option('--scopes <scopes>', "comma-separated scopes (default: the preset's)")
    .option('--issuer <url>', 'the OpenID issuer (required for oidc)')
    .option('--authorization-endpoint <url>', "override the preset's")
    .option('--token-endpoint <url>', "override the preset's")
    .option('--userinfo-endpoint <url>', "override the preset's")
    .option('--token-endpoint-auth <method>', 'client_secret_basic or client_secret_post')
    .option('--org <org>', ORG_OPTION_HELP)
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the answer as JSON');

function readSecret(path: string): string {
  try {
    const secret = readFileSync(path === '-' ? 0 : path, 'utf8').replace(/\r?\n$/, '');
    if (!secret) throw new CliError(`the client secret in ${path} is empty`, EXIT_USER);
    return secret;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read the client secret: ${(error as Error).message}`, EXIT_USER);
  }
}

function authMethod(value: string | undefined): 'client_secret_basic' | 'client_secret_post' | undefined {
  if (value === undefined || value === 'client_secret_basic' || value === 'client_secret_post') return value;
  throw new CliError('--token-endpoint-auth must be client_secret_basic or client_secret_post', EXIT_USER);
}

/** The fields `add` and `update` send, from the options given (absent options are left out). */
function clientFields(options: ClientOptions) {
  const tokenEndpointAuth = authMethod(options.tokenEndpointAuth);
  return {
    ...(options.clientId === undefined ? {} : { clientId: options.clientId }),
    ...(options.clientSecretFile === undefined ? {} : { clientSecret: readSecret(options.clientSecretFile) }),
    ...(options.scopes === undefined
      ? {}
      : {
          scopes: options.scopes
            .split(',')
            .map((scope) => scope.trim())
            .filter(Boolean),
        }),
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.authorizationEndpoint === undefined
      ? {}
      : { authorizationEndpoint: options.authorizationEndpoint }),
    ...(options.tokenEndpoint === undefined ? {} : { tokenEndpoint: options.tokenEndpoint }),
    ...(options.userinfoEndpoint === undefined ? {} : { userinfoEndpoint: options.userinfoEndpoint }),
    ...(tokenEndpointAuth === undefined ? {} : { tokenEndpointAuth }),
  };
}

const describe = (i: { presetKey: string; version: { number: number; verified: boolean } }) =>
  `${i.presetKey} version ${i.version.number} (${i.version.verified ? 'verified' : 'not verified yet'})`;

/**
 * The organization's OAuth integrations with the caller's own API key (CADRE_API_KEY;
 * docs/organization-api.md, "Integrations"): list (integrations:read), add, update, remove
 * (integrations:manage). The client secret is read from a file or standard input, never from the command
 * line, and never printed. A new version is verified by one authorization in a browser (the console, or
 * `GET /api/oauth/verify/{preset}`). Exit codes: 0, 1 for a refused request (4xx) or bad input, 2 when the
 * server cannot be reached or fails.
 */
export function registerIntegrationCommands(program: Command, io: CliIo): void {
  const integrations = program
    .command('integrations')
    .description("Your organization's OAuth integrations (bring your own OAuth app)");

  integrations
    .command('list')
    .description('The integrations with their current versions (integrations:read; never a secret)')
    .option('--org <org>', ORG_OPTION_HELP)
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print the integrations as a JSON array')
    .action(async (options: Options) => {
      const client = apiKeyClient(io, options, 'integrations:read');
      const org = await organizationOf(client, options);
      const list = await dataOf(
        client.GET('/api/v1/organizations/{org}/integrations', { params: { path: { org } } }),
      );
      if (options.json) return printJson(io, list);
      const rows = list.map((i) => [
        i.presetKey,
        String(i.version.number),
        i.version.verified ? 'yes' : 'no',
        i.version.clientId,
        i.version.scopes.join(' ') || '-',
      ]);
      printLine(io.stdout, formatTable(['PRESET', 'VERSION', 'VERIFIED', 'CLIENT ID', 'SCOPES'], rows));
    });

  clientOptions(
    integrations
      .command('add <preset>')
      .description('Register the OAuth app for a preset (github, google, slack, notion, linear, oidc)'),
  ).action(async (preset: string, options: ClientOptions) => {
    if (!options.clientId) throw new CliError('--client-id is required', EXIT_USER);
    const fields = clientFields({ ...options, clientSecretFile: options.clientSecretFile ?? '-' });
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const integration = await dataOf(
      client.POST('/api/v1/organizations/{org}/integrations', {
        params: { path: { org } },
        body: {
          presetKey: preset,
          clientId: options.clientId,
          clientSecret: fields.clientSecret!,
          ...fields,
        },
      }),
    );
    if (options.json) return printJson(io, integration);
    printLine(io.stdout, `registered ${describe(integration)}`);
    printLine(io.stderr, 'verify it with one authorization in the console before members can connect');
  });

  clientOptions(
    integrations
      .command('update <preset>')
      .description('Change an integration (rotate its secret, scopes, endpoints): a new, unverified version'),
  ).action(async (preset: string, options: ClientOptions) => {
    const fields = clientFields(options);
    if (Object.keys(fields).length === 0) {
      throw new CliError('nothing to change: give --client-secret-file, --client-id, --scopes…', EXIT_USER);
    }
    const client = apiKeyClient(io, options, NEEDS);
    const org = await organizationOf(client, options);
    const integration = await dataOf(
      client.PATCH('/api/v1/organizations/{org}/integrations/{presetKey}', {
        params: { path: { org, presetKey: preset } },
        body: fields,
      }),
    );
    if (options.json) return printJson(io, integration);
    printLine(io.stdout, `updated: ${describe(integration)}`);
  });

  integrations
    .command('remove <preset>')
    .description('Remove an integration and destroy its client secrets')
    .option('--cascade', 'also disconnect the connections made with it')
    .option('--org <org>', ORG_OPTION_HELP)
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'print {} as JSON')
    .action(async (preset: string, options: Options & { cascade?: boolean }) => {
      const client = apiKeyClient(io, options, NEEDS);
      const org = await organizationOf(client, options);
      await client.DELETE('/api/v1/organizations/{org}/integrations/{presetKey}', {
        params: { path: { org, presetKey: preset }, query: options.cascade ? { cascade: 'true' } : {} },
      });
      if (options.json) return printJson(io, {});
      printLine(io.stdout, `removed the ${preset} integration`);
    });
}
