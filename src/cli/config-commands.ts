import type { Command } from 'commander';
import { stringify as stringifyToml } from 'smol-toml';
import { configJsonSchema } from '../config-file/index.js';
import { checkConfig, loadConfig, printDiagnostics } from './config-loader.js';
import { checkEnvironment } from './env-check.js';
import { EXIT_USER, ReportedError } from './errors.js';
import { type CliIo, paintFor, printJson, printLine, processIo } from './io.js';

type ConfigOptions = { config?: string; json?: boolean };

/** `cadre config validate|show|schema`. */
export function registerConfigCommands(program: Command, io: CliIo = processIo()): void {
  const config = program.command('config').description('Check and inspect cadre.toml');

  config
    .command('validate')
    .description('Validate cadre.toml and report every problem with its position')
    .option('-c, --config <path>', 'config file (default: nearest cadre.toml upwards)')
    .option('--json', 'machine-readable output')
    .action((options: ConfigOptions) => {
      const checked = checkConfig(io, options.config);
      if (options.json) {
        printJson(
          io,
          checked.ok
            ? { valid: true, file: checked.path, experts: Object.keys(checked.config.experts) }
            : { valid: false, file: checked.path, diagnostics: checked.diagnostics },
        );
        if (!checked.ok) throw new ReportedError(EXIT_USER);
        return;
      }
      if (!checked.ok) {
        printDiagnostics(io, checked.diagnostics, checked.text);
        throw new ReportedError(EXIT_USER);
      }
      const names = Object.keys(checked.config.experts);
      const experts =
        names.length === 0
          ? 'no Experts'
          : `${names.length} Expert${names.length === 1 ? '' : 's'} (${names.join(', ')})`;
      const paint = paintFor(io);
      printLine(
        io.stdout,
        `${paint.bold(checked.shown)} is valid: ${experts}; provider ${checked.config.provider.providerName}; model ${checked.config.model}`,
      );
    });

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
