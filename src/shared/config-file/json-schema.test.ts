import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_ID, configJsonSchema } from './index.js';

const root = join(import.meta.dirname, '../../..');
const fixtures = join(root, 'test/fixtures/config');

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(configJsonSchema());
}

describe('configJsonSchema', () => {
  const validate = validator();

  it('is a JSON Schema 2020-12 document with an id', () => {
    const schema = configJsonSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(CONFIG_SCHEMA_ID);
  });

  it.each(readdirSync(join(fixtures, 'valid')))('accepts valid/%s', (file) => {
    const data = parse(readFileSync(join(fixtures, 'valid', file), 'utf8'));
    expect(validate(data), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['an unknown top-level key', { modle: 'x' }],
    ['an unknown provider', { provider: { providerName: 'antropic' } }],
    [
      'a setting of another provider',
      { provider: { providerName: 'amazon-bedrock', setting: { baseUrl: 'https://x.test' } } },
    ],
    ['temperature above 1', { temperature: 1.5 }],
    ['a fractional maxSteps', { maxSteps: 2.5 }],
    ['an Expert without instruction', { experts: { writer: {} } }],
    ['an uppercase Expert name', { experts: { Writer: { instruction: 'x' } } }],
    ['a skill without type', { experts: { w: { instruction: 'x', skills: { s: { command: 'npx' } } } } }],
    [
      'nine tags',
      { experts: { w: { instruction: 'x', tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] } } },
    ],
    ['an unknown runtime', { experts: { w: { instruction: 'x', runtime: 'vscode' } } }],
  ])('rejects %s', (_label, data) => {
    expect(validate(data)).toBe(false);
  });

  it('describes fields with their defaults for editor hovers', () => {
    const properties = configJsonSchema().properties as Record<
      string,
      { default?: unknown; description?: string }
    >;
    expect(properties.timeout).toMatchObject({
      default: 300000,
      description: expect.stringMatching(/milliseconds/),
    });
    expect(properties.provider?.default).toEqual({ providerName: 'anthropic' });
  });

  it('matches the schema committed next to the documented example (regenerate with `cadre config schema`)', () => {
    const committed = JSON.parse(readFileSync(join(root, 'docs/examples/cadre.schema.json'), 'utf8'));
    expect(committed).toEqual(configJsonSchema());
  });

  it('the README copies the example together with the schema its first line points at', () => {
    const directive = /^#:schema \.\/(\S+)$/m.exec(
      readFileSync(join(root, 'docs/examples/cadre.toml'), 'utf8'),
    )?.[1];
    expect(directive).toBe('cadre.schema.json');
    const copy = /^cp ("?(\$CADRE\/)?docs\/examples\/\S+ )+\.(\s|$)/m.exec(
      readFileSync(join(root, 'README.md'), 'utf8'),
    )?.[0];
    expect(copy).toContain('docs/examples/cadre.toml');
    expect(copy).toContain(`docs/examples/${directive}`);
  });
});
