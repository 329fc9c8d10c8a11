import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostics } from '../../shared/config-file/format-diagnostics.js';
import { DEFAULT_PLANS } from './plans.js';
import { parsePlansFile } from './plans-file.js';

const root = join(import.meta.dirname, '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** [line, column, kind, path, message, hint] of each problem: the whole report at once. */
function problems(text: string, file = 'plans.toml') {
  const result = parsePlansFile(text, file);
  if (result.ok) throw new Error('unexpectedly valid');
  return result.diagnostics.map((d) => [d.line, d.column, d.kind, d.path, d.message, d.hint]);
}

describe('CADRE_PLANS_FILE: an operator plan catalogue', () => {
  it('docs/plans.example.toml is the built-in catalogue, plan for plan', () => {
    const result = parsePlansFile(read('docs/plans.example.toml'), 'docs/plans.example.toml');
    expect(result).toEqual({ ok: true, plans: DEFAULT_PLANS });
  });

  it("docs/billing.md's self-hosted catalogue is one plan without limits, in TOML and in JSON", () => {
    const doc = read('docs/billing.md');
    const toml = /```toml\n(# plans\.toml[\s\S]*?)```/.exec(doc)?.[1];
    const json = /```json\n(\{\s*"plans"[\s\S]*?)```/.exec(doc)?.[1];
    const one = {
      key: 'free',
      name: 'Self-hosted',
      description: 'Everything, without limits.',
      amount: 0,
      currency: 'usd',
      interval: 'month',
      features: [],
      limits: { apiRequests: null, expertVersions: null, apiKeys: null, connections: null },
      active: true,
    };
    expect(parsePlansFile(toml ?? '', 'plans.toml')).toEqual({ ok: true, plans: [one] });
    expect(parsePlansFile(json ?? '', 'plans.json')).toEqual({ ok: true, plans: [one] });
  });

  it('reports every problem at once with its line, column and a hint, like cadre.toml', () => {
    const text = [
      '[[plans]]',
      'key = "plus"',
      'name = "Plus"',
      'amount = "9"',
      'currency = "USD"',
      'limits = { apiKey = 5 }',
      '',
      '[[plans]]',
      'key = "plus"',
      'name = "Again"',
      'amount = 900',
      'currency = "usd"',
      'interval = "week"',
      '',
    ].join('\n');
    expect(problems(text)).toEqual([
      [
        1,
        3,
        'invalid-value',
        'plans',
        expect.stringMatching(/^no plan has key = "free"/),
        expect.any(String),
      ],
      [
        4,
        10,
        'type',
        'plans[0].amount',
        'amount must be a number, found a string ("9")',
        expect.stringMatching(/cents/),
      ],
      [
        5,
        12,
        'invalid-value',
        'plans[0].currency',
        expect.stringMatching(/three-letter currency code/),
        'write currency = "usd"',
      ],
      [6, 12, 'unknown-key', 'plans[0].limits.apiKey', 'unknown key "apiKey"', 'did you mean "apiKeys"?'],
      [
        9,
        7,
        'invalid-value',
        'plans[1].key',
        '"plus" is the key of an earlier plan',
        expect.stringMatching(/^write key/),
      ],
      [
        13,
        12,
        'invalid-value',
        'plans[1].interval',
        'interval must be one of "month", "year", found a string ("week")',
        expect.any(String),
      ],
    ]);
  });

  it('a JSON catalogue gets the same diagnostics, with JSON positions, and the same rendering', () => {
    const text =
      '{\n  "plans": [\n    { "key": "free", "name": "Free", "amount": 100, "currency": "usd", "colour": "red" }\n  ]\n}\n';
    expect(problems(text, 'plans.json')).toEqual([
      [
        3,
        48,
        'invalid-value',
        'plans[0].amount',
        expect.stringMatching(/its amount must be 0/),
        expect.any(String),
      ],
      [
        3,
        72,
        'unknown-key',
        'plans[0].colour',
        'unknown key "colour"',
        expect.stringMatching(/^allowed keys here: key, name/),
      ],
    ]);
    const result = parsePlansFile(text, 'plans.json');
    if (result.ok) throw new Error('unexpectedly valid');
    expect(formatDiagnostics(result.diagnostics, text)).toContain(
      'error[invalid-value]: the "free" plan is what organizations have without paying: its amount must be 0\n --> plans.json:3:48\n',
    );
    expect(problems('{"plans": [}', 'plans.json')).toEqual([
      [1, 12, 'syntax', '', expect.stringMatching(/^JSON syntax error: /), expect.any(String)],
    ]);
    expect(problems('[[plans]\nkey = 1\n')[0]?.slice(0, 3)).toEqual([1, 9, 'syntax']);
  });
});
