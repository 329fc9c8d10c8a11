import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import type { Diagnostic } from '../../shared/config-file/diagnostics.js';
import { formatDiagnostics } from '../../shared/config-file/format-diagnostics.js';
import { closestMatch } from '../../shared/config-file/suggest.js';
import { type PathSegment, TomlLocator } from '../../shared/config-file/toml-locator.js';
import { JsonLocator } from './json-locator.js';
import { COUNTER_KEYS, FREE_PLAN_KEY, type Plan, type PlanCatalogue } from './plans.js';

/**
 * CADRE_PLANS_FILE: an operator's plan catalogue (docs/billing.md, "Your own plan catalogue"), TOML or JSON
 * by its extension, replacing the built-in one. Checked at start like cadre.toml: every problem at once, each
 * with its line and column, a hint, rendered by the same formatter. A running instance reads it again on
 * SIGHUP; a file that no longer checks out leaves the previous catalogue in place.
 */

const limit = z.number().int().min(0).nullable().optional();
const limitsSchema = z.strictObject(
  Object.fromEntries(COUNTER_KEYS.map((key) => [key, limit])) as Record<
    (typeof COUNTER_KEYS)[number],
    typeof limit
  >,
);

const planSchema = z.strictObject({
  key: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be lowercase letters, digits, "-" or "_", at most 64'),
  name: z.string().min(1).max(80),
  description: z.string().max(500).default(''),
  amount: z.number().int().min(0),
  currency: z.string().regex(/^[a-z]{3}$/, 'must be a three-letter currency code in lowercase, like "usd"'),
  interval: z.enum(['month', 'year']).default('month'),
  features: z.array(z.string().min(1)).default([]),
  limits: limitsSchema.default({}),
  active: z.boolean().default(true),
});

const fileSchema = z
  .strictObject({ plans: z.array(planSchema).min(1, 'must hold at least one plan') })
  // Checked even when a plan has other problems (`when`), so one run shows every problem.
  .superRefine(
    (file, ctx) => {
      const plans = Array.isArray((file as { plans?: unknown }).plans)
        ? ((file as { plans: unknown[] }).plans as Array<{ key?: unknown; amount?: unknown }>)
        : [];
      const seen = new Set<unknown>();
      plans.forEach((plan, index) => {
        if (typeof plan?.key !== 'string') return;
        if (seen.has(plan.key))
          ctx.addIssue({
            code: 'custom',
            path: ['plans', index, 'key'],
            message: `"${plan.key}" is the key of an earlier plan`,
          });
        seen.add(plan.key);
        if (plan.key === FREE_PLAN_KEY && plan.amount !== 0)
          ctx.addIssue({
            code: 'custom',
            path: ['plans', index, 'amount'],
            message: `the "${FREE_PLAN_KEY}" plan is what organizations have without paying: its amount must be 0`,
          });
      });
      if (plans.length > 0 && !seen.has(FREE_PLAN_KEY))
        ctx.addIssue({
          code: 'custom',
          path: ['plans'],
          message: `no plan has key = "${FREE_PLAN_KEY}": it is what every organization without a subscription has`,
        });
    },
    { when: () => true },
  );

export type PlansFileResult =
  | { ok: true; plans: Plan[] }
  | { ok: false; diagnostics: Diagnostic[]; text: string; file: string };

/** Hints for the file's own fields (what to write instead). */
const HINTS: Record<string, string> = {
  key: 'write key = "team": checkout and subscriptions name the plan by it',
  name: 'write name = "Team": shown in the console and the API',
  amount: 'write the price per interval in minor units (cents): amount = 4900',
  currency: 'write currency = "usd"',
  interval: 'write interval = "month" or "year"',
  features: 'write features = ["Team Experts", "Priority support"]',
  active: 'write active = true (false: kept for existing subscriptions, not offered)',
  limits: `write limits = { ${COUNTER_KEYS.map((key) => `${key} = 100`).join(', ')} }; leave a counter out for no limit`,
  plans: 'write one [[plans]] table per plan (JSON: "plans": [ { … } ])',
};

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'a table';
  if (typeof value === 'number')
    return Number.isInteger(value) ? `an integer (${value})` : `a number (${value})`;
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function dotted(path: readonly PathSegment[]): string {
  return path
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : `${i ? '.' : ''}${segment}`))
    .join('');
}

type Locator = Pick<TomlLocator, 'nearest' | 'lineColumn' | 'lineText'>;

function diagnostic(
  file: string,
  locator: Locator,
  path: PathSegment[],
  kind: Diagnostic['kind'],
  message: string,
  hint: string,
  at: 'key' | 'value' = 'value',
): Diagnostic {
  const found = locator.nearest(path);
  const span =
    found &&
    (found.exact && at === 'value' && found.location.value ? found.location.value : found.location.key);
  const { line, column } = locator.lineColumn(span?.offset ?? 0);
  const rest = Math.max(1, locator.lineText(line).length - column + 1);
  return {
    severity: 'error',
    kind,
    file,
    line,
    column,
    length: Math.max(1, Math.min(span?.length ?? 1, rest)),
    path: dotted(path),
    message,
    hint,
  };
}

function fromIssue(issue: z.core.$ZodIssue, data: unknown, file: string, locator: Locator): Diagnostic[] {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
  const field = String([...path].reverse().find((segment) => typeof segment === 'string') ?? '');
  const hint =
    HINTS[field] ?? (COUNTER_KEYS.includes(field as never) ? HINTS.limits! : 'see docs/plans.example.toml');
  const value = valueAt(data, path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const allowed = Object.keys(
          valueAt(data, path) === data
            ? { plans: 0 }
            : path.at(-1) === 'limits'
              ? Object.fromEntries(COUNTER_KEYS.map((k) => [k, 0]))
              : planSchema.shape,
        );
        const guess = closestMatch(key, allowed);
        return diagnostic(
          file,
          locator,
          [...path, key],
          'unknown-key',
          `unknown key "${key}"`,
          guess ? `did you mean "${guess}"?` : `allowed keys here: ${allowed.join(', ')}`,
          'key',
        );
      });
    case 'invalid_type':
      if (value === undefined)
        return [diagnostic(file, locator, path, 'missing', `missing "${field}"`, hint, 'key')];
      return [
        diagnostic(
          file,
          locator,
          path,
          'type',
          `${field} must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}, found ${kindOf(value)}`,
          hint,
        ),
      ];
    case 'too_small':
    case 'too_big':
      return [
        diagnostic(
          file,
          locator,
          path,
          'range',
          `${field} ${issue.message.replace(/^Too (small|big): expected \w+ to (have|be) /, 'must be ')}`,
          hint,
        ),
      ];
    case 'invalid_value':
      return [
        diagnostic(
          file,
          locator,
          path,
          'invalid-value',
          `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, found ${kindOf(value)}`,
          hint,
        ),
      ];
    case 'invalid_format':
      return [diagnostic(file, locator, path, 'invalid-value', `${field} ${issue.message}`, hint)];
    default:
      return [
        diagnostic(
          file,
          locator,
          path,
          'invalid-value',
          issue.message,
          hint,
          issue.path.length === 1 ? 'key' : 'value',
        ),
      ];
  }
}

/** Parses and checks a catalogue's text; `file` names it in diagnostics and its extension picks the syntax. */
export function parsePlansFile(text: string, file: string): PlansFileResult {
  const json = file.toLowerCase().endsWith('.json');
  let data: unknown;
  let locator: Locator;
  try {
    data = json ? JSON.parse(text) : parseToml(text);
    locator = json ? new JsonLocator(text) : new TomlLocator(text);
  } catch (error) {
    const at =
      error instanceof TomlError ? { line: error.line, column: error.column } : jsonErrorAt(error, text);
    const message = (error as Error).message.replace(/^Invalid TOML document: /, '').split('\n')[0];
    return {
      ok: false,
      file,
      text,
      diagnostics: [
        {
          severity: 'error',
          kind: 'syntax',
          file,
          ...at,
          length: 1,
          path: '',
          message: `${json ? 'JSON' : 'TOML'} syntax error: ${message}`,
          hint: json
            ? 'check the JSON syntax at the marked character'
            : 'check the TOML syntax at the marked character (https://toml.io/en/v1.0.0)',
        },
      ],
    };
  }
  const result = fileSchema.safeParse(data);
  if (result.success) return { ok: true, plans: result.data.plans.map(toPlan) };
  const diagnostics = result.error.issues.flatMap((issue) => fromIssue(issue, data, file, locator));
  diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  return { ok: false, file, text, diagnostics };
}

function jsonErrorAt(error: unknown, text: string): { line: number; column: number } {
  const message = (error as Error).message;
  // Node names the position for some errors only; else the unexpected token's first place, or the end.
  const token = /Unexpected token '(.)'/.exec(message)?.[1];
  const position = /position (\d+)/.test(message)
    ? Number(/position (\d+)/.exec(message)?.[1])
    : token !== undefined
      ? Math.max(0, text.indexOf(token))
      : /end of JSON/.test(message)
        ? text.trimEnd().length
        : 0;
  const before = text.slice(0, position).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function toPlan(plan: z.output<typeof planSchema>): Plan {
  return {
    ...plan,
    limits: Object.fromEntries(COUNTER_KEYS.map((key) => [key, plan.limits[key] ?? null])) as Plan['limits'],
  };
}

/** Reads and checks the file; a file that cannot be read is one diagnostic-free refusal. */
export function readPlansFile(path: string): PlansFileResult | { ok: false; unreadable: string } {
  if (!/\.(toml|json)$/i.test(path)) return { ok: false, unreadable: 'expected a .toml or .json file' };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return {
      ok: false,
      unreadable: `cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  }
  return parsePlansFile(text, path);
}

/** What a refusal says: the diagnostics as `cadre config validate` prints them, or why the file is unreadable. */
export function describePlansFileProblem(
  path: string,
  result: Exclude<ReturnType<typeof readPlansFile>, { ok: true }>,
): string {
  if ('unreadable' in result) return `CADRE_PLANS_FILE=${path}: ${result.unreadable}`;
  const count = result.diagnostics.length;
  return `${formatDiagnostics(result.diagnostics, result.text)}\nCADRE_PLANS_FILE=${path}: ${count} ${count === 1 ? 'error' : 'errors'} in the plan catalogue`;
}

/**
 * On SIGHUP, reads the catalogue again and serves it from then on (the plans endpoint, checkout, usage and
 * limits read the catalogue at each request). A file that does not check out is logged, and the previous
 * catalogue stays: a half-written file must not take the plans away.
 */
export function reloadPlansOnSighup(
  path: string,
  catalogue: PlanCatalogue,
  log: { info: (object: object, message: string) => void; error: (message: string) => void },
): void {
  process.on('SIGHUP', () => {
    const result = readPlansFile(path);
    if (!result.ok) {
      log.error(
        `plan catalogue reload failed, still serving the previous one: ${describePlansFileProblem(path, result)}`,
      );
      return;
    }
    catalogue.replace(result.plans);
    log.info({ plans: result.plans.map((plan) => plan.key) }, `plan catalogue reloaded from ${path}`);
  });
}
