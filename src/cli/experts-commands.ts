import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ExpertStatus } from '../shared/expert/expert-definition.js';
import { tagSchema } from '../shared/expert/expert-definition.js';
import { CliError, EXIT_USER } from './errors.js';
import { type CliIo, paintFor, printJson, printLine } from './io.js';
import type { ListQuery } from './registry-client.js';
import { checkKey, type RegistryOptions, registryClient, withRegistryOption } from './registry-options.js';
import { formatTable } from './table.js';

type JsonOption = RegistryOptions & { json?: boolean };

function intOption(min: number, max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return n;
  };
}

const LABEL_WIDTH = 'minRuntimeVersion: '.length;

export function registerExpertsCommands(program: Command, io: CliIo): void {
  const experts = program.command('experts').description('Browse and manage Experts in the registry');

  withRegistryOption(
    experts
      .command('list')
      .description('List published Experts (latest version of each)')
      .option('--filter <prefix>', 'case-insensitive name prefix')
      .option('--organization-id <id>', 'only Experts of this organization')
      .addOption(
        new Option('--sort <field>', 'sort field').choices(['name', 'version', 'createdAt', 'updatedAt']),
      )
      .addOption(new Option('--order <order>', 'sort order').choices(['asc', 'desc']))
      .option('--take <n>', 'page size, 1 to 100', intOption(1, 100))
      .option('--skip <n>', 'offset', intOption(0, Number.MAX_SAFE_INTEGER))
      .option('--json', 'machine-readable output'),
  ).action(async (options: JsonOption & Omit<ListQuery, 'organizationId'> & { organizationId?: string }) => {
    const { filter, organizationId, sort, order, take, skip } = options;
    const result = await registryClient(io, options, false).list({
      filter,
      organizationId,
      sort,
      order,
      take,
      skip,
    });
    if (options.json) return printJson(io, result);
    const rows = result.data.experts.map((e) => [
      e.name,
      e.version,
      e.tags.join(','),
      e.owner?.name ?? '',
      e.description ?? '',
    ]);
    printLine(io.stdout, formatTable(['NAME', 'VERSION', 'TAGS', 'OWNER', 'DESCRIPTION'], rows));
    const total = result.meta?.total ?? rows.length;
    printLine(io.stderr, paintFor(io).dim(`${rows.length} of ${total} Expert${total === 1 ? '' : 's'}`));
  });

  withRegistryOption(
    experts
      .command('info')
      .description('Show one Expert (name, name@version or name@tag)')
      .argument('<key>', 'Expert key')
      .option('--json', 'machine-readable output'),
  ).action(async (key: string, options: JsonOption) => {
    checkKey(key);
    const expert = await registryClient(io, options, false).get(key);
    if (options.json) return printJson(io, expert);
    const paint = paintFor(io);
    // One column past the longest label ("minRuntimeVersion:"), so every value is preceded by a space.
    const field = (label: string, value: string) =>
      printLine(io.stdout, `${paint.bold(`${label}:`.padEnd(LABEL_WIDTH))}${value}`);
    field('key', expert.key);
    field('status', expert.status ?? '');
    field('tags', expert.tags.join(', '));
    field('owner', expert.owner?.name ?? '');
    field('minRuntimeVersion', expert.minRuntimeVersion ?? '');
    field('description', expert.description ?? '');
    field('delegates', expert.delegates.join(', ') || '(none)');
    field('skills', Object.keys(expert.skills).join(', '));
    field('published', expert.createdAt ?? '');
    field('integrity', expert.integrity);
    printLine(io.stdout, `${paint.bold('instruction:')}\n${expert.instruction ?? ''}`);
  });

  withRegistryOption(
    experts
      .command('versions')
      .description('List every version of an Expert')
      .argument('<name>', 'Expert name (a version part is ignored)')
      .option('--json', 'machine-readable output'),
  ).action(async (name: string, options: JsonOption) => {
    checkKey(name);
    const result = await registryClient(io, options, false).versions(name);
    if (options.json) return printJson(io, result);
    const rows = result.versions.map((v) => [v.version, (v.tags ?? []).join(',')]);
    printLine(io.stdout, formatTable(['VERSION', 'TAGS'], rows));
  });

  withRegistryOption(
    experts
      .command('dependents')
      .description('List the versions that delegate to a version, directly and transitively')
      .argument('<key>', 'Expert key, e.g. writer@1.0.0')
      .option('--json', 'machine-readable output'),
  ).action(async (key: string, options: JsonOption) => {
    checkKey(key);
    const result = await registryClient(io, options, false).dependents(key);
    if (options.json) return printJson(io, result);
    // Not a table: paths are longer than its 60-character cells, and are the point of the answer.
    printLine(io.stdout, 'DEPTH  PATH (dependent → … → this version)');
    for (const d of result.data.dependents)
      printLine(io.stdout, `${String(d.depth).padEnd(5)}  ${d.path.join(' → ')}`);
    const { total, truncated, limit } = result.meta;
    const note = truncated ? ` (the first ${limit}; more delegate to it)` : '';
    printLine(
      io.stderr,
      paintFor(io).dim(`${total} dependent${total === 1 ? '' : 's'} of ${result.data.key}${note}`),
    );
  });

  const statusCommand = (command: string, status: ExpertStatus, description: string) =>
    withRegistryOption(
      experts.command(command).description(description).argument('<key>', 'Expert key, e.g. writer@1.0.0'),
    ).action(async (key: string, options: RegistryOptions) => {
      checkKey(key);
      await registryClient(io, options, true).update(key, { status });
      printLine(io.stdout, `${key} is now ${status}`);
    });
  statusCommand('deprecate', 'deprecated', 'Mark a version deprecated (still usable, discouraged)');
  statusCommand('undeprecate', 'available', 'Make a deprecated version available again');
  statusCommand('disable', 'disabled', 'Disable a version (final: it cannot be re-enabled)');

  withRegistryOption(
    experts
      .command('tag')
      .description("Replace a version's custom tags")
      .argument('<key>', 'Expert key, e.g. writer@1.0.0')
      .argument('[tags...]', 'the new tags (at most 8; "latest" is managed by the registry)')
      .option('--clear', 'remove every custom tag'),
  ).action(async (key: string, tags: string[], options: RegistryOptions & { clear?: boolean }) => {
    checkKey(key);
    if (tags.length === 0 && !options.clear) {
      throw new CliError(
        'give the new tags, or --clear to remove them all',
        EXIT_USER,
        `cadre experts tag ${key} stable`,
      );
    }
    if (tags.length > 0 && options.clear) throw new CliError('give tags or --clear, not both');
    for (const tag of tags) {
      const check = tagSchema.safeParse(tag);
      if (!check.success)
        throw new CliError(`tag "${tag}" ${check.error.issues[0]?.message ?? 'is invalid'}`);
    }
    await registryClient(io, options, true).update(key, { tags });
    printLine(io.stdout, tags.length > 0 ? `${key} tags: ${tags.join(', ')}` : `${key} has no custom tags`);
  });

  withRegistryOption(
    experts
      .command('delete')
      .description('Delete one version (only the organization owner; blocked while others delegate to it)')
      .argument('<key>', 'Expert key with its exact version, e.g. writer@1.0.0')
      .option('-y, --yes', 'do not ask for confirmation'),
  ).action(async (key: string, options: RegistryOptions & { yes?: boolean }) => {
    // Deleting is irreversible and its number stays reserved, so the version must be explicit.
    checkKey(key, { requireVersion: true });
    const client = registryClient(io, options, true);
    if (!options.yes) {
      if (!io.confirm)
        throw new CliError(`refusing to delete ${key} without confirmation`, EXIT_USER, 'add --yes');
      if (!(await io.confirm(`Delete ${key}? Its version number can never be published again.`))) {
        throw new CliError('not deleted');
      }
    }
    await client.remove(key);
    printLine(io.stdout, `deleted ${key}`);
  });
}
