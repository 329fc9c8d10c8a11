// Adds up the test runs' vitest JSON reports and prints the closing line CI reads:
// "Tests: N passed, N failed". Usage: node .ci/summary.mjs <report.json>[:<exit code>] ...
// Anything that did not pass counts as failed, so a broken run can never read as green:
// - a failed test;
// - a test file that failed without a failed test (it did not load, or a beforeAll threw: its tests then
//   read as skipped);
// - a report that is missing or unreadable (the run stopped before vitest wrote it: typecheck, lint, the
//   set-up, a crash);
// - a run whose exit code is not 0 although its report shows no failure (vitest's unhandled errors,
//   which the JSON report leaves out).
// Exits 1 on any failure, and when nothing passed at all.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;

function parseArgument(argument) {
  const match = /^(.*):(\d+)$/.exec(argument);
  return match ? { file: match[1], exitCode: Number(match[2]) } : { file: argument, exitCode: undefined };
}

for (const argument of process.argv.slice(2)) {
  const { file, exitCode } = parseArgument(argument);
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof report !== 'object' || report === null || !Array.isArray(report.testResults))
      throw new Error('not a vitest JSON report');
  } catch (error) {
    failed++;
    console.log(`${file}: no report (${error.code ?? error.message}): the run failed before its tests ran`);
    continue;
  }
  const runFailed = report.numFailedTests ?? 0;
  // Files that failed with no failed test of their own: load errors and hook errors.
  const brokenFiles = report.testResults.filter(
    (result) =>
      result.status === 'failed' &&
      !(result.assertionResults ?? []).some((assertion) => assertion.status === 'failed'),
  );
  let runFailures = runFailed + brokenFiles.length;
  // A failed suite the per-file view could not show (it never counts for less than the suites that failed).
  if (runFailures === 0 && (report.numFailedTestSuites ?? 0) > 0) runFailures = report.numFailedTestSuites;
  if (runFailures === 0 && report.success === false) runFailures = 1;
  const exitedBadly = exitCode !== undefined && exitCode !== 0 && runFailures === 0;
  if (exitedBadly) runFailures = 1;

  passed += report.numPassedTests ?? 0;
  failed += runFailures;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(
    `${file}: ${report.numPassedTests ?? 0} passed, ${runFailures} failed` +
      ` (${runFailed} tests, ${report.numFailedTestSuites ?? 0} of ${report.numTotalTestSuites ?? 0} suites)`,
  );
  for (const broken of brokenFiles)
    console.log(`  ${broken.name}: ${(broken.message || 'failed outside its tests (a hook: see the run output)').split('\n')[0]}`);
  if (exitedBadly) console.log(`  the run exited ${exitCode} (an error outside the tests: see its output)`);
}
if (process.argv.length <= 2) {
  failed++;
  console.log('no report given');
}
console.log(`Tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
