import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  type CadreConfig,
  type Diagnostic,
  formatDiagnostics,
  parseConfig,
} from '../shared/config-file/index.js';
import { CliError, EXIT_USER, ReportedError } from './errors.js';
import { type CliIo, paintFor, printLine } from './io.js';

export const CONFIG_FILE_NAME = 'cadre.toml';

/** The nearest cadre.toml in `from` or one of its ancestors, like git and npm find their files. */
export function findConfigFile(from: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, CONFIG_FILE_NAME);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function resolveConfigPath(io: CliIo, explicit: string | undefined): string {
  if (explicit !== undefined) {
    const path = resolve(io.cwd, explicit);
    if (!existsSync(path)) throw new CliError(`config file ${explicit} does not exist`);
    return path;
  }
  const found = findConfigFile(io.cwd);
  if (!found) {
    throw new CliError(
      `no ${CONFIG_FILE_NAME} found in ${io.cwd} or any parent directory`,
      EXIT_USER,
      `create one (see docs/config.md) or pass --config PATH`,
    );
  }
  return found;
}

export type LoadedConfig = { path: string; text: string; config: CadreConfig };
export type ConfigCheck = { path: string; shown: string; text: string } & (
  | { ok: true; config: CadreConfig; warnings: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] }
);

export function checkConfig(io: CliIo, explicit: string | undefined): ConfigCheck {
  return checkConfigFile(io, resolveConfigPath(io, explicit));
}

/** Reads and validates one file at an absolute path. */
export function checkConfigFile(io: CliIo, path: string): ConfigCheck {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  // Diagnostics name the file as the user would: relative to where they are when that is shorter.
  const shown = path.startsWith(`${io.cwd}/`) ? path.slice(io.cwd.length + 1) : path;
  return { path, shown, text, ...parseConfig(text, { path: shown }) };
}

/**
 * Loads a valid config, or prints its diagnostics and stops the command with exit code 1. Warnings (keys
 * Cadre does not define) are printed and the command goes on without those keys: `ignoring` says what
 * that means for the command (publish: they are not sent).
 */
export function loadConfig(io: CliIo, explicit: string | undefined, ignoring = 'ignored'): LoadedConfig {
  const checked = checkConfig(io, explicit);
  if (checked.ok) {
    if (checked.warnings.length > 0) {
      printDiagnostics(io, checked.warnings, checked.text);
      const keys = checked.warnings.map((warning) => warning.path).join(', ');
      printLine(
        io.stderr,
        `${paintFor(io).yellow('warning')}: keys Cadre does not define are ${ignoring}: ${keys}`,
      );
    }
    return { path: checked.path, text: checked.text, config: checked.config };
  }
  printDiagnostics(io, checked.diagnostics, checked.text);
  throw new ReportedError(EXIT_USER);
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The diagnostics of one file, then its summary line: errors and warnings counted apart. */
export function printDiagnostics(io: CliIo, diagnostics: Diagnostic[], text: string): void {
  printLine(io.stderr, formatDiagnostics(diagnostics, text, paintFor(io)));
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const file = diagnostics[0]?.file ?? CONFIG_FILE_NAME;
  printLine(io.stderr);
  printLine(
    io.stderr,
    `${plural(errors, 'error')}, ${plural(diagnostics.length - errors, 'warning')} in ${file}`,
  );
}
