import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/process.js';

// .ci/summary.mjs turns vitest's JSON reports into CI's verdict. Reports here have the shape vitest's JSON
// reporter writes (numbers for the run, one testResults entry per file).
const dir = mkdtempSync(join(tmpdir(), 'cadre-ci-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Assertion = { status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo' };
type FileResult = {
  name: string;
  status: 'passed' | 'failed';
  message: string;
  assertionResults: Assertion[];
};

let count = 0;
function report(files: FileResult[], suites: { failed: number; total: number }): string {
  const tests = files.flatMap((file) => file.assertionResults);
  const numFailedTests = tests.filter((t) => t.status === 'failed').length;
  const body = {
    numTotalTestSuites: suites.total,
    numPassedTestSuites: suites.total - suites.failed,
    numFailedTestSuites: suites.failed,
    numPendingTestSuites: 0,
    numTotalTests: tests.length,
    numPassedTests: tests.filter((t) => t.status === 'passed').length,
    numFailedTests,
    numPendingTests: tests.filter((t) => t.status === 'skipped' || t.status === 'pending').length,
    numTodoTests: tests.filter((t) => t.status === 'todo').length,
    success: suites.failed === 0 && numFailedTests === 0,
    startTime: 0,
    testResults: files.map((file) => ({ ...file, startTime: 0, endTime: 1 })),
  };
  const path = join(dir, `report-${++count}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
}

const ok = (n: number): Assertion[] => Array.from({ length: n }, () => ({ status: 'passed' }));
const skipped = (n: number): Assertion[] => Array.from({ length: n }, () => ({ status: 'skipped' }));
const file = (name: string, assertionResults: Assertion[], message = ''): FileResult => ({
  name,
  status: message || assertionResults.some((a) => a.status === 'failed') ? 'failed' : 'passed',
  message,
  assertionResults,
});

async function summary(...args: string[]): Promise<{ code: number; lines: string[] }> {
  const run = await promisify(execFile)(process.execPath, ['.ci/summary.mjs', ...args], { cwd: ROOT }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => error,
  );
  return { code: run.code, lines: run.stdout.trim().split('\n') };
}

describe('.ci/summary.mjs', () => {
  it('all green: exit 0 and the closing line with the real counts', async () => {
    const run = await summary(report([file('/a.test.ts', ok(3))], { failed: 0, total: 2 }));
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toBe('Tests: 3 passed, 0 failed');
  });

  it('a test file that fails to load counts as a failure', async () => {
    const loadError = file('/broken.test.ts', [], 'Cannot find module ./missing.js');
    const run = await summary(report([file('/a.test.ts', ok(5)), loadError], { failed: 1, total: 3 }));
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe('Tests: 5 passed, 1 failed');
    expect(run.lines).toContain('  /broken.test.ts: Cannot find module ./missing.js');
  });

  it('a beforeAll that throws counts as a failure, not as skipped tests', async () => {
    const hook = file('/hook.test.ts', skipped(4), 'redis-server did not become ready');
    const run = await summary(report([file('/a.test.ts', ok(2)), hook], { failed: 2, total: 4 }));
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe('Tests: 2 passed, 1 failed, 4 skipped');
  });

  it('a failed describe-level hook (file status failed, no message, tests skipped) counts too', async () => {
    const hook = { ...file('/nested.test.ts', skipped(2)), status: 'failed' as const };
    const run = await summary(report([file('/a.test.ts', ok(1)), hook], { failed: 1, total: 3 }));
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe('Tests: 1 passed, 1 failed, 2 skipped');
  });

  it('failed tests count once each, however many suites they fail', async () => {
    const failing = file('/f.test.ts', [...ok(2), { status: 'failed' }, { status: 'failed' }]);
    const run = await summary(report([failing], { failed: 3, total: 3 }));
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe('Tests: 2 passed, 2 failed');
  });

  it('a missing or unreadable report is a failed run', async () => {
    const garbage = join(dir, 'garbage.json');
    writeFileSync(garbage, '{"numPassedTests": 3');
    const run = await summary(
      report([file('/a.test.ts', ok(3))], { failed: 0, total: 1 }),
      join(dir, 'never-written.json'),
      garbage,
    );
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe('Tests: 3 passed, 2 failed');
    expect(run.lines[1]).toMatch(/never-written\.json: no report \(ENOENT\)/);
  });

  it("a run that exited non-zero with a clean report (vitest's unhandled errors) is a failure", async () => {
    const clean = report([file('/a.test.ts', ok(3))], { failed: 0, total: 1 });
    expect((await summary(`${clean}:0`)).code).toBe(0);
    const run = await summary(`${clean}:1`);
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toBe('Tests: 3 passed, 1 failed');
  });

  it('adds up both runs; nothing passed at all is a failure', async () => {
    const a = report([file('/a.test.ts', ok(3))], { failed: 0, total: 1 });
    const b = report([file('/b.test.ts', [...ok(4), { status: 'todo' }])], { failed: 0, total: 1 });
    const both = await summary(`${a}:0`, `${b}:0`);
    expect(both.code).toBe(0);
    expect(both.lines.at(-1)).toBe('Tests: 7 passed, 0 failed, 1 skipped');
    const empty = await summary(report([], { failed: 0, total: 0 }));
    expect(empty.code).toBe(1);
    expect(empty.lines.at(-1)).toBe('Tests: 0 passed, 0 failed');
  });
});
