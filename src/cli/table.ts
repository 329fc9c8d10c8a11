/** Plain aligned columns: readable in a terminal and trivially parsed by `awk` when piped. */
export function formatTable(headers: string[], rows: string[][]): string {
  const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s).replace(/\s+/g, ' ');
  const all = [headers, ...rows.map((r) => r.map(clip))];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
