import type { Command } from 'commander';
import { integrityOf } from '../modules/supply-chain/integrity.js';
import { type DefinitionDiff, diffDefinitions, formatDiff } from '../modules/supply-chain/version-diff.js';
import { toPublishPayload } from '../shared/config-file/index.js';
import { parseExpertKey } from '../shared/expert/expert-definition.js';
import { loadConfig } from './config-loader.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import { checkKey, type RegistryOptions, registryClient, withRegistryOption } from './registry-options.js';

type DiffOptions = RegistryOptions & { config?: string; json?: boolean };

/** Prints a diff's lines, the widening ones (and their reasons) painted so a reviewer sees them first. */
export function printDiff(io: CliIo, heading: string, diff: DefinitionDiff): void {
  const paint = paintFor(io);
  printLine(io.stdout, paint.bold(heading));
  for (const line of formatDiff(diff)) {
    printLine(io.stdout, line.startsWith('!') || line.startsWith('    widens') ? paint.red(line) : line);
  }
  if (diff.widensAccess) printLine(io.stdout, paint.red('this change widens what the Expert can reach'));
}

/**
 * `cadre diff name@a name@b`: the registry's diff of two published versions. `cadre diff name@a`: that
 * published version against the local cadre.toml's definition of the name (what a publish would change).
 */
export function registerDiffCommand(program: Command, io: CliIo): void {
  withRegistryOption(
    program
      .command('diff')
      .description('Show what changed between two versions, or between a published version and cadre.toml')
      .argument('<from>', 'Expert key, e.g. writer@1.0.0')
      .argument('[to]', 'Expert key of the same name (default: the local cadre.toml definition)')
      .option('-c, --config <path>', 'config file, when comparing with it (default: nearest cadre.toml)')
      .option('--json', 'machine-readable output'),
  ).action(async (from: string, to: string | undefined, options: DiffOptions) => {
    checkKey(from);
    const client = registryClient(io, options, false);
    if (to !== undefined) {
      checkKey(to);
      const diff = await client.diff(from, to);
      if (options.json) return printJson(io, diff);
      return printDiff(io, `${diff.from} → ${diff.to}`, diff);
    }
    const { config } = loadConfig(io, options.config, 'not compared');
    const { name } = parseExpertKey(from);
    if (!Object.hasOwn(config.experts, name)) {
      throw new CliError(
        `no Expert "${name}" in the config`,
        EXIT_USER,
        'give a second key to compare two versions',
      );
    }
    const local = toPublishPayload(config, name);
    const published = await client.get(from);
    const diff = diffDefinitions(published, local);
    const localKey = `${local.name}@${local.version} (cadre.toml)`;
    if (options.json) {
      return printJson(io, {
        from: published.key,
        to: localKey,
        fromIntegrity: published.integrity,
        toIntegrity: integrityOf(local),
        ...diff,
      });
    }
    printDiff(io, `${published.key} → ${localKey}`, diff);
  });
}
