import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { integrityOf } from '../modules/supply-chain/integrity.js';
import type { CadreConfig } from '../shared/config-file/index.js';
import { tryParseExpertKey } from '../shared/expert/expert-definition.js';
import { own } from '../shared/own.js';
import { findConfigFile, loadConfig } from './config-loader.js';
import { CliError, EXIT_USER, ReportedError } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import {
  formatLockfile,
  LOCK_FILE_NAME,
  LOCKFILE_VERSION,
  type LockedExpert,
  type Lockfile,
  parseLockfile,
} from './lockfile.js';
import { type RegistryClient, RegistryError, type RegistryExpert } from './registry-client.js';
import { type RegistryOptions, registryClient, withRegistryOption } from './registry-options.js';

type LockOptions = RegistryOptions & { config?: string; json?: boolean };

/** Most versions one lock may hold: a bound on what a registry answering in circles could make us fetch. */
const MAX_LOCKED_VERSIONS = 1000;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** A registry read that may find nothing: 404 (deleted or never published) and 410 (taken down) are answers. */
type Lookup = { expert: RegistryExpert } | { problem: string };

async function lookUp(client: RegistryClient, key: string): Promise<Lookup> {
  try {
    return { expert: await client.get(key) };
  } catch (error) {
    if (!(error instanceof RegistryError)) throw error;
    if (error.status === 404) return { problem: `${key}: not in the registry (deleted, or never published)` };
    if (error.status === 410) return { problem: `${key}: taken down by the operator (${error.reason})` };
    throw error;
  }
}

/** The record's digest recomputed from its own fields (docs/registry.md "Integrity"), against the one it claims. */
const selfConsistent = (expert: RegistryExpert) => integrityOf(expert) === expert.integrity;

interface Root {
  name: string;
  version: string;
  source: 'config' | 'registry';
  delegates: string[];
}

/**
 * Resolves every delegate of `roots`, transitively, to an exact version (one registry read per distinct key
 * asked for). Problems (a delegate deleted, taken down, disabled, or whose record does not match its digest)
 * are collected, not thrown, so one run names all of them.
 */
async function resolveLock(client: RegistryClient, roots: Root[]) {
  const experts: Record<string, LockedExpert> = {};
  const resolved = new Map<string, string | undefined>();
  const problems: string[] = [];
  const warnings: string[] = [];

  async function resolveKey(requested: string): Promise<string | undefined> {
    if (resolved.has(requested)) return resolved.get(requested);
    const found = await lookUp(client, requested);
    if ('problem' in found) {
      resolved.set(requested, undefined);
      problems.push(found.problem);
      return undefined;
    }
    const { expert } = found;
    const exact = `${expert.name}@${expert.version}`;
    resolved.set(requested, exact);
    if (Object.hasOwn(experts, exact)) return exact;
    if (Object.keys(experts).length >= MAX_LOCKED_VERSIONS) {
      throw new CliError(`more than ${MAX_LOCKED_VERSIONS} versions to lock; refusing to go on`);
    }
    if (expert.status === 'disabled') problems.push(`${exact}: disabled by its owner`);
    if (expert.status === 'deprecated') warnings.push(`${exact}: deprecated by its owner`);
    if (!selfConsistent(expert))
      problems.push(`${exact}: the registry's record does not match its own digest`);
    const entry: LockedExpert = { integrity: expert.integrity, delegates: {} };
    experts[exact] = entry;
    for (const delegate of expert.delegates) {
      const to = await resolveKey(delegate);
      if (to) entry.delegates[delegate] = to;
    }
    return exact;
  }

  const lockedRoots: Lockfile['roots'] = {};
  for (const root of roots) {
    const delegates: Record<string, string> = {};
    for (const delegate of root.delegates) {
      const to = await resolveKey(delegate);
      if (to) delegates[delegate] = to;
    }
    lockedRoots[root.name] = { version: root.version, source: root.source, delegates };
  }
  const lock: Lockfile = { lockfileVersion: LOCKFILE_VERSION, roots: lockedRoots, experts };
  return { lock, problems, warnings };
}

/**
 * Floating delegates (a bare name, `@latest`, a custom tag) that no longer resolve to the version locked for
 * them: the lock no longer says what resolving them gives (docs/registry.md "Lockfile"). Each distinct key is
 * read once; problems name the locked version (or root) that delegates, in key order.
 */
async function floatingDrift(client: RegistryClient, lock: Lockfile): Promise<string[]> {
  const owners: Array<[string, Record<string, string>]> = [
    ...Object.entries(lock.experts).map(([key, entry]): [string, Record<string, string>] => [
      key,
      entry.delegates,
    ]),
    ...Object.entries(lock.roots).map(([name, root]): [string, Record<string, string>] => [
      name,
      root.delegates,
    ]),
  ];
  const now = new Map<string, Promise<Lookup>>();
  const problems: string[] = [];
  for (const [owner, delegates] of owners.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const [requested, locked] of Object.entries(delegates)) {
      const parsed = tryParseExpertKey(requested);
      if (!parsed.ok || parsed.key.version !== undefined) continue; // an exact version cannot float
      if (!now.has(requested)) now.set(requested, lookUp(client, requested));
      const found = await now.get(requested)!;
      if ('problem' in found) {
        problems.push(
          `${owner}: delegate "${requested}" no longer resolves (${found.problem}), locked ${locked}`,
        );
        continue;
      }
      const resolved = `${found.expert.name}@${found.expert.version}`;
      if (resolved !== locked) {
        problems.push(
          `${owner}: delegate "${requested}" now resolves to ${resolved}, locked ${locked} (run cadre lock)`,
        );
      }
    }
  }
  return problems;
}

/** The config file to read, if any: `--config`, else the nearest cadre.toml (none is fine for published roots). */
function configPath(io: CliIo, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return resolve(io.cwd, explicit);
  return findConfigFile(io.cwd);
}

/** The roots a `cadre lock` run names: Experts of the config file by name, published versions by exact key. */
async function rootsOf(
  client: RegistryClient,
  config: CadreConfig | undefined,
  args: string[],
): Promise<{ roots: Root[]; problems: string[] }> {
  const problems: string[] = [];
  const roots: Root[] = [];
  const names = args.length > 0 ? args : Object.keys(config?.experts ?? {});
  if (names.length === 0) {
    throw new CliError(
      'nothing to lock: the config defines no Experts',
      EXIT_USER,
      'name a published version: cadre lock writer@1.2.0',
    );
  }
  for (const arg of names) {
    const local = config && own(config.experts, arg);
    if (local) {
      roots.push({ name: arg, version: local.version, source: 'config', delegates: local.delegates });
      continue;
    }
    const parsed = tryParseExpertKey(arg);
    if (!parsed.ok)
      throw new CliError(`"${arg}" is neither an Expert of the config nor a valid key: ${parsed.reason}`);
    if (parsed.key.version === undefined) {
      throw new CliError(
        `"${arg}" is not an Expert of the config, and names no exact version`,
        EXIT_USER,
        `name a published version, e.g. ${parsed.key.name}@1.0.0 (see: cadre experts versions ${parsed.key.name})`,
      );
    }
    const found = await lookUp(client, arg);
    if ('problem' in found) {
      problems.push(found.problem);
      continue;
    }
    const { expert } = found;
    roots.push({ name: expert.name, version: expert.version, source: 'registry', delegates: [arg] });
  }
  return { roots, problems };
}

/**
 * `cadre lock [EXPERT…]`: resolves delegates transitively to exact versions with their integrity and writes
 * cadre.lock beside the config file (docs/registry.md "Lockfile"). `cadre verify`: checks every locked version
 * against the registry; one line per problem and exit 1, or a summary and exit 0.
 */
export function registerLockCommands(program: Command, io: CliIo): void {
  withRegistryOption(
    program
      .command('lock')
      .description("Resolve Experts' delegates to exact versions with their digests and write cadre.lock")
      .argument(
        '[experts...]',
        'Experts of the config by name, or published versions (name@1.2.3); default: every Expert of the config',
      )
      .option(
        '-c, --config <path>',
        'config file (default: nearest cadre.toml upwards); cadre.lock is written beside it',
      )
      .option('--json', 'print the lock to stdout as well'),
  ).action(async (args: string[], options: LockOptions) => {
    const path = configPath(io, options.config);
    const config = path && existsSync(path) ? loadConfig(io, path).config : undefined;
    if (options.config !== undefined && !config)
      throw new CliError(`config file ${options.config} does not exist`);
    const client = registryClient(io, options, false);
    const { roots, problems: rootProblems } = await rootsOf(client, config, args);
    // A published root is locked like any delegate: its own exact key is its one "delegate".
    const { lock, problems, warnings } = await resolveLock(client, roots);
    for (const root of roots.filter((r) => r.source === 'registry')) {
      const entry = lock.roots[root.name]!;
      entry.delegates = { ...lock.experts[`${root.name}@${root.version}`]?.delegates };
    }
    const paint = paintFor(io);
    for (const warning of warnings) printLine(io.stderr, `${paint.yellow('warning')}: ${warning}`);
    const all = [...rootProblems, ...problems];
    if (all.length > 0) {
      for (const problem of all) printLine(io.stderr, `${paint.red('✗')} ${problem}`);
      printLine(
        io.stderr,
        `${paint.red('error')}: cannot lock: ${plural(all.length, 'problem')}; nothing written`,
      );
      throw new ReportedError(EXIT_USER);
    }
    const target = join(path && config ? dirname(path) : io.cwd, LOCK_FILE_NAME);
    writeFileSync(target, formatLockfile(lock));
    if (options.json) printJson(io, lock);
    const count = Object.keys(lock.experts).length;
    printLine(
      io.stderr,
      `locked ${plural(roots.length, 'root')} and ${plural(count, 'registry version')} in ${target}`,
    );
  });

  withRegistryOption(
    program
      .command('verify')
      .description('Check every version in cadre.lock against the registry (exit 1 naming each problem)')
      .option(
        '-c, --config <path>',
        'config file; cadre.lock is read beside it (default: nearest cadre.toml upwards)',
      )
      .option(
        '--lock <path>',
        'the lock file (default: cadre.lock beside the config, else in this directory)',
      )
      .option('--json', 'machine-readable output'),
  ).action(async (options: LockOptions & { lock?: string }) => {
    const path = configPath(io, options.config);
    const config = path && existsSync(path) ? loadConfig(io, path).config : undefined;
    const lockPath = options.lock
      ? resolve(io.cwd, options.lock)
      : join(path && config ? dirname(path) : io.cwd, LOCK_FILE_NAME);
    if (!existsSync(lockPath)) {
      throw new CliError(`no ${LOCK_FILE_NAME} at ${lockPath}`, EXIT_USER, 'write one with: cadre lock');
    }
    const parsed = parseLockfile(readFileSync(lockPath, 'utf8'));
    if (!parsed.ok)
      throw new CliError(
        `${lockPath} cannot be read: ${parsed.reason}`,
        EXIT_USER,
        'write it again with: cadre lock',
      );
    const { lock } = parsed;
    const client = registryClient(io, options, false);
    const problems: string[] = [];
    const notes: string[] = [];
    for (const [key, entry] of Object.entries(lock.experts).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )) {
      const found = await lookUp(client, key);
      if ('problem' in found) {
        problems.push(found.problem);
        continue;
      }
      const { expert } = found;
      if (expert.status === 'disabled') problems.push(`${key}: disabled by its owner`);
      if (expert.status === 'deprecated') notes.push(`${key}: deprecated by its owner`);
      if (expert.integrity !== entry.integrity) {
        problems.push(
          `${key}: digest changed: locked ${entry.integrity}, the registry has ${expert.integrity}`,
        );
      } else if (!selfConsistent(expert)) {
        problems.push(`${key}: the registry's record does not match its own digest`);
      }
    }
    problems.push(...(await floatingDrift(client, lock)));
    // The config's Experts still delegate to what was locked (else the lock is stale, not the registry wrong).
    for (const [name, root] of Object.entries(lock.roots)) {
      if (root.source !== 'config' || !config) continue;
      const local = own(config.experts, name);
      if (!local) {
        problems.push(`${name}: locked from the config, which no longer defines it (run cadre lock)`);
        continue;
      }
      const locked = Object.keys(root.delegates).sort().join(', ');
      const now = [...local.delegates].sort().join(', ');
      if (local.version !== root.version || locked !== now) {
        problems.push(`${name}: the config changed since it was locked (run cadre lock)`);
      }
    }
    const checked = Object.keys(lock.experts).length;
    if (options.json) printJson(io, { ok: problems.length === 0, checked, problems, notes });
    const paint = paintFor(io);
    if (!options.json) {
      for (const note of notes) printLine(io.stderr, `${paint.yellow('note')}: ${note}`);
      for (const problem of problems) printLine(io.stdout, `${paint.red('✗')} ${problem}`);
    }
    if (problems.length > 0) {
      printLine(
        io.stderr,
        `${paint.red('error')}: ${plural(problems.length, 'problem')} in ${lockPath} (${plural(checked, 'version')} checked)`,
      );
      throw new ReportedError(EXIT_USER);
    }
    printLine(
      options.json ? io.stderr : io.stdout,
      `${LOCK_FILE_NAME} verified: ${plural(checked, 'version')} match the registry (${plural(Object.keys(lock.roots).length, 'root')})`,
    );
  });
}
