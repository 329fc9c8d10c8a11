import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASE_SKILL_KEY, DEFAULT_BASE_SKILL, expertDefinitionSchema } from '../expert/expert-definition.js';
import { DelegationCycleError, parseConfig, publishOrder, toPublishPayload } from './index.js';
import { configFileSchema } from './schema.js';

const fixtures = join(import.meta.dirname, '../../../test/fixtures/config');
function load(name: string) {
  const result = parseConfig(readFileSync(join(fixtures, name), 'utf8'), { path: name });
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  return result.config;
}

describe('publishOrder', () => {
  const config = load('valid/delegation.toml');

  it('puts delegated-to Experts of the file first, keeping file order otherwise', () => {
    expect(publishOrder(config)).toEqual(['critic', 'editor', 'writer', 'archivist']);
  });

  it('pulls in the same-file Experts a selection delegates to, transitively', () => {
    expect(publishOrder(config, ['editor'])).toEqual(['critic', 'editor']);
    expect(publishOrder(config, ['writer'])).toEqual(['critic', 'editor', 'writer']);
  });

  it('ignores delegates pinned to a version the file does not define', () => {
    // archivist → writer@0.9.0, but the file defines writer 1.0.0: a registry version.
    expect(publishOrder(config, ['archivist'])).toEqual(['archivist']);
  });

  it('throws on a cycle', () => {
    const cyclic = configFileSchema.parse({
      experts: {
        a: { instruction: 'a', delegates: ['b'] },
        b: { instruction: 'b', delegates: ['a@latest'] },
      },
    });
    expect(() => publishOrder(cyclic)).toThrow(DelegationCycleError);
    expect(() => publishOrder(cyclic)).toThrow('delegation cycle: a → b → a');
  });
});

describe('toPublishPayload', () => {
  it('adds the base skill, applies defaults and drops local-only fields', () => {
    const payload = toPublishPayload(load('valid/minimal.toml'), 'helper');
    expect(payload).toEqual({
      name: 'helper',
      version: '1.0.0',
      minRuntimeVersion: 'v1.0',
      description: '',
      instruction: 'Help.',
      skills: { [BASE_SKILL_KEY]: DEFAULT_BASE_SKILL },
    });
    expect(expertDefinitionSchema.safeParse(payload).success).toBe(true);
  });

  it('keeps a base skill the file defines and carries delegates and tags', () => {
    const toolbox = toPublishPayload(load('valid/skills.toml'), '@acme/toolbox');
    expect(toolbox.skills[BASE_SKILL_KEY]).toEqual({
      type: 'mcpStdioSkill',
      command: 'npx',
      packageName: '@cadre/base',
    });
    expect(Object.keys(toolbox.skills)).toHaveLength(4);
    const writer = toPublishPayload(load('valid/complete.toml'), 'writer');
    expect(writer.delegates).toEqual(['researcher@1.2.0']);
    expect(toPublishPayload(load('valid/complete.toml'), 'researcher').tags).toEqual(['stable']);
    expect('runtime' in writer).toBe(false);
  });

  it('adds no "@service/base" to an Expert whose base skill is Perstack\'s "@perstack/base"', () => {
    const payload = toPublishPayload(load('valid/perstack-base.toml'), 'scout');
    expect(payload.skills).toEqual({
      '@perstack/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@perstack/base' },
    });
    expect(payload.minRuntimeVersion).toBe('v1.0');
    expect(expertDefinitionSchema.safeParse(payload).success).toBe(true);
  });

  it('refuses a name the file does not define', () => {
    expect(() => toPublishPayload(load('valid/minimal.toml'), 'nobody')).toThrow('no Expert "nobody"');
  });
});
