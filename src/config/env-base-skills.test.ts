import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.js';

describe('CADRE_BASE_SKILL_NAMES', () => {
  it('is empty unless set: the defaults ("@service/base", "@perstack/base") need no variable', () => {
    expect(parseEnv({}).CADRE_BASE_SKILL_NAMES).toEqual([]);
    expect(parseEnv({ CADRE_BASE_SKILL_NAMES: '' }).CADRE_BASE_SKILL_NAMES).toEqual([]);
  });

  it('reads comma-separated skill names, trimmed, empty entries dropped', () => {
    expect(
      parseEnv({ CADRE_BASE_SKILL_NAMES: ' @acme/base, tools.v2/base ,,' }).CADRE_BASE_SKILL_NAMES,
    ).toEqual(['@acme/base', 'tools.v2/base']);
  });

  it('refuses the start on a name no skill can have, naming it', () => {
    expect(() => parseEnv({ CADRE_BASE_SKILL_NAMES: '@acme/base,my base' })).toThrow(
      'CADRE_BASE_SKILL_NAMES="@acme/base,my base": "my base" is not a skill name: it must be letters, digits, "@", "/", ".", "-" or "_", starting with a letter, digit or "@"',
    );
    expect(() => parseEnv({ CADRE_BASE_SKILL_NAMES: `/base,${'b'.repeat(256)}` })).toThrow(
      /"\/base" is not a skill name[\s\S]*"b{256}" is not a skill name: it must be at most 255 characters/,
    );
  });
});
