import type { Command } from 'commander';
import stringify from 'safe-stable-stringify';
import { diffDefinitions } from '../modules/supply-chain/version-diff.js';
import { DelegationCycleError, publishOrder, toPublishPayload } from '../shared/config-file/index.js';
import { closestMatch } from '../shared/config-file/suggest.js';
import type { ExpertDefinition } from '../shared/expert/expert-definition.js';
import { loadConfig } from './config-loader.js';
import { printDiff } from './diff-command.js';
import { CliError, EXIT_USER, ReportedError } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { type RegistryClient, RegistryError, type RegistryExpert } from './registry-client.js';
import { type RegistryOptions, registryClient, withRegistryOption } from './registry-options.js';

type PublishOptions = RegistryOptions & { config?: string; dryRun?: boolean };

export function registerPublishCommand(program: Command, io: CliIo): void {
  withRegistryOption(
    program
      .command('publish')
      .description('Publish Experts of cadre.toml to the registry (delegated-to Experts first)')
      .argument('[experts...]', 'Expert names to publish (default: all in the file)')
      .option('-c, --config <path>', 'config file (default: nearest cadre.toml upwards)')
      .option('--dry-run', 'validate and print the payloads without publishing'),
  ).action(async (names: string[], options: PublishOptions) => {
    const { config } = loadConfig(io, options.config, 'left out of what is published');
    const known = Object.keys(config.experts);
    for (const name of names) {
      if (!known.includes(name)) {
        const guess = closestMatch(name, known);
        throw new CliError(
          `no Expert "${name}" in the config`,
          EXIT_USER,
          guess ? `did you mean "${guess}"?` : `Experts in the file: ${known.join(', ') || '(none)'}`,
        );
      }
    }
    if (known.length === 0)
      throw new CliError('the config defines no Experts', EXIT_USER, 'add an [experts."<name>"] table');
    let order: string[];
    try {
      order = publishOrder(config, names);
    } catch (error) {
      if (error instanceof DelegationCycleError)
        throw new CliError(error.message, EXIT_USER, 'remove one delegate of the cycle');
      throw error;
    }
    const payloads = order.map((name) => toPublishPayload(config, name));
    if (options.dryRun) {
      printJson(io, payloads);
      printLine(io.stderr, `dry run: would publish ${payloads.map(keyOf).join(', ')} in this order`);
      return;
    }
    await publishAll(io, registryClient(io, options, true), payloads);
  });
}

const keyOf = (p: ExpertDefinition) => `${p.name}@${p.version}`;

async function publishAll(io: CliIo, client: RegistryClient, payloads: ExpertDefinition[]): Promise<void> {
  const paint = paintFor(io);
  // The lookups below are public reads: without this, a rejected key would report "unchanged" and exit 0.
  let ownOrganization: string | undefined;
  try {
    ownOrganization = await client.checkCredential();
  } catch (error) {
    if (!(error instanceof RegistryError) || error.status !== 401) throw error;
    throw new CliError(
      `the registry rejected the API key: ${error.status} ${error.title}: ${error.reason}`,
      EXIT_USER,
      'an unknown, revoked or expired key: run cadre login for a new one (or set CADRE_API_KEY to a working key)',
    );
  }
  let published = 0;
  let unchanged = 0;
  for (const [i, payload] of payloads.entries()) {
    const key = keyOf(payload);
    printLine(io.stderr, paint.dim(`[${i + 1}/${payloads.length}] ${key} …`));
    // Versions are immutable: re-running after a partial failure skips what is already there,
    // but a changed definition under an existing version must be a new version.
    const existing = await client.find(key);
    // The version holding `latest`: whose the name is, and what this publish changes over it.
    const previous = await client.find(payload.name);
    // Someone else's Expert is never "unchanged" for this key: the name is taken (a public read sees it).
    const owner = (existing ?? previous)?.owner;
    if (owner && ownOrganization && owner.organizationId !== ownOrganization) {
      printLine(
        io.stderr,
        `${paint.red('error')}: ${payload.name} belongs to another organization (${owner.name})`,
      );
      printLine(
        io.stderr,
        `${paint.cyan('hint')}: choose another name in cadre.toml, or publish with a key of that organization`,
      );
      summary(io, published, unchanged, payloads.length - i);
      throw new ReportedError(EXIT_USER);
    }
    if (existing) {
      if (sameDefinition(existing, payload)) {
        unchanged++;
        printLine(io.stdout, `${paint.dim('unchanged')} ${key} (already published)`);
        continue;
      }
      printLine(io.stderr, `${paint.red('error')}: ${key} is already published with a different definition`);
      printLine(
        io.stderr,
        `${paint.cyan('hint')}: versions are immutable; raise "version" of "${payload.name}" in cadre.toml`,
      );
      summary(io, published, unchanged, payloads.length - i);
      throw new ReportedError(EXIT_USER);
    }
    // What this publish changes (a first version has nothing to compare).
    if (previous) printDiff(io, `changes from ${previous.key}:`, diffDefinitions(previous, payload));
    let answer: RegistryExpert;
    try {
      answer = await client.publish(payload);
    } catch (error) {
      if (!(error instanceof RegistryError)) throw error;
      printLine(
        io.stderr,
        `${paint.red('error')}: publishing ${key} failed: ${error.status} ${error.title}: ${error.reason}`,
      );
      summary(io, published, unchanged, payloads.length - i);
      throw new ReportedError(error.exitCode);
    }
    published++;
    printLine(io.stdout, `${paint.bold('published')} ${key}`);
    // The organization's policy held `latest` back: say so, and why (docs/registry.md "Publish policies").
    if (answer.approval) {
      const was = answer.approval.previousVersion ?? 'none';
      printLine(
        io.stdout,
        paint.yellow(
          `  awaiting approval (${answer.approval.id}): latest stays at ${was} until another owner or admin approves`,
        ),
      );
      for (const reason of answer.approval.reasons) printLine(io.stdout, `    widens access: ${reason}`);
    }
  }
  summary(io, published, unchanged, 0);
}

function summary(io: CliIo, published: number, unchanged: number, notDone: number): void {
  const parts = [`${published} published`, `${unchanged} unchanged`];
  if (notDone > 0) parts.push(`${notDone} not published`);
  printLine(io.stderr, parts.join(', '));
}

/** Whether the registry's copy has the definition we would publish (tags move, so they are ignored). */
function sameDefinition(existing: RegistryExpert, payload: ExpertDefinition): boolean {
  return (
    existing.instruction === payload.instruction &&
    (existing.description ?? '') === payload.description &&
    (existing.minRuntimeVersion === undefined || existing.minRuntimeVersion === payload.minRuntimeVersion) &&
    stringify(existing.skills) === stringify(payload.skills) &&
    stringify([...existing.delegates].sort()) === stringify([...(payload.delegates ?? [])].sort())
  );
}
