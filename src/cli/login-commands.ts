import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { generateApiKeySecret } from '../modules/api-keys/api-key-secret.js';
import { createAdminClient, dataOf } from './admin-client.js';
import { credentialsPath, forgetLogin, storedLogin, storeLogin } from './credentials.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printLine } from './io.js';
import { resolveServiceUrl, URL_OPTION_HELP, unreachableHint } from './service-url.js';

interface Options {
  url?: string;
}

/**
 * `cadre login` and `cadre logout` (docs/api-keys.md, "cadre login"). Login works as a device
 * sign-in: the CLI makes a key's secret, sends its digest, prints a URL and a short code (and opens the
 * browser when it can), and once a signed-in person approves in the console, the digest is their key and the
 * CLI keeps the secret in the credentials file, per server URL. CADRE_API_KEY, when set, still wins.
 */
export function registerLoginCommands(program: Command, io: CliIo): void {
  program
    .command('login')
    .description('Sign in: approve in the browser, and this machine gets a key of its own')
    .option('--name <name>', "the key's name (default: cadre on <this machine>)")
    .option('--no-browser', 'only print the URL and code (for a machine without a browser)')
    .option('--url <url>', URL_OPTION_HELP)
    .action(async (options: Options & { name?: string; browser: boolean }) => {
      const { url, source } = resolveServiceUrl(io, { url: options.url });
      const client = createAdminClient({ baseUrl: url, token: '', unreachableHint: unreachableHint(source) });
      const secret = generateApiKeySecret();
      const started = await dataOf(
        client.POST('/auth/cli-logins', {
          body: {
            name: options.name ?? `cadre on ${hostname()}`,
            keyStart: secret.start,
            keyDigest: secret.digest,
          },
        }),
      );
      const paint = paintFor(io);
      printLine(io.stderr, `Your code: ${paint.bold(started.userCode)}`);
      const opened = options.browser && (await io.openUrl?.(started.verificationUrlComplete));
      printLine(
        io.stderr,
        opened
          ? `Approve it in the browser that opened (or open ${started.verificationUrlComplete}).`
          : `Open ${started.verificationUrl} in a browser, sign in and enter the code.`,
      );
      const deadline = Date.parse(started.expiresAt);
      while (Date.now() < deadline) {
        await sleep(started.interval * 1000);
        const answer = await dataOf(
          client.POST('/auth/cli-logins/poll', { body: { deviceCode: started.deviceCode } }),
        );
        if (answer.status === 'pending') continue;
        if (answer.status === 'denied')
          throw new CliError('the sign-in was refused in the console', EXIT_USER);
        if (answer.status === 'expired') break;
        storeLogin(io, url, {
          key: secret.key,
          apiKeyId: answer.apiKeyId!,
          organization: answer.organization,
          createdAt: new Date().toISOString(),
        });
        printLine(
          io.stdout,
          `Signed in to ${answer.organization?.slug ?? url}; the key is kept in ${credentialsPath(io)}`,
        );
        if (io.env.CADRE_API_KEY) {
          printLine(
            io.stderr,
            paint.yellow('CADRE_API_KEY is set and wins over this login until you unset it.'),
          );
        }
        return;
      }
      throw new CliError(
        'the sign-in request expired before it was approved',
        EXIT_USER,
        'run cadre login again',
      );
    });

  program
    .command('logout')
    .description('Revoke the key cadre login made for this server and forget it')
    .option('--url <url>', URL_OPTION_HELP)
    .action(async (options: Options) => {
      const { url, source } = resolveServiceUrl(io, { url: options.url });
      const stored = storedLogin(io, url);
      if (!stored) {
        printLine(io.stdout, `Not signed in to ${url} with cadre login.`);
        return;
      }
      const client = createAdminClient({
        baseUrl: url,
        token: stored.key,
        unreachableHint: unreachableHint(source),
      });
      // The key revokes itself; one already refused (revoked, expired) or without api-keys:revoke is only
      // forgotten here, and the message says where to revoke it.
      const revoked = await dataOf(
        client.DELETE('/api/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId: stored.apiKeyId } } }),
      ).then(
        () => true,
        (error: unknown) => {
          if (error instanceof CliError && error.exitCode === EXIT_USER) return error.message;
          throw error;
        },
      );
      forgetLogin(io, url);
      if (revoked === true) printLine(io.stdout, `Signed out of ${url}: key ${stored.apiKeyId} revoked.`);
      else {
        printLine(io.stdout, `Signed out of ${url} (the key was forgotten here).`);
        printLine(
          io.stderr,
          `It could not revoke itself (${revoked}); revoke ${stored.apiKeyId} in the console if it still works.`,
        );
      }
    });
}
