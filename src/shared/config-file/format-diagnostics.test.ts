import { expect, it } from 'vitest';
import { formatDiagnostics, parseConfig } from './index.js';

it('renders each diagnostic with its source line, a caret under the key, the path and the hint', () => {
  const text = 'model = "m"\nmaxStep = 10\n';
  const result = parseConfig(text, { path: 'cadre.toml' });
  // An unknown key is a warning: the file is valid, the key ignored.
  if (!result.ok) throw new Error('expected a valid file with a warning');
  expect(formatDiagnostics(result.warnings, text)).toBe(
    [
      'warning[unknown-key]: unknown key "maxStep"',
      ' --> cadre.toml:2:1',
      '  |',
      '2 | maxStep = 10',
      '  | ^^^^^^^',
      '  = path: maxStep',
      '  = hint: did you mean "maxSteps"?',
    ].join('\n'),
  );
});

it('paints only through the given painter', () => {
  const text = 'temperature = 2\n';
  const result = parseConfig(text, { path: 'c.toml' });
  if (result.ok) throw new Error('expected errors');
  const red = (s: string) => `<r>${s}</r>`;
  const id = (s: string) => s;
  const out = formatDiagnostics(result.diagnostics, text, { red, yellow: id, cyan: id, bold: id, dim: id });
  expect(out).toContain('<r>error[range]</r>');
  expect(out).toContain('<r>^</r>');
});
