import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { stringify as stringifyToml } from 'smol-toml';
import {
  configJsonSchema,
  PROVIDER_NAMES,
  type ProviderName,
  SCHEMA_FILE_NAME,
  starterConfig,
} from '../shared/config-file/index.js';
import { closestMatch } from '../shared/config-file/suggest.js';
import {
  CONFIG_FILE_NAME,
  type ConfigCheck,
  checkConfig,
  checkConfigFile,
  loadConfig,
  printDiagnostics,
} from './config-loader.js';
import { checkEnvironment } from './env-check.js';
import { CliError, EXIT_USER, ReportedError } from './errors.js';
import { type CliIo, paintFor, printJson, printLine, processIo } from './io.js';

type ConfigOptions = { config?: string; json?: boolean };

/** `cadre config validate|show|schema`. */
export function registerConfigCommands(program: Command, io: CliIo = processIo()): void {
  const config = program.command('config').description('Check and inspect cadre.toml');

  config
    .command('validate')
    .description('Validate cadre.toml files and report every problem with its position')
    .argument('[paths...]', 'files or directories (a directory: its cadre.toml, else every *.toml in it)')
    .option('-c, --config <path>', 'config file (default: nearest cadre.toml upwards)')
    .option('--strict', 'warnings (keys Cadre does not define) fail the check too, for CI')
    .option('--json', 'machine-readable output')
    .action((paths: string[], options: ConfigOptions & { strict?: boolean }) => {
      const files = paths.length > 0 ? paths.flatMap((path) => configFilesAt(io, path)) : [undefined];
      const checks = files.map((file) =>
        file === undefined ? checkConfig(io, options.config) : checkConfigFile(io, file),
      );
      const failed = (check: ConfigCheck) =>
        !check.ok || (options.strict === true && check.warnings.length > 0);
      if (options.json) {
        const reports = checks.map((check) =>
          check.ok
            ? {
                valid: !failed(check),
                file: check.path,
                experts: Object.keys(check.config.experts),
                diagnostics: check.warnings,
              }
            : { valid: false, file: check.path, diagnostics: check.diagnostics },
        );
        printJson(io, reports.length === 1 && paths.length === 0 ? reports[0] : reports);
      } else {
        for (const check of checks) printCheck(io, check, options.strict === true);
        if (checks.length > 1) {
          const count = (severity: string) =>
            checks.reduce(
              (sum, check) =>
                sum +
                (check.ok ? check.warnings : check.diagnostics).filter((d) => d.severity === severity).length,
              0,
            );
          const bad = checks.filter(failed).length;
          printLine(
            io.stderr,
            `${checks.length} files checked: ${bad} failed; ${count('error')} errors, ${count('warning')} warnings`,
          );
        }
      }
      if (checks.some(failed)) throw new ReportedError(EXIT_USER);
    });

  // `cadre init` and `cadre config init` are one command.
  for (const parent of [program, config]) registerInit(parent.command('init'), io);

  config
    .command('show')
    .description('Print the resolved configuration with every default applied')
    .option('-c, --config <path>', 'config file (default: nearest cadre.toml upwards)')
    .option('--json', 'print JSON instead of TOML')
    .action((options: ConfigOptions) => {
      const loaded = loadConfig(io, options.config);
      const paint = paintFor(io);
      for (const warning of checkEnvironment(loaded.config, loaded.path, io.env)) {
        printLine(io.stderr, `${paint.yellow('warning')}: ${warning.message}`);
      }
      if (options.json) printJson(io, loaded.config);
      else printLine(io.stdout, stringifyToml(loaded.config));
    });

  config
    .command('schema')
    .description('Print the JSON Schema of cadre.toml (for editor validation and completion)')
    .action(() => printJson(io, configJsonSchema()));
}

/** The files a path names: a file itself; a directory's cadre.toml, or else every *.toml in it. */
function configFilesAt(io: CliIo, path: string): string[] {
  const full = resolve(io.cwd, path);
  if (!existsSync(full)) throw new CliError(`${path} does not exist`);
  if (!statSync(full).isDirectory()) return [full];
  if (existsSync(join(full, CONFIG_FILE_NAME))) return [join(full, CONFIG_FILE_NAME)];
  const tomls = readdirSync(full)
    .filter((name) => name.endsWith('.toml'))
    .sort()
    .map((name) => join(full, name));
  if (tomls.length === 0) throw new CliError(`no .toml files in ${path}`);
  return tomls;
}

/** One file's result: its diagnostics and summary, or that it is valid. */
function printCheck(io: CliIo, check: ConfigCheck, strict: boolean): void {
  const paint = paintFor(io);
  if (!check.ok) {
    printDiagnostics(io, check.diagnostics, check.text);
    return;
  }
  if (check.warnings.length > 0) printDiagnostics(io, check.warnings, check.text);
  const names = Object.keys(check.config.experts);
  const experts =
    names.length === 0
      ? 'no Experts'
      : `${names.length} Expert${names.length === 1 ? '' : 's'} (${names.join(', ')})`;
  if (strict && check.warnings.length > 0) {
    printLine(io.stderr, `${paint.bold(check.shown)} fails --strict: warnings count as errors`);
    return;
  }
  printLine(
    io.stdout,
    `${paint.bold(check.shown)} is valid: ${experts}; provider ${check.config.provider.providerName}; model ${check.config.model}`,
  );
}

/** `cadre init`: a commented starter cadre.toml and its JSON Schema beside it. */
function registerInit(command: Command, io: CliIo): void {
  command
    .description('Write a commented starter cadre.toml (one Expert with the base skill)')
    .option('-c, --config <path>', 'where to write it', CONFIG_FILE_NAME)
    .option('--provider <name>', `the LLM provider: ${PROVIDER_NAMES.join(', ')}`, 'anthropic')
    .option('--force', 'overwrite an existing file')
    .action((options: { config: string; provider: string; force?: boolean }) => {
      if (!(PROVIDER_NAMES as readonly string[]).includes(options.provider)) {
        const guess = closestMatch(options.provider, [...PROVIDER_NAMES]);
        throw new CliError(
          `unknown provider "${options.provider}"`,
          EXIT_USER,
          guess ? `did you mean "${guess}"?` : `use one of ${PROVIDER_NAMES.join(', ')}`,
        );
      }
      const path = resolve(io.cwd, options.config);
      if (existsSync(path) && !options.force) {
        throw new CliError(`${options.config} already exists`, EXIT_USER, 'pass --force to overwrite it');
      }
      const schemaPath = join(dirname(path), SCHEMA_FILE_NAME);
      writeFileSync(path, starterConfig(options.provider as ProviderName, SCHEMA_FILE_NAME));
      writeFileSync(schemaPath, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
      printLine(
        io.stdout,
        `wrote ${options.config} and ${SCHEMA_FILE_NAME} (for editors); check it: cadre config validate`,
      );
    });
}
