/**
 * What changed between two definitions of an Expert, and which changes widen what it can reach
 * (docs/registry.md "Diff"). Pure: the registry's diff endpoint, `cadre diff` and `cadre publish` all call it,
 * so a local cadre.toml is compared with a published version by exactly the rules the API answers with.
 */
import { structuredPatch } from 'diff';
import { own } from '../../shared/own.js';

type Skill = Skills[string];

import { type Launch, launchOf, type Skills } from '../registry/index.js';
import type { RunnableDefinition } from './integrity.js';

/** One structured change. `path` names the field: `["skills", "search", "endpoint"]`, `["delegates"]`. */
export interface DefinitionChange {
  kind: 'added' | 'removed' | 'changed';
  path: string[];
  before?: unknown;
  after?: unknown;
  /** Why this change lets the new version reach more than the old one; absent when it does not. */
  widens?: string;
}

export interface InstructionDiff {
  changed: boolean;
  linesAdded: number;
  linesRemoved: number;
  /** Unified-diff hunks (3 lines of context); `lines` start with " ", "+" or "-". */
  hunks: { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }[];
}

export interface DefinitionDiff {
  /** True when any change widens access (each such change says why in `widens`). */
  widensAccess: boolean;
  changes: DefinitionChange[];
  instruction: InstructionDiff;
}

const added = (path: string[], after: unknown, widens?: string): DefinitionChange => ({
  kind: 'added',
  path,
  after,
  ...(widens ? { widens } : {}),
});
const removed = (path: string[], before: unknown): DefinitionChange => ({ kind: 'removed', path, before });
const changed = (path: string[], before: unknown, after: unknown, widens?: string): DefinitionChange => ({
  kind: 'changed',
  path,
  before,
  after,
  ...(widens ? { widens } : {}),
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The host (with port) of an endpoint URL, or the text itself should it not parse. */
function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}

/** Every field a skill of any type can have, compared in this order. */
const SKILL_FIELDS = [
  'type',
  'command',
  'packageName',
  'args',
  'endpoint',
  'pick',
  'omit',
  'requiredEnv',
  'description',
  'rule',
] as const;
type SkillField = (typeof SKILL_FIELDS)[number];

const field = (skill: Skill, name: SkillField): unknown => (skill as Record<string, unknown>)[name];
const list = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : []);

/** Why a change of one skill field widens access, or undefined. */
function widening(name: SkillField, before: unknown, after: unknown, skill: string): string | undefined {
  switch (name) {
    case 'type':
      return `skill "${skill}" becomes ${String(after)}`;
    case 'command':
      return after !== undefined ? `skill "${skill}" runs a new command "${String(after)}"` : undefined;
    case 'packageName':
      return after !== undefined ? `skill "${skill}" runs a new package "${String(after)}"` : undefined;
    case 'endpoint': {
      if (after === undefined) return undefined;
      const host = hostOf(String(after));
      return before === undefined || hostOf(String(before)) !== host
        ? `skill "${skill}" reaches a new endpoint host "${host}"`
        : undefined;
    }
    case 'requiredEnv': {
      const fresh = list(after).filter((name) => !list(before).includes(name));
      return fresh.length
        ? `skill "${skill}" reads new environment variables: ${fresh.join(', ')}`
        : undefined;
    }
    case 'pick': {
      // An empty pick list filters nothing (expert-definition.ts): it exposes every tool, as no list does.
      if (list(before).length > 0 && list(after).length === 0) {
        return `skill "${skill}" no longer limits its tools with "pick" (every tool is exposed)`;
      }
      if (list(before).length === 0) return undefined; // a pick list appearing narrows
      const fresh = list(after).filter((tool) => !list(before).includes(tool));
      return fresh.length ? `skill "${skill}" picks more tools: ${fresh.join(', ')}` : undefined;
    }
    case 'omit': {
      const dropped = list(before).filter((tool) => !list(after).includes(tool));
      return dropped.length ? `skill "${skill}" no longer omits: ${dropped.join(', ')}` : undefined;
    }
    default:
      return undefined; // description and rule change what the model reads, not what it may reach
  }
}

const quoted = (values: string[]) => values.map((value) => `"${value}"`).join(', ');

/**
 * Why a change of a stdio skill's `args` widens access (docs/registry.md "What a skill runs"): read as its
 * launcher reads them, a package, a registry, a command line of its own, or an option Cadre cannot read that
 * the old version did not have. A command that is no launcher Cadre reads (`node`, `docker`) runs what its
 * arguments say, so any change of them widens.
 */
function argsWidening(skill: string, before: Skill, after: Skill): string | undefined {
  if (before.type !== 'mcpStdioSkill' || after.type !== 'mcpStdioSkill') return undefined;
  if (before.command !== after.command) return undefined; // the command's change says it
  const was = launchOf(before);
  const now = launchOf(after);
  if (!was || !now) return `skill "${skill}" runs ${after.command} with other arguments`;
  const fresh = (pick: (launch: Launch) => string[]) => pick(now).filter((item) => !pick(was).includes(item));
  const reasons = [
    [fresh((l) => l.packages), 'runs a new package'],
    [fresh((l) => l.sources), 'takes packages from another registry'],
    [fresh((l) => l.shellCommands), 'runs a command line of its own'],
    [fresh((l) => l.unknownOptions), `passes ${after.command} options Cadre cannot read`],
  ] as const;
  const said = reasons
    .filter(([items]) => items.length > 0)
    .map(([items, what]) => `${what} ${quoted(items)}`);
  return said.length > 0 ? `skill "${skill}" ${said.join('; ')}` : undefined;
}

function diffSkill(name: string, before: Skill, after: Skill): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  for (const key of SKILL_FIELDS) {
    const a = field(before, key);
    const b = field(after, key);
    if (same(a, b)) continue;
    const path = ['skills', name, key];
    const why = key === 'args' ? argsWidening(name, before, after) : widening(key, a, b, name);
    if (a === undefined) changes.push(added(path, b, why));
    else if (b === undefined) changes.push({ ...removed(path, a), ...(why ? { widens: why } : {}) });
    else changes.push(changed(path, a, b, why));
  }
  if (before.type === 'interactiveSkill' && after.type === 'interactiveSkill') {
    for (const [tool, now] of Object.entries(after.tools)) {
      const path = ['skills', name, 'tools', tool];
      const old = own(before.tools, tool);
      if (!old) {
        changes.push(added(path, now, `skill "${name}" gains the tool "${tool}"`));
        continue;
      }
      for (const part of ['description', 'inputJsonSchema'] as const) {
        if (old[part] !== now[part]) changes.push(changed([...path, part], old[part], now[part]));
      }
    }
    for (const [tool, old] of Object.entries(before.tools)) {
      if (!Object.hasOwn(after.tools, tool)) changes.push(removed(['skills', name, 'tools', tool], old));
    }
  } else if (after.type === 'interactiveSkill') {
    // The type changed (flagged above); its tools are all new.
    for (const [tool, definition] of Object.entries(after.tools)) {
      changes.push(
        added(['skills', name, 'tools', tool], definition, `skill "${name}" gains the tool "${tool}"`),
      );
    }
  }
  return changes;
}

function diffSkills(before: Skills, after: Skills): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  for (const [name, skill] of Object.entries(after)) {
    const old = own(before, name);
    if (!old) changes.push(added(['skills', name], skill, `new skill "${name}" (${skill.type})`));
    else if (!same(old, skill)) changes.push(...diffSkill(name, old, skill));
  }
  for (const [name, skill] of Object.entries(before)) {
    if (!Object.hasOwn(after, name)) changes.push(removed(['skills', name], skill));
  }
  return changes;
}

/** The instruction as a line diff (jsdiff's Myers diff, as `diff -u` prints it). */
function diffInstruction(before: string, after: string): InstructionDiff {
  // A last line without a newline is still a line: compared as ended, one added line reads "+1", not the
  // unchanged last line removed and re-added ("+2 −1"). A newline added or dropped at the very end alone is
  // not a change a reviewer weighs.
  const ended = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  if (ended(before) === ended(after)) return { changed: false, linesAdded: 0, linesRemoved: 0, hunks: [] };
  const patch = structuredPatch('before', 'after', ended(before), ended(after), undefined, undefined, {
    context: 3,
  });
  let linesAdded = 0;
  let linesRemoved = 0;
  const hunks = patch.hunks.map((hunk) => {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) linesAdded++;
      else if (line.startsWith('-')) linesRemoved++;
    }
    const { oldStart, oldLines, newStart, newLines, lines } = hunk;
    return { oldStart, oldLines, newStart, newLines, lines };
  });
  return { changed: true, linesAdded, linesRemoved, hunks };
}

/** The structured difference from `before` to `after` (name and version are what is compared, not a change). */
export function diffDefinitions(before: RunnableDefinition, after: RunnableDefinition): DefinitionDiff {
  const changes: DefinitionChange[] = [];
  if (before.description !== after.description) {
    changes.push(changed(['description'], before.description, after.description));
  }
  if (before.minRuntimeVersion !== after.minRuntimeVersion) {
    changes.push(changed(['minRuntimeVersion'], before.minRuntimeVersion, after.minRuntimeVersion));
  }
  changes.push(...diffSkills(before.skills, after.skills));
  const oldDelegates = before.delegates ?? [];
  const newDelegates = after.delegates ?? [];
  for (const delegate of newDelegates) {
    if (!oldDelegates.includes(delegate)) {
      changes.push(added(['delegates'], delegate, `new delegate "${delegate}"`));
    }
  }
  for (const delegate of oldDelegates) {
    if (!newDelegates.includes(delegate)) changes.push(removed(['delegates'], delegate));
  }
  return {
    widensAccess: changes.some((change) => change.widens !== undefined),
    changes,
    instruction: diffInstruction(before.instruction, after.instruction),
  };
}

/** A diff as lines for a terminal (`cadre diff`, `cadre publish`): widening changes marked with "!". */
export function formatDiff(diff: DefinitionDiff): string[] {
  const lines: string[] = [];
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  for (const change of diff.changes) {
    const path = change.path.join('.');
    const mark = change.widens ? '!' : ' ';
    const what =
      change.kind === 'added'
        ? `+ ${path}: ${show(change.after)}`
        : change.kind === 'removed'
          ? `- ${path}: ${show(change.before)}`
          : `~ ${path}: ${show(change.before)} → ${show(change.after)}`;
    lines.push(`${mark} ${what}`);
    if (change.widens) lines.push(`    widens access: ${change.widens}`);
  }
  const { instruction } = diff;
  if (instruction.changed) {
    lines.push(`  ~ instruction: +${instruction.linesAdded} −${instruction.linesRemoved} lines`);
    for (const hunk of instruction.hunks) {
      lines.push(`    @@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
      for (const line of hunk.lines) lines.push(`    ${line}`);
    }
  }
  if (lines.length === 0) lines.push('  no changes to what runs');
  return lines;
}
