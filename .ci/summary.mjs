// Prints `N passed, M failed` summed over every vitest JSON report in the results folder (the main
// run on the CI's Node, then the package suites on Node 22 and 24). A test command that failed
// before a report was written (install, build, typecheck, lint, a Node download) counts as one failure.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [resultsDir, statusText] = process.argv.slice(2);
const status = Number(statusText);
let passed = 0;
let failed = 0;
const reports = existsSync(resultsDir)
  ? readdirSync(resultsDir).filter((name) => /^vitest.*\.json$/.test(name))
  : [];
for (const name of reports) {
  const report = JSON.parse(readFileSync(join(resultsDir, name), 'utf8'));
  const reportFailed = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
  passed += report.numPassedTests;
  failed += reportFailed === 0 && report.numFailedTestSuites > 0 ? report.numFailedTestSuites : reportFailed;
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(status === 0 && failed === 0 ? 0 : 1);
