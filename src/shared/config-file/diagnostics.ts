/**
 * Turns zod issues into Cargo-style diagnostics: what is wrong, where (file:line:column from the
 * TOML text), the dotted path, and a one-line hint on how to fix it.
 */
import type { z } from 'zod';
import {
  exampleFor,
  expectedName,
  fieldHint,
  keysAt,
  kindOfValue,
  limitHint,
  misplacedKey,
  providerKeyOwner,
  skillKeyOwner,
} from './hints.js';
import { closestMatch } from './suggest.js';
import type { PathSegment, TomlLocator } from './toml-locator.js';

type DiagnosticKind =
  | 'syntax'
  | 'type'
  | 'range'
  | 'limit'
  | 'unknown-key'
  | 'misplaced-key'
  | 'missing'
  | 'invalid-value'
  | 'delegation'
  | 'provider-model';

export type Diagnostic = {
  severity: 'error' | 'warning';
  kind: DiagnosticKind;
  file: string;
  line: number;
  column: number;
  /** Characters to underline from the column (at least 1). */
  length: number;
  /** Dotted TOML path, e.g. experts."@acme/writer".skills.github.command ("" for the document). */
  path: string;
  message: string;
  hint: string;
};

function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else
      out += (out === '' ? '' : '.') + (/^[A-Za-z0-9_-]+$/.test(segment) ? segment : JSON.stringify(segment));
  }
  return out;
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = Object.hasOwn(current, segment)
      ? (current as Record<PropertyKey, unknown>)[segment]
      : undefined;
  }
  return current;
}

type Draft = {
  kind: DiagnosticKind;
  path: PathSegment[];
  message: string;
  hint: string;
  at: 'key' | 'value';
};

export class DiagnosticBuilder {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly file: string,
    private readonly locator: TomlLocator,
  ) {}

  add(draft: Draft, severity: Diagnostic['severity'] = 'error'): void {
    const found = this.locator.nearest(draft.path);
    let offset = 0;
    let length = 1;
    if (found) {
      const span =
        found.exact && draft.at === 'value' && found.location.value
          ? found.location.value
          : found.location.key;
      offset = span.offset;
      // Underline one line at most: multi-line strings and tables would smear across the frame.
      length = Math.max(1, span.length);
    }
    const { line, column } = this.locator.lineColumn(offset);
    const rest = this.locator.lineText(line).length - column + 1;
    this.diagnostics.push({
      severity,
      kind: draft.kind,
      file: this.file,
      line,
      column,
      length: Math.max(1, Math.min(length, rest)),
      path: formatPath(draft.path),
      message: draft.message,
      hint: draft.hint,
    });
  }

  fromIssues(issues: readonly z.core.$ZodIssue[], data: unknown): void {
    for (const issue of issues) this.fromIssue(issue, data);
  }

  private fromIssue(issue: z.core.$ZodIssue, data: unknown): void {
    const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
    const value = valueAt(data, path);
    const last = path[path.length - 1];
    const field = typeof last === 'string' ? last : String(path[path.length - 2] ?? '');
    // An issue on a whole Expert, skill or tool: the last segment is the user's name for it, not a field, so
    // the message (a sentence of its own) is not prefixed with it and the hint is the entry's.
    const entry = recordEntry(path);
    const hintKey = entry ? `${entry.record}:entry` : field;
    // Array entries: "invalid entry in tags: …" reads better than "tags[0] …".
    const subject = entry ? '' : typeof last === 'number' ? `invalid entry in ${field}:` : field || 'value';
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) this.unknownKey([...path, key], data);
        return;
      case 'invalid_type':
        if (value === undefined) {
          this.missing(path, issue.expected);
        } else {
          this.add({
            kind: 'type',
            path,
            at: 'value',
            message: `expected ${expectedName(expectedOf(field, issue.expected))}, found ${kindOfValue(value)}`,
            hint: `write it as ${exampleFor(path, issue.expected)}`,
          });
        }
        return;
      case 'invalid_union': {
        const { discriminator, options } = issue as { discriminator?: string; options?: unknown[] };
        if (discriminator !== undefined && options !== undefined) {
          this.badDiscriminator(path, value, discriminator, options.map(String));
        } else {
          this.add({
            kind: 'type',
            path,
            at: 'value',
            message: issue.message,
            hint: fieldHint(field, issue.message),
          });
        }
        return;
      }
      case 'invalid_value': {
        const allowed = issue.values.map(String);
        const guess = typeof value === 'string' ? closestMatch(value, allowed) : undefined;
        this.add({
          kind: 'invalid-value',
          path,
          at: 'value',
          message: `${JSON.stringify(value)} is not allowed here; expected ${allowed.map((v) => JSON.stringify(v)).join(' or ')}`,
          hint: guess ? `did you mean ${JSON.stringify(guess)}?` : `use one of ${allowed.join(', ')}`,
        });
        return;
      }
      case 'too_big':
      case 'too_small': {
        const numeric = issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint';
        this.add({
          kind: numeric ? 'range' : 'limit',
          path,
          at: 'value',
          message: withSubject(subject, issue.message),
          hint: numeric ? fieldHint(field, issue.message) : limitHint(hintKey, issue.message),
        });
        return;
      }
      case 'invalid_key': {
        const inner = issue.issues[0]?.message ?? 'is invalid';
        this.add({
          kind: 'invalid-value',
          path,
          at: 'key',
          message: `invalid ${recordEntry(path)?.name ?? 'key'} ${JSON.stringify(last)}: ${inner}`,
          hint: fieldHint(`${String(path[path.length - 2])}:key`, inner),
        });
        return;
      }
      case 'custom': {
        const params = issue.params as { invalidKey?: boolean; maximum?: number } | undefined;
        if (params?.invalidKey && params.maximum !== undefined) {
          // A name too long: the message names the limit (and the path the key), the name itself is noise.
          this.add({
            kind: 'limit',
            path,
            at: 'key',
            message: issue.message,
            hint: limitHint(`${entry?.record ?? ''}:key`, issue.message),
          });
          return;
        }
        if (params?.invalidKey) {
          this.add({
            kind: 'invalid-value',
            path,
            at: 'key',
            message: `invalid ${entry?.name ?? 'key'} ${JSON.stringify(last)}: ${issue.message}`,
            hint: fieldHint(`${entry?.record ?? ''}:key`, issue.message),
          });
          return;
        }
        this.addDefault(issue, path, hintKey, subject);
        return;
      }
      default:
        this.addDefault(issue, path, hintKey, subject);
    }
  }

  private addDefault(issue: z.core.$ZodIssue, path: PathSegment[], hintKey: string, subject: string): void {
    const isLimit = /at most|bytes/.test(issue.message) && !/either/.test(issue.message);
    this.add({
      kind: isLimit ? 'limit' : 'invalid-value',
      path,
      at: 'value',
      message: withSubject(subject, issue.message),
      hint: isLimit ? limitHint(hintKey, issue.message) : fieldHint(hintKey, issue.message),
    });
  }

  private missing(path: PathSegment[], expected: string | undefined): void {
    const key = String(path[path.length - 1]);
    const table = formatPath(path.slice(0, -1));
    this.add({
      kind: 'missing',
      path,
      at: 'key',
      message: `missing required key "${key}" (${expectedName(expected)})`,
      hint:
        expected === 'object' || expected === 'record'
          ? `add a table [${formatPath(path)}${key === 'tools' ? '."<tool_name>"' : ''}]`
          : `add ${exampleFor(path, expected)} ${table ? `under [${table}]` : 'at the top of the file'}`,
    });
  }

  private badDiscriminator(
    path: PathSegment[],
    value: unknown,
    discriminator: string,
    options: string[],
  ): void {
    if (value === undefined) {
      this.add({
        kind: 'missing',
        path,
        at: 'key',
        message: `missing required key "${discriminator}"`,
        hint: `add ${discriminator} = ${JSON.stringify(options[0])} (one of ${options.join(', ')})`,
      });
      return;
    }
    const guess = typeof value === 'string' ? closestMatch(value, options) : undefined;
    this.add({
      kind: 'invalid-value',
      path,
      at: 'value',
      message: `unknown ${discriminator} ${JSON.stringify(value)}; expected one of ${options.join(', ')}`,
      hint: guess ? `did you mean ${JSON.stringify(guess)}?` : `use one of ${options.join(', ')}`,
    });
  }

  /**
   * A key the schema does not define: a warning (like Cargo's "unused manifest key"), since files written
   * for newer runtimes carry settings Cadre does not use; `--strict` makes warnings fail. A key that
   * belongs in another table (TOML put it in the table whose header came before it) says where it goes.
   */
  private unknownKey(path: PathSegment[], data: unknown): void {
    const key = String(path[path.length - 1]);
    const parent = path.slice(0, -1);
    const misplaced = misplacedKey(parent, key);
    if (misplaced) {
      this.add({ kind: 'misplaced-key', path, at: 'key', ...misplaced }, 'warning');
      return;
    }
    const allowed = keysAt(parent, data);
    const guess = closestMatch(key, allowed);
    const owner = providerKeyOwner(parent, key, data) ?? skillKeyOwner(parent, key, data);
    let hint: string;
    if (guess) hint = `did you mean "${guess}"?`;
    else if (owner) hint = owner;
    else if (allowed.length > 0) hint = `Cadre ignores it (allowed keys here: ${allowed.join(', ')})`;
    else hint = 'Cadre ignores it';
    this.add({ kind: 'unknown-key', path, at: 'key', message: `unknown key "${key}"`, hint }, 'warning');
  }
}

// zod reports "expected number" for a string given to z.int(); these fields want whole numbers.
const INTEGER_FIELDS = new Set(['maxSteps', 'maxRetries', 'timeout']);
function expectedOf(field: string, expected: string): string {
  return expected === 'number' && INTEGER_FIELDS.has(field) ? 'int' : expected;
}

/** When `path` names one entry of the file's records (an Expert, a skill, a tool): which record, by position. */
function recordEntry(
  path: readonly PathSegment[],
): { record: 'experts' | 'skills' | 'tools'; name: string } | undefined {
  if (typeof path[path.length - 1] !== 'string' || path[0] !== 'experts') return undefined;
  if (path.length === 2) return { record: 'experts', name: 'Expert name' };
  if (path.length === 4 && path[2] === 'skills') return { record: 'skills', name: 'skill name' };
  if (path.length === 6 && path[2] === 'skills' && path[4] === 'tools')
    return { record: 'tools', name: 'tool name' };
  return undefined;
}

function withSubject(subject: string, message: string): string {
  return subject ? `${subject} ${message}` : message;
}
