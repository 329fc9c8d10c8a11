import { useId } from 'react';
import type { components } from '../api/schema.js';
import { SkillsTable } from '../pages/SkillsTable.js';
import { reworded, WordDiff, wordParts } from './WordDiff.js';

type ExpertDiff = components['schemas']['ExpertDiff'];
type Change = ExpertDiff['changes'][number];
type Hunk = ExpertDiff['instruction']['hunks'][number];
type Skills = components['schemas']['RegistryExpert']['skills'];

const FIELD_WORDS: Record<string, string> = {
  type: 'type',
  command: 'command',
  packageName: 'package',
  args: 'arguments',
  endpoint: 'endpoint',
  pick: 'picked tools',
  omit: 'omitted tools',
  requiredEnv: 'required environment variables',
  description: 'description',
  rule: 'rule',
  inputJsonSchema: 'input schema',
};

/** A change's field in words: `["skills", "search", "endpoint"]` reads `Skill "search": endpoint`. */
function fieldWords(path: readonly string[]): string {
  const [top, skill, part, tool, toolPart] = path;
  if (top === 'description') return 'Description';
  if (top === 'minRuntimeVersion') return 'Minimum runtime version';
  if (top === 'delegates') return 'Delegate';
  if (top !== 'skills' || skill === undefined) return path.join('.');
  if (part === undefined) return `Skill "${skill}"`;
  if (part === 'tools' && tool !== undefined) {
    return `Skill "${skill}": tool "${tool}"${toolPart ? `, ${FIELD_WORDS[toolPart] ?? toolPart}` : ''}`;
  }
  return `Skill "${skill}": ${FIELD_WORDS[part] ?? part}`;
}

const KIND_WORDS = { added: 'Added', removed: 'Removed', changed: 'Changed' } as const;

const isShort = (value: unknown) =>
  value === undefined ||
  (typeof value === 'string' && !value.includes('\n') && value.length <= 80) ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'));

/** A short value inline: a string as written, a list as its items (never markup). */
function InlineValue({ value, label }: { value: unknown; label: string }) {
  return (
    <span className="diff-value">
      <span className="visually-hidden">{label}: </span>
      {Array.isArray(value) ? (
        value.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <span className="chips">
            {value.map((item) => (
              <code key={String(item)}>{String(item)}</code>
            ))}
          </span>
        )
      ) : (
        <code>{String(value)}</code>
      )}
    </span>
  );
}

/** A long value (a description, a skill) as a block of text under its visible label; objects as JSON. */
function BlockValue({ value, label }: { value: unknown; label: string }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <div className="diff-value diff-value-block">
      <span className="small muted">{label}</span>
      <pre className="code diff-block">{text}</pre>
    </div>
  );
}

/** A whole skill added or removed (`["skills", name]`): its value is the skill, shown as a skill is. */
function wholeSkill(change: Change): Skills | undefined {
  const [top, name, part] = change.path;
  const value = change.kind === 'removed' ? change.before : change.after;
  if (top !== 'skills' || name === undefined || part !== undefined) return undefined;
  if (typeof value !== 'object' || value === null || !('type' in value)) return undefined;
  return { [name]: value as Skills[string] };
}

function ChangeValues({ change }: { change: Change }) {
  const skill = wholeSkill(change);
  if (skill) {
    const [name] = Object.keys(skill);
    return (
      <div className="diff-values">
        <div className="diff-value-block">
          <SkillsTable skills={skill} label={`Skill "${name}", ${change.kind}`} />
        </div>
      </div>
    );
  }
  const prose = change.path.at(-1) === 'description';
  if (
    prose &&
    change.kind === 'changed' &&
    typeof change.before === 'string' &&
    typeof change.after === 'string'
  ) {
    // A description reworded: one text, the words taken out and put in marked (a version or a command
    // stays "before → after": its words are not prose).
    const parts = wordParts(change.before, change.after);
    return (
      <p className="diff-values diff-text-block">
        <WordDiff parts={parts} side="both" />
      </p>
    );
  }
  if (isShort(change.before) && isShort(change.after)) {
    return (
      <div className="diff-values">
        {change.kind !== 'added' && <InlineValue value={change.before} label="Before" />}
        {change.kind === 'changed' && (
          <span className="diff-arrow" aria-hidden="true">
            →
          </span>
        )}
        {change.kind !== 'removed' && (
          <InlineValue value={change.after} label={change.kind === 'added' ? 'Added' : 'After'} />
        )}
      </div>
    );
  }
  return (
    <div className="diff-values">
      {change.kind !== 'added' && <BlockValue value={change.before} label="Before" />}
      {change.kind !== 'removed' && (
        <BlockValue value={change.after} label={change.kind === 'added' ? 'Added' : 'After'} />
      )}
    </div>
  );
}

function ChangeItem({ change }: { change: Change }) {
  return (
    <li className={change.widens ? 'diff-change diff-widens' : 'diff-change'}>
      <div className="diff-change-head">
        <span className={`badge diff-kind diff-kind-${change.kind}`}>{KIND_WORDS[change.kind]}</span>
        <span className="diff-field">{fieldWords(change.path)}</span>
        {change.widens && (
          <span className="badge badge-widens">
            <span aria-hidden="true">▲ </span>Widens access
          </span>
        )}
      </div>
      {change.widens && (
        <p className="diff-why">
          <strong>Why:</strong> {change.widens}
        </p>
      )}
      <ChangeValues change={change} />
    </li>
  );
}

/**
 * A run of removed lines followed by a run of added ones is, line for line, the same lines rewritten: each
 * removed line's index maps to its added counterpart's text, and the other way round.
 */
function pairedLines(lines: readonly string[]): Map<number, string> {
  const pairs = new Map<number, string>();
  for (let start = 0; start < lines.length; ) {
    let removedEnd = start;
    while (lines[removedEnd]?.startsWith('-')) removedEnd++;
    let addedEnd = removedEnd;
    while (lines[addedEnd]?.startsWith('+')) addedEnd++;
    for (let offset = 0; offset < Math.min(removedEnd - start, addedEnd - removedEnd); offset++) {
      const removed = start + offset;
      const added = removedEnd + offset;
      pairs.set(removed, (lines[added] as string).slice(1));
      pairs.set(added, (lines[removed] as string).slice(1));
    }
    start = Math.max(addedEnd, start + 1);
  }
  return pairs;
}

/** A line as text; a reworded line with its changed words marked (the removed line's and the added one's). */
function lineText(sign: string, text: string, counterpart: string | undefined) {
  if (counterpart === undefined || (sign !== '-' && sign !== '+')) return text;
  const [before, after] = sign === '-' ? [text, counterpart] : [counterpart, text];
  const parts = wordParts(before, after);
  if (!reworded(parts, before, after)) return text;
  return <WordDiff parts={parts} side={sign === '-' ? 'before' : 'after'} />;
}

const LINE_WORDS = { '+': 'Added line', '-': 'Removed line', ' ': 'Unchanged line' } as const;

/** One hunk of the instruction's line diff; each line says in words whether it was added or removed. */
function HunkLines({ hunk }: { hunk: Hunk }) {
  const counterparts = pairedLines(hunk.lines);
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  const rows = hunk.lines.map((raw, index) => {
    const sign = raw[0] as '+' | '-' | ' ' | '\\';
    const text = raw.slice(1);
    // Lines of one hunk are positional and never reordered: their index is their identity.
    const key = index;
    // jsdiff's "\ No newline at end of file": a trailing newline is not something a reviewer weighs.
    if (sign === '\\') return null;
    const before = sign === '+' ? '' : String(oldLine++);
    const after = sign === '-' ? '' : String(newLine++);
    const kind = sign === '+' ? 'diff-add' : sign === '-' ? 'diff-remove' : 'diff-same';
    return (
      <div key={key} className={`diff-line ${kind}`}>
        <span className="diff-num" aria-hidden="true">
          {before}
        </span>
        <span className="diff-num" aria-hidden="true">
          {after}
        </span>
        <span className="diff-sign" aria-hidden="true">
          {sign === '-' ? '−' : sign}
        </span>
        <span className="visually-hidden">{LINE_WORDS[sign]}: </span>
        <span className="diff-text">{lineText(sign, text, counterparts.get(index))}</span>
      </div>
    );
  });
  return (
    <div className="diff-hunk">
      <p className="diff-hunk-head small muted">
        Lines {hunk.oldStart}–{hunk.oldStart + Math.max(hunk.oldLines - 1, 0)} before, {hunk.newStart}–
        {hunk.newStart + Math.max(hunk.newLines - 1, 0)} after
      </p>
      {rows}
    </div>
  );
}

/**
 * What changed between two versions (`GET /registry/diff`): access-widening changes first in a summary with
 * their reasons, then every structured change in words, then the instruction as a line diff. Widening is
 * said in words ("Widens access", "Why: …"), not by colour alone; every value is text, never markup.
 */
export function DefinitionDiff({ diff, headingLevel = 2 }: { diff: ExpertDiff; headingLevel?: 2 | 3 | 4 }) {
  const Heading = `h${headingLevel}` as 'h2' | 'h3' | 'h4';
  const id = useId();
  const widening = diff.changes.filter((change) => change.widens);
  const { instruction } = diff;
  const nothing = diff.changes.length === 0 && !instruction.changed;
  return (
    <div className="definition-diff">
      {widening.length > 0 ? (
        <div className="notice notice-warning" role="note">
          <p className="notice-title">
            <span aria-hidden="true">▲ </span>
            {diff.to} can reach more than {diff.from}: {widening.length}{' '}
            {widening.length === 1 ? 'change widens' : 'changes widen'} access.
          </p>
          <ul className="diff-reasons">
            {widening.map((change) => (
              <li key={`${change.path.join('.')}:${change.kind}:${String(change.after)}`}>{change.widens}</li>
            ))}
          </ul>
        </div>
      ) : nothing ? (
        <p className="notice" role="note">
          {diff.from} and {diff.to} run the same definition: nothing that runs changed.
        </p>
      ) : (
        <p className="notice" role="note">
          No change widens access: {diff.to} reaches nothing that {diff.from} could not.
        </p>
      )}

      <section aria-labelledby={`${id}-changes`}>
        <Heading id={`${id}-changes`}>Changes</Heading>
        {diff.changes.length === 0 ? (
          <p className="muted">No change to the description, runtime, skills or delegates.</p>
        ) : (
          <ol className="diff-changes">
            {diff.changes.map((change) => (
              <ChangeItem
                key={`${change.path.join('.')}:${change.kind}:${JSON.stringify(change.after ?? change.before)}`}
                change={change}
              />
            ))}
          </ol>
        )}
      </section>

      <section aria-labelledby={`${id}-instruction`}>
        <Heading id={`${id}-instruction`}>Instruction</Heading>
        {instruction.changed ? (
          <>
            <p className="small">
              <span className="diff-count-add">+{instruction.linesAdded}</span>{' '}
              {instruction.linesAdded === 1 ? 'line' : 'lines'} added,{' '}
              <span className="diff-count-remove">−{instruction.linesRemoved}</span>{' '}
              {instruction.linesRemoved === 1 ? 'line' : 'lines'} removed
            </p>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be keyboard-focusable to be scrolled */}
            <section className="diff-lines" aria-label="Instruction line diff" tabIndex={0}>
              {instruction.hunks.map((hunk) => (
                <HunkLines key={`${hunk.oldStart}:${hunk.newStart}`} hunk={hunk} />
              ))}
            </section>
          </>
        ) : (
          <p className="muted">The instruction is the same.</p>
        )}
      </section>
    </div>
  );
}
