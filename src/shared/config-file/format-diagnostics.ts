import type { Diagnostic } from './diagnostics.js';

export type Paint = {
  red: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
  bold: (s: string) => string;
  dim: (s: string) => string;
};

export const noPaint: Paint = {
  red: (s) => s,
  yellow: (s) => s,
  cyan: (s) => s,
  bold: (s) => s,
  dim: (s) => s,
};

/**
 * Renders diagnostics like compiler errors, with the offending line and a caret under the
 * character or key, so the fix can be made without opening the file at the right place first.
 *
 *   error[unknown-key]: unknown key "maxStep"
 *    --> cadre.toml:3:1
 *     |
 *   3 | maxStep = 10
 *     | ^^^^^^^
 *     = path: maxStep
 *     = hint: did you mean "maxSteps"?
 */
export function formatDiagnostics(
  diagnostics: readonly Diagnostic[],
  text: string,
  paint: Paint = noPaint,
): string {
  const lines = text.split(/\r?\n/);
  const blocks = diagnostics.map((d) => {
    const gutter = ' '.repeat(String(d.line).length);
    const source = lines[d.line - 1] ?? '';
    const label = d.severity === 'error' ? paint.red(`error[${d.kind}]`) : paint.yellow(`warning[${d.kind}]`);
    const out = [
      `${paint.bold(label)}${paint.bold(`: ${d.message}`)}`,
      `${gutter}${paint.cyan('-->')} ${d.file}:${d.line}:${d.column}`,
      `${gutter} ${paint.cyan('|')}`,
      `${paint.cyan(`${d.line} |`)} ${source}`,
      `${gutter} ${paint.cyan('|')} ${' '.repeat(Math.max(0, d.column - 1))}${paint.red('^'.repeat(d.length))}`,
    ];
    if (d.path) out.push(`${gutter} ${paint.cyan('=')} path: ${d.path}`);
    out.push(`${gutter} ${paint.cyan('=')} hint: ${d.hint}`);
    return out.join('\n');
  });
  return blocks.join('\n\n');
}
