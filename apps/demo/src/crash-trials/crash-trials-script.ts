/**
 * Crash trials of the offline scenario, on demand:
 *
 *   pnpm --filter @closedloop/demo crash-trials --trials 200 [--seed N] [--parallel 2] [--latency-ms 20]
 *     [--keep-failed DIR]
 *
 * Prints resumed / stuck / duplicated effects / final state equal to an uninterrupted run, and
 * exits 1 unless every trial resumed to completion with no duplicated effect and the same final
 * workspace and answer. `crash-trials.test.ts` runs a short form in CI.
 */
import { parseArgs } from 'node:util';
import { formatCrashTrialSummary, runCrashTrials } from './run-crash-trials';

const { values } = parseArgs({
  // `pnpm run x -- --flag` passes the `--` on: it is not an end of options here.
  args: process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === '--')),
  options: {
    trials: { type: 'string', default: '200' },
    seed: { type: 'string' },
    parallel: { type: 'string', default: '2' },
    'latency-ms': { type: 'string', default: '20' },
    'keep-failed': { type: 'string' },
  },
});
const summary = await runCrashTrials({
  trials: Number(values.trials),
  parallel: Number(values.parallel),
  latencyMs: Number(values['latency-ms']),
  ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
  ...(values['keep-failed'] !== undefined ? { keepFailedDir: values['keep-failed'] } : {}),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${formatCrashTrialSummary(summary)}\n`);
const passed =
  summary.resumed === summary.trials &&
  summary.stuck === 0 &&
  summary.duplicated === 0 &&
  summary.equal === summary.trials &&
  summary.concurrent.refused === summary.concurrent.tried;
process.exitCode = passed ? 0 : 1;
