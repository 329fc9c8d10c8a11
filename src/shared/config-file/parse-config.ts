import { parse as parseToml, TomlError } from 'smol-toml';
import { launchOf } from '../expert/launcher.js';
import { nestedDeeperThan } from '../nesting.js';
import { findDelegationCycle, localDelegates } from './delegation.js';
import { type Diagnostic, DiagnosticBuilder } from './diagnostics.js';
import { foreignModel, STARTER_MODELS } from './models.js';
import {
  type CadreConfig,
  CONFIG_DEFAULTS,
  configFileSchema,
  PROVIDER_NAMES,
  type ProviderName,
} from './schema.js';
import { type PathSegment, TomlLocator } from './toml-locator.js';

/**
 * A valid file (`ok`) may still carry warnings: keys Cadre does not define, which it ignores (files written
 * for newer runtimes carry settings Cadre does not use). `diagnostics` lists errors and warnings by position.
 */
export type ParseConfigResult =
  | { ok: true; config: CadreConfig; warnings: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

export type ParseConfigOptions = {
  /** Shown in diagnostics; the file is not read (callers read it, so tests can pass text). */
  path: string;
};

/**
 * Parses and validates the text of a cadre.toml. Returns the typed config with every default
 * applied, or every problem found (never only the first), each with its file position.
 */
export function parseConfig(text: string, options: ParseConfigOptions): ParseConfigResult {
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    return { ok: false, diagnostics: [syntaxDiagnostic(error, text, options.path)] };
  }
  if (nestedDeeperThan(data, CONFIG_MAX_DEPTH)) return { ok: false, diagnostics: [tooDeep(options.path)] };
  const diagnostics = new DiagnosticBuilder(options.path, new TomlLocator(text));
  for (const path of protoKeys(data)) {
    diagnostics.add({
      kind: 'invalid-value',
      path,
      at: 'key',
      message:
        '"__proto__" cannot be a name: every JavaScript object reserves it (it would be dropped unseen)',
      hint: 'rename it',
    });
  }
  let result = configFileSchema.safeParse(data);
  if (!result.success) {
    diagnostics.fromIssues(result.error.issues, data);
    // Unknown keys are warnings: without them (and nothing else wrong) the file is valid.
    const unknown = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    if (unknown.length === result.error.issues.length) {
      result = configFileSchema.safeParse(withoutKeys(data, unknown));
      if (!result.success) diagnostics.fromIssues(result.error.issues, data);
    }
  }
  // Cycles are checked even when other fields are wrong, so one run shows every problem.
  checkDelegation(result.success ? result.data : lenientExperts(data), diagnostics);
  checkProviderModel(data, diagnostics);
  if (result.success) checkLaunchers(result.data, diagnostics);
  const sorted = sortByPosition(diagnostics.diagnostics);
  if (!result.success || sorted.some((d) => d.severity === 'error'))
    return { ok: false, diagnostics: sorted };
  return { ok: true, config: result.data, warnings: sorted };
}

/**
 * Deepest nesting of tables and arrays a file may have. A real file has at most seven levels
 * (`experts.<name>.skills.<skill>.tools.<tool>.inputJsonSchema`). smol-toml bounds arrays and inline tables
 * itself (a syntax error), not dotted keys and headers (`a.a.a.… = 1`), whose depth the validation, the
 * positions and structuredClone would pay for (recursion past the stack, time quadratic in the depth).
 */
const CONFIG_MAX_DEPTH = 32;

function tooDeep(file: string): Diagnostic {
  return {
    severity: 'error',
    kind: 'limit',
    file,
    line: 1,
    column: 1,
    length: 1,
    path: '',
    message: `the file is nested too deeply: at most ${CONFIG_MAX_DEPTH} levels of tables and arrays`,
    hint: 'a cadre.toml needs at most 7 levels (experts."<name>".skills."<skill>".tools."<tool>"): shorten the longest dotted key or table header',
  };
}

/**
 * The paths of every key named `__proto__` (smol-toml keeps it as an ordinary key; validation would drop it
 * unseen, as a JavaScript object cannot hold it as a name). Called on data nested at most CONFIG_MAX_DEPTH.
 */
function protoKeys(data: unknown, path: PathSegment[] = []): PathSegment[][] {
  if (typeof data !== 'object' || data === null) return [];
  const found: PathSegment[][] = [];
  for (const [key, value] of Object.entries(data)) {
    const at = [...path, Array.isArray(data) ? Number(key) : key];
    if (key === '__proto__') found.push(at);
    found.push(...protoKeys(value, at));
  }
  return found;
}

/**
 * Launcher arguments a publish policy refuses (docs/registry.md "What a skill runs"): a warning, since the file
 * does not know the organization's policy, at the skill's `args` — an option that runs a command line of the
 * launcher's own, takes packages from another registry, or that Cadre cannot read.
 */
function checkLaunchers(config: CadreConfig, diagnostics: DiagnosticBuilder): void {
  for (const [expert, { skills }] of Object.entries(config.experts)) {
    for (const [name, skill] of Object.entries(skills)) {
      if (skill.type !== 'mcpStdioSkill') continue;
      const launch = launchOf(skill);
      if (!launch) continue;
      const found = [
        ...launch.shellCommands.map(
          (option) => `"${option}" makes ${skill.command} run a command line of its own`,
        ),
        ...launch.sources.map((option) => `"${option}" takes packages from another registry`),
        ...launch.unknownOptions.map(
          (option) => `"${option}" is an option of ${skill.command} Cadre cannot check`,
        ),
      ];
      for (const message of found) {
        diagnostics.add(
          {
            kind: 'invalid-value',
            path: ['experts', expert, 'skills', name, 'args'],
            at: 'value',
            message: `${message}: a registry whose publish policy limits commands or pins versions refuses it`,
            hint: 'name the package (and its exact version) only; put options for the program after it',
          },
          'warning',
        );
      }
    }
  }
}

/**
 * A model of another provider's family (docs/config.md, "Models and providers"): a warning, since the name
 * alone cannot prove a provider does not serve it, at `model` (or at `providerName` when the default model
 * applies), suggesting the provider's own starter model or the provider that serves it.
 */
function checkProviderModel(data: unknown, diagnostics: DiagnosticBuilder): void {
  const top = (data ?? {}) as { model?: unknown; provider?: { providerName?: unknown } };
  const written = typeof top.model === 'string' && top.model !== '';
  const model = written ? (top.model as string) : CONFIG_DEFAULTS.model;
  const name = top.provider?.providerName ?? CONFIG_DEFAULTS.provider.providerName;
  if (!(PROVIDER_NAMES as readonly unknown[]).includes(name)) return;
  const provider = name as ProviderName;
  const foreign = foreignModel(model, provider);
  if (!foreign) return;
  diagnostics.add(
    {
      kind: 'provider-model',
      path: written ? ['model'] : ['provider', 'providerName'],
      at: 'value',
      message: `model "${model}"${written ? '' : ' (the default)'} is ${foreign.vendor}, which provider "${provider}" does not serve`,
      hint: `write model = "${STARTER_MODELS[provider]}" (which ${provider} serves), or providerName = "${foreign.servedBy}"`,
    },
    'warning',
  );
}

/** A copy of `data` without the keys the issues name (each issue: a table's path and its unknown keys). */
function withoutKeys(data: unknown, issues: Array<{ path: PropertyKey[]; keys?: string[] }>): unknown {
  const copy = structuredClone(data) as Record<PropertyKey, unknown>;
  for (const issue of issues) {
    let table: unknown = copy;
    for (const segment of issue.path) table = (table as Record<PropertyKey, unknown> | undefined)?.[segment];
    if (table && typeof table === 'object') {
      for (const key of issue.keys ?? []) delete (table as Record<string, unknown>)[key];
    }
  }
  return copy;
}

/** Just enough of an invalid file's Experts to look for delegation cycles. */
function lenientExperts(data: unknown): Pick<CadreConfig, 'experts'> {
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const raw = (data as { experts?: unknown }).experts;
  const experts: CadreConfig['experts'] = {};
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
      const e = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
      experts[name] = {
        version: typeof e.version === 'string' ? e.version : CONFIG_DEFAULTS.version,
        tags: strings(e.tags),
        delegates: strings(e.delegates),
      } as CadreConfig['experts'][string];
    }
  }
  return { experts };
}

function checkDelegation(config: Pick<CadreConfig, 'experts'>, diagnostics: DiagnosticBuilder): void {
  const cycle = findDelegationCycle(config);
  if (!cycle) return;
  const [from, to] = cycle;
  const edge = localDelegates(config, from!).find((d) => d.target === to);
  const self = cycle.length === 2;
  diagnostics.add({
    kind: 'delegation',
    path: ['experts', from!, 'delegates', edge?.index ?? 0],
    at: 'value',
    message: self ? `Expert "${from}" delegates to itself` : `delegation cycle: ${cycle.join(' → ')}`,
    hint: self
      ? 'remove it from its own delegates'
      : 'remove one of these delegates; a cycle has no publish order (each needs the other published first)',
  });
}

function syntaxDiagnostic(error: TomlError, text: string, file: string): Diagnostic {
  // smol-toml's message repeats the code frame after a blank line; keep only the first line.
  const message = error.message.replace(/^Invalid TOML document: /, '').split('\n')[0] ?? 'invalid TOML';
  const lineText = text.split(/\r?\n/)[error.line - 1] ?? '';
  return {
    severity: 'error',
    kind: 'syntax',
    file,
    line: error.line,
    column: error.column,
    length: 1,
    path: '',
    message: `TOML syntax error: ${message}`,
    hint: syntaxHint(message, lineText),
  };
}

function syntaxHint(message: string, lineText: string): string {
  if (/unterminated|string/i.test(message)) return 'close the string with the same quote it starts with';
  if (/duplicate|already|overwrite|redefin/i.test(message))
    return 'each key and table may be defined only once';
  if (/^\s*[^#=[]+$/.test(lineText) && !lineText.includes('=')) return 'write key = value';
  return 'check the TOML syntax at the marked character (https://toml.io/en/v1.0.0)';
}

function sortByPosition(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => a.line - b.line || a.column - b.column);
}
