/** Optimal string alignment distance: Levenshtein plus transposition ("tmeout" → "timeout"). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The closest candidate, if it is close enough to be what the user meant. A case-only or
 * separator-only difference (max_steps, MaxSteps) always counts; otherwise about a third of the
 * word may differ, which catches typos without suggesting unrelated keys.
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const fold = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  const folded = candidates.find((c) => fold(c) === fold(input));
  if (folded !== undefined) return folded;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(input.length, candidate.length) / 3));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
