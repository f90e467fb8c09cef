// Prints `N passed, M failed` from vitest's JSON report. A test command that failed before
// vitest wrote a report (install, build, typecheck, lint) counts as one failure.
import { existsSync, readFileSync } from 'node:fs';

const [reportPath, statusText] = process.argv.slice(2);
const status = Number(statusText);
let passed = 0;
let failed = 0;
if (existsSync(reportPath)) {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
  if (report.numFailedTestSuites > 0 && failed === 0) failed = report.numFailedTestSuites;
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(status === 0 && failed === 0 ? 0 : 1);
