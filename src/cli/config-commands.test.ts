import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../../test/support/cli-harness.js';
import { configJsonSchema, PROVIDER_NAMES } from '../shared/config-file/index.js';

const fixtures = join(import.meta.dirname, '../../test/fixtures/config');
const fixture = (name: string) => readFileSync(join(fixtures, name), 'utf8');

describe('cadre config validate', () => {
  it('finds cadre.toml by walking up from the working directory', async () => {
    const dir = tempProject({ 'cadre.toml': fixture('valid/complete.toml'), 'a/b/c/.keep': '' });
    const run = await runCli(['config', 'validate'], { cwd: join(dir, 'a/b/c') });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(
      `${join(dir, 'cadre.toml')} is valid: 2 Experts (researcher, writer); provider anthropic; model claude-sonnet-4-5\n`,
    );
  });

  it('prints every diagnostic with position and exits 1', async () => {
    const dir = tempProject({ 'cadre.toml': fixture('invalid/range-errors.toml') });
    const run = await runCli(['config', 'validate'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'error[range]: temperature must be between 0.0 and 1.0\n --> cadre.toml:1:15\n',
    );
    expect(run.stderr).toMatch(/\n4 errors, 0 warnings in cadre.toml\n$/);
    expect(run.stderr).not.toContain('\u001b['); // not a TTY: no colour
  });

  it('unknown keys are warnings: shown with position and hint, exit 0; --strict makes them fail', async () => {
    const dir = tempProject({ 'cadre.toml': fixture('warnings/unknown-keys.toml') });
    const run = await runCli(['config', 'validate'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning[unknown-key]: unknown key "modle"\n --> cadre.toml:1:1\n');
    expect(run.stderr).toContain('= hint: did you mean "maxSteps"?');
    expect(run.stderr).toContain('\n0 errors, 8 warnings in cadre.toml\n');
    expect(run.stdout).toBe(
      'cadre.toml is valid: 1 Expert (writer); provider amazon-bedrock; model claude-sonnet-4-5\n',
    );
    const strict = await runCli(['config', 'validate', '--strict'], { cwd: dir });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe('');
    expect(strict.stderr).toContain('cadre.toml fails --strict: warnings count as errors');
  });

  it('validates several files and directories at once, grouped per file; exit 1 when any has an error', async () => {
    const dir = tempProject({
      'ok.toml': fixture('valid/minimal.toml'),
      'warned.toml': fixture('warnings/misplaced.toml'),
      'teams/a/cadre.toml': fixture('valid/delegation.toml'),
      'teams/a/other.toml': fixture('invalid/range-errors.toml'),
      'more/x.toml': fixture('valid/runtime-versions.toml'),
      'more/y.toml': fixture('invalid/runtime-versions.toml'),
    });
    const run = await runCli(['config', 'validate', 'ok.toml', 'warned.toml', 'teams/a', 'more'], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    // A directory with a cadre.toml is that file; without one, every *.toml in it.
    expect(run.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^ok.toml is valid/),
      expect.stringMatching(/^warned.toml is valid/),
      expect.stringMatching(/^teams\/a\/cadre.toml is valid/),
      expect.stringMatching(/^more\/x.toml is valid/),
    ]);
    expect(run.stderr).toContain('0 errors, 4 warnings in warned.toml');
    expect(run.stderr).toContain('4 errors, 0 warnings in more/y.toml');
    expect(run.stderr).not.toContain('other.toml');
    expect(run.stderr).toMatch(/5 files checked: 1 failed; 4 errors, 4 warnings\n$/);
    const good = await runCli(['config', 'validate', 'ok.toml', 'teams/a', '--json'], { cwd: dir });
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout).map((r: { valid: boolean }) => r.valid)).toEqual([true, true]);
    const strict = await runCli(['config', 'validate', 'ok.toml', 'warned.toml', '--strict'], { cwd: dir });
    expect(strict.code).toBe(1);
    expect((await runCli(['config', 'validate', 'nope'], { cwd: dir })).stderr).toBe(
      'error: nope does not exist\n',
    );
  });

  it('colours output on a terminal unless NO_COLOR is set', async () => {
    const dir = tempProject({ 'cadre.toml': 'maxSteps = 0\n' });
    expect((await runCli(['config', 'validate'], { cwd: dir, isTTY: true })).stderr).toContain('\u001b[31m');
    const noColor = await runCli(['config', 'validate'], { cwd: dir, isTTY: true, env: { NO_COLOR: '1' } });
    expect(noColor.stderr).not.toContain('\u001b[');
  });

  it('--json reports diagnostics for machines', async () => {
    const dir = tempProject({ 'conf/my.toml': fixture('invalid/range-errors.toml') });
    const run = await runCli(['config', 'validate', '--config', 'conf/my.toml', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.valid).toBe(false);
    expect(report.diagnostics[0]).toEqual({
      severity: 'error',
      kind: 'range',
      file: 'conf/my.toml',
      line: 1,
      column: 15,
      length: 4,
      path: 'temperature',
      message: 'temperature must be between 0.0 and 1.0',
      hint: 'use a number from 0.0 to 1.0, e.g. temperature = 0.3',
    });
    const ok = await runCli(['config', 'validate', '--json', '-c', join(fixtures, 'valid/delegation.toml')], {
      cwd: dir,
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      valid: true,
      experts: ['writer', 'editor', 'critic', 'archivist'],
    });
  });

  it('exits 1 with a hint when there is no config file', async () => {
    const dir = tempProject({});
    const missing = await runCli(['config', 'validate'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /no cadre.toml found in .* or any parent directory\nhint: .*--config PATH/,
    );
    const explicit = await runCli(['config', 'validate', '--config', 'nope.toml'], { cwd: dir });
    expect(explicit).toMatchObject({ code: 1, stderr: 'error: config file nope.toml does not exist\n' });
  });

  it('rejects unknown options and commands as user errors', async () => {
    const dir = tempProject({});
    expect((await runCli(['config', 'validate', '--bogus'], { cwd: dir })).code).toBe(1);
    expect((await runCli(['frobnicate'], { cwd: dir })).code).toBe(1);
    expect((await runCli(['--version'], { cwd: dir })).stdout).toBe('0.0.0-test\n');
  });
});

describe('cadre config show', () => {
  it('prints the resolved config as TOML that parses back to the defaults-applied config', async () => {
    const dir = tempProject({ 'cadre.toml': fixture('valid/minimal.toml'), '.env': '' });
    const run = await runCli(['config', 'show'], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(parse(run.stdout)).toEqual({
      model: 'claude-sonnet-4-5',
      temperature: 0.3,
      maxSteps: 100,
      maxRetries: 5,
      timeout: 300000,
      envPath: ['.env'],
      provider: { providerName: 'anthropic' },
      experts: {
        helper: {
          version: '1.0.0',
          minRuntimeVersion: 'v1.0',
          description: '',
          instruction: 'Help.',
          delegates: [],
          runtime: ['cadre'],
          tags: [],
          skills: {},
        },
      },
    });
    const json = await runCli(['config', 'show', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual(parse(run.stdout));
  });

  it('warns about missing envPath files and requiredEnv variables, relative to the config file', async () => {
    const toml = `envPath = [".env", "secrets/missing.env"]
[experts.x]
instruction = "x"
[experts.x.skills.gh]
type = "mcpStdioSkill"
command = "npx"
requiredEnv = ["FROM_ENV", "FROM_FILE", "NOWHERE"]
`;
    const dir = tempProject({ 'cadre.toml': toml, '.env': '# c\nexport FROM_FILE=1\n', 'sub/.keep': '' });
    const run = await runCli(['config', 'show', '--json'], {
      cwd: join(dir, 'sub'),
      env: { FROM_ENV: 'yes' },
    });
    expect(run.code).toBe(0);
    expect(run.stderr.trim().split('\n')).toEqual([
      `warning: envPath file secrets/missing.env does not exist (looked for ${join(dir, 'secrets/missing.env')})`,
      'warning: NOWHERE (required by skill "gh" of Expert "x") is not set in the environment or in any envPath file',
    ]);
  });

  it('prints diagnostics instead of a config when the file is invalid', async () => {
    const dir = tempProject({ 'cadre.toml': 'temperature = "hot"\n' });
    const run = await runCli(['config', 'show'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('expected a number, found a string ("hot")');
  });
});

describe('cadre config schema', () => {
  it('prints the JSON Schema', async () => {
    const run = await runCli(['config', 'schema'], { cwd: tempProject({}) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(configJsonSchema());
  });
});

describe('cadre init (also cadre config init)', () => {
  it('writes a commented starter that validates with --strict, and its JSON Schema beside it', async () => {
    const dir = tempProject({});
    const run = await runCli(['init', '--provider', 'amazon-bedrock'], { cwd: dir });
    expect(run.code).toBe(0);
    const text = readFileSync(join(dir, 'cadre.toml'), 'utf8');
    expect(text.split('\n')[0]).toBe('#:schema ./cadre.schema.json');
    expect(text).toContain('providerName = "amazon-bedrock"');
    expect(text).toContain('# region = "us-east-1"');
    expect(JSON.parse(readFileSync(join(dir, 'cadre.schema.json'), 'utf8'))).toEqual(configJsonSchema());
    const check = await runCli(['config', 'validate', '--strict'], { cwd: dir });
    expect(check).toMatchObject({ code: 0 });
    expect(check.stdout).toMatch(/cadre.toml is valid: 1 Expert \(my-expert\); provider amazon-bedrock/);
  });

  it('refuses to overwrite a file unless --force, and an unknown provider', async () => {
    const dir = tempProject({ 'cadre.toml': 'model = "mine"\n' });
    const refused = await runCli(['config', 'init'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cadre.toml already exists\nhint: pass --force/);
    expect(readFileSync(join(dir, 'cadre.toml'), 'utf8')).toBe('model = "mine"\n');
    expect((await runCli(['config', 'init', '--force'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'cadre.toml'), 'utf8')).toContain('providerName = "anthropic"');
    const typo = await runCli(['config', 'init', '--force', '--provider', 'openia'], { cwd: dir });
    expect(typo).toMatchObject({ code: 1 });
    expect(typo.stderr).toContain('did you mean "openai"?');
  });

  it('every provider gets a starter with a model it serves, that validates strictly', async () => {
    const models: Record<string, string> = {};
    for (const provider of PROVIDER_NAMES) {
      const dir = tempProject({});
      expect((await runCli(['config', 'init', '--provider', provider], { cwd: dir })).code).toBe(0);
      const check = await runCli(['config', 'validate', '--strict'], { cwd: dir });
      expect(check).toMatchObject({ code: 0, stderr: '' });
      models[provider] = /; model (.+)\n$/.exec(check.stdout)?.[1] ?? '';
    }
    expect(models).toEqual({
      anthropic: 'claude-sonnet-4-5',
      google: 'gemini-2.5-pro',
      openai: 'gpt-5',
      ollama: 'llama3.1',
      'azure-openai': 'gpt-5',
      'amazon-bedrock': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'google-vertex': 'gemini-2.5-pro',
    });
  });

  it("validate warns about a model of another provider's family, with the provider's own as suggestion", async () => {
    const dir = tempProject({
      'cadre.toml': 'model = "claude-sonnet-4-5"\n\n[provider]\nproviderName = "openai"\n',
    });
    const run = await runCli(['config', 'validate'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'warning[provider-model]: model "claude-sonnet-4-5" is an Anthropic model (Claude), which provider "openai" does not serve\n --> cadre.toml:1:9\n',
    );
    expect(run.stderr).toContain(
      '= hint: write model = "gpt-5" (which openai serves), or providerName = "anthropic"',
    );
    expect((await runCli(['config', 'validate', '--strict'], { cwd: dir })).code).toBe(1);
  });
});
