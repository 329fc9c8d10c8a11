import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.js';

describe('CADRE_PUBLISH_POLICY_DEFAULT', () => {
  it('is unset or empty: new organizations start with the open policy', () => {
    expect(parseEnv({}).CADRE_PUBLISH_POLICY_DEFAULT).toBeUndefined();
    expect(parseEnv({ CADRE_PUBLISH_POLICY_DEFAULT: '  ' }).CADRE_PUBLISH_POLICY_DEFAULT).toBeUndefined();
  });

  it('reads the PUT body shape, a preset and rules, over the open policy', () => {
    const text = '{"preset":"recommended","requirePinnedVersions":true,"allowedSseHosts":["*.corp.example"]}';
    expect(parseEnv({ CADRE_PUBLISH_POLICY_DEFAULT: text }).CADRE_PUBLISH_POLICY_DEFAULT).toEqual({
      allowedCommands: ['npx', 'uvx'],
      requirePinnedVersions: true,
      allowedSseHosts: ['*.corp.example'],
      approvalRequiredForWidening: false,
      skillsFromCatalog: false,
    });
  });

  it('refuses the start on text that is not JSON, or a field that is wrong, naming it', () => {
    // The start's error names the variable and its value, then what is wrong with it.
    expect(() => parseEnv({ CADRE_PUBLISH_POLICY_DEFAULT: 'recommended' })).toThrow(
      'CADRE_PUBLISH_POLICY_DEFAULT=recommended: must be a JSON object, e.g. {"preset":"recommended"}',
    );
    expect(() => parseEnv({ CADRE_PUBLISH_POLICY_DEFAULT: '{"allowedCommands":[]}' })).toThrow(
      'allowedCommands: at least one command; null allows any',
    );
    expect(() => parseEnv({ CADRE_PUBLISH_POLICY_DEFAULT: '{"approval":true}' })).toThrow(/approval/);
    expect(() => parseEnv({ CADRE_PUBLISH_POLICY_DEFAULT: '{"allowedSseHosts":["HTTPS://X"]}' })).toThrow(
      /allowedSseHosts\.0: a lowercase host name/,
    );
  });
});
