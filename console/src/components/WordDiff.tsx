import { diffWords } from 'diff';

type Part = ReturnType<typeof diffWords>[number];

/** Two texts' words compared (jsdiff's `diffWords`: words, punctuation and the spaces between). */
export const wordParts = (before: string, after: string): Part[] => diffWords(before, after);

/**
 * Whether two lines are one line reworded (at least half of the longer one kept) rather than one line
 * replaced by another: only then are the changed words worth marking inside them.
 */
export function reworded(parts: readonly Part[], before: string, after: string): boolean {
  const kept = parts
    .filter((part) => !part.added && !part.removed)
    .reduce((sum, p) => sum + p.value.length, 0);
  return kept * 2 >= Math.max(before.length, after.length);
}

/**
 * A text with the words taken out (`<del>`) and put in (`<ins>`) marked, each also said in words for
 * screen readers ("Removed: …", "Added: …"). `side` shows the old text's marks only, the new one's, or both
 * in one text. Text only, never markup.
 */
export function WordDiff({ parts, side }: { parts: readonly Part[]; side: 'before' | 'after' | 'both' }) {
  return (
    <span className="diff-words">
      {parts.map((part, index) => {
        // The parts of one comparison are positional and never reordered: their index is their identity.
        const key = index;
        if (part.added) {
          if (side === 'before') return null;
          return (
            <ins key={key}>
              <span className="visually-hidden">Added: </span>
              {part.value}
            </ins>
          );
        }
        if (part.removed) {
          if (side === 'after') return null;
          return (
            <del key={key}>
              <span className="visually-hidden">Removed: </span>
              {part.value}
            </del>
          );
        }
        return part.value;
      })}
    </span>
  );
}
