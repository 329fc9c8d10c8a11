/**
 * What a stdio skill's command line runs, read the way its package launcher reads it (docs/registry.md "What
 * a skill runs"): which packages (`npx -p a@1 b`, `uvx --from a==1 b --with c==2`), from which registry
 * (`--registry=…`, `--index-url …`), and whether an option makes the launcher run a command of its own
 * (`npx -c "curl … | sh"`). Pure: the publish policy checks it, the diff compares it, cadre.toml warns with it.
 */

/** Where a launcher's packages come from: npm's registry or PyPI. */
export type Ecosystem = 'npm' | 'pypi';

/** How one launcher reads its options (only options before the first positional argument are its own). */
interface LauncherRules {
  ecosystem: Ecosystem;
  /** A first argument the launcher needs (`pnpm dlx`, `yarn dlx`, `pipx run`); without it, not a launcher. */
  subcommand?: string;
  /** Options naming the package to run; given, the first positional argument is a program of it. */
  packageOptions: readonly string[];
  /** Options naming more packages to install beside it (`uvx --with`). */
  extraPackageOptions?: readonly string[];
  /** Options that take no value and change nothing of what runs or where it comes from. */
  flags: readonly string[];
  /** Options with a value that change nothing of what runs or where it comes from (`--python 3.12`). */
  valueOptions?: readonly string[];
  /** Options that choose where packages come from. */
  sourceOptions: readonly string[];
  /** Options that run a command line of their own. */
  shellOptions?: readonly string[];
}

const NPX: LauncherRules = {
  ecosystem: 'npm',
  packageOptions: ['-p', '--package'],
  flags: ['-y', '--yes', '--no', '-q', '--quiet', '--silent'],
  sourceOptions: ['--registry', '--userconfig', '--globalconfig'],
  shellOptions: ['-c', '--call'],
};
const PNPM_DLX: LauncherRules = {
  ecosystem: 'npm',
  subcommand: 'dlx',
  packageOptions: ['--package'],
  flags: ['-s', '--silent'],
  sourceOptions: ['--registry', '--config.registry'],
  shellOptions: ['-c', '--shell-mode'],
};

/** Launchers Cadre reads, by command. Any other command has no package Cadre can read (limit it by name). */
const LAUNCHERS: Record<string, LauncherRules> = {
  npx: NPX,
  bunx: {
    ecosystem: 'npm',
    packageOptions: ['-p', '--package'],
    flags: ['--bun', '--silent'],
    sourceOptions: [],
  },
  pnpm: PNPM_DLX,
  pnpx: { ...PNPM_DLX, subcommand: undefined },
  yarn: {
    ecosystem: 'npm',
    subcommand: 'dlx',
    packageOptions: ['-p', '--package'],
    flags: ['-q', '--quiet'],
    sourceOptions: [],
  },
  uvx: {
    ecosystem: 'pypi',
    packageOptions: ['--from'],
    extraPackageOptions: ['--with'],
    flags: ['-q', '--quiet', '-v', '--verbose', '--isolated', '--offline', '-n', '--no-cache', '--refresh'],
    valueOptions: ['--python', '-p'],
    sourceOptions: [
      '--index',
      '--default-index',
      '--index-url',
      '-i',
      '--extra-index-url',
      '--find-links',
      '-f',
      '--no-index',
      '--with-requirements',
      '--with-editable',
    ],
  },
  pipx: {
    ecosystem: 'pypi',
    subcommand: 'run',
    packageOptions: ['--spec'],
    flags: ['--no-cache', '-q', '--quiet', '-v', '--verbose'],
    valueOptions: ['--python'],
    sourceOptions: ['--index-url', '-i', '--pip-args'],
  },
};

/** A skill's command line as its launcher reads it. */
export interface Launch {
  ecosystem: Ecosystem;
  /** Every package spec it installs and runs, as written. */
  packages: string[];
  /** Options choosing where packages come from, as written (`--registry=https://…`). */
  sources: string[];
  /** Options running a command line of their own, with it (`-c curl … | sh`). */
  shellCommands: string[];
  /** Options of the launcher Cadre does not know, as written: they may do either of the above. */
  unknownOptions: string[];
}

interface StdioCommand {
  command: string;
  packageName?: string | undefined;
  args?: string[] | undefined;
}

/**
 * The command line a skill runs: `command packageName args`, or `command args` without a packageName. With
 * both, every argument comes after the package, so it is the program's, never the launcher's (Perstack's
 * runtime refuses a skill with both; one that runs it appends args to the package).
 */
const commandLine = (skill: StdioCommand): string[] =>
  skill.packageName !== undefined ? [skill.packageName, ...(skill.args ?? [])] : (skill.args ?? []);

/** The option's name and its value when written `--name=value`. */
function splitOption(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}

/** npm reads any `--<scope>:registry` and `--registry` spelt in its config forms as a registry. */
const isNpmRegistryOption = (name: string) => /registry$/i.test(name) || name.includes(':registry');

/** What `skill` runs, or undefined when its command is not a launcher Cadre reads (`node`, `docker`, `pnpm i`). */
export function launchOf(skill: StdioCommand): Launch | undefined {
  const rules = Object.hasOwn(LAUNCHERS, skill.command) ? LAUNCHERS[skill.command] : undefined;
  if (!rules) return undefined;
  let args = commandLine(skill);
  if (rules.subcommand !== undefined) {
    if (args[0] !== rules.subcommand) return undefined;
    args = args.slice(1);
  }
  const launch: Launch = {
    ecosystem: rules.ecosystem,
    packages: [],
    sources: [],
    shellCommands: [],
    unknownOptions: [],
  };
  const named: string[] = [];
  const extra: string[] = [];
  let positional: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--' || !arg.startsWith('-')) {
      positional = arg === '--' ? args[i + 1] : arg;
      break; // the rest belongs to the program, not to the launcher
    }
    const [name, inline] = splitOption(arg);
    const value = () => inline ?? args[++i] ?? '';
    if (rules.packageOptions.includes(name)) named.push(value());
    else if (rules.extraPackageOptions?.includes(name)) extra.push(value());
    else if (rules.shellOptions?.includes(name)) launch.shellCommands.push(`${name} ${value()}`);
    else if (
      rules.sourceOptions.includes(name) ||
      (rules.ecosystem === 'npm' && rules.sourceOptions.length > 0 && isNpmRegistryOption(name))
    ) {
      launch.sources.push(inline === undefined && !name.startsWith('--no-') ? `${name} ${value()}` : arg);
    } else if (rules.valueOptions?.includes(name)) value();
    else if (!rules.flags.includes(name)) launch.unknownOptions.push(arg);
  }
  // With a package option, the positional argument is a program of that package, not a package.
  if (named.length > 0) launch.packages.push(...named);
  else if (positional !== undefined) launch.packages.push(positional);
  launch.packages.push(...extra);
  return launch;
}
