/**
 * A real coordinator or step worker process for the multi-process tests and the benchmarks:
 * `node --import tsx --conditions=@closedloop/source scale-out-process.ts <worker|coordinator> <redisUrl> <prefix> [concurrency] [lockMs] [quiet]`.
 * Prints one JSON line per event on stdout ("ready" first); with `quiet`, a worker leaves out its
 * per-step lines (`step-taken`, `step-done`), as a benchmark that does not read them asks.
 */
import type { ApprovalRequest } from '@closedloop/cortex';
import { createCoordinator } from '../coordinator';
import type { RunSpec } from '../step-jobs';
import { createStepWorker } from '../step-worker';
import { type Freeze, freezeCortex } from './freeze-points';
import { scenarioCortex, warmUpScenario } from './scenario';

const [role, url, prefix, concurrencyText = '4', lockText = '2000', quietText] = process.argv.slice(2);
if ((role !== 'worker' && role !== 'coordinator') || !url || !prefix) {
  console.error(
    'usage: scale-out-process.ts <worker|coordinator> <redisUrl> <prefix> [concurrency] [lockMs]',
  );
  process.exit(2);
}
// CLOSEDLOOP_CLOCK_SKEW_MS=<ms>: this process's clock runs that far ahead (negative: behind) of
// the machine's — a worker or coordinator on a machine whose clock disagrees (file times stay the kernel's).
const skewMs = Number(process.env.CLOSEDLOOP_CLOCK_SKEW_MS ?? 0);
if (skewMs !== 0) {
  const realNow = Date.now.bind(Date);
  Date.now = () => realNow() + skewMs;
}
const quiet = quietText === 'quiet';
const print = (event: { type: string; [key: string]: unknown }) => {
  if (quiet && (event.type === 'step-taken' || event.type === 'step-done')) return;
  process.stdout.write(`${JSON.stringify({ pid: process.pid, at: Date.now(), ...event })}\n`);
};
const freeze =
  process.env.CLOSEDLOOP_FREEZE === undefined
    ? undefined
    : (JSON.parse(process.env.CLOSEDLOOP_FREEZE) as Freeze);
// CLOSEDLOOP_WORKSPACE=<dir>: this process's cortex acts on <dir> instead of the run's workspace
// (a worker whose factory maps the run to another folder: another mount of it, or a copy).
const workspace = process.env.CLOSEDLOOP_WORKSPACE;
// CLOSEDLOOP_APPROVE=1: a worker approves every question (an interrupted call is accepted as done
// when the workspace changed since it started, run again when it did not), printing each.
const approve = process.env.CLOSEDLOOP_APPROVE === '1';
const baseCortex = (spec: RunSpec) => {
  const options = scenarioCortex(workspace === undefined ? spec : { ...spec, workspace });
  if (!approve) return options;
  return {
    ...options,
    onApproval: (request: ApprovalRequest) => {
      print({ type: 'approval', stepId: request.stepId, kind: request.kind, reason: request.reason });
      return { approved: true };
    },
  };
};
const cortex =
  freeze === undefined
    ? baseCortex
    : (spec: RunSpec) =>
        freezeCortex(baseCortex(spec), freeze, (point) =>
          print({ type: 'frozen', stepId: freeze.stepId, point }),
        );
const common = {
  connection: url,
  prefix,
  cortex,
  concurrency: Number(concurrencyText),
  lockDurationMs: Number(lockText),
  stalledIntervalMs: Math.max(250, Math.floor(Number(lockText) / 2)),
  name: `${role}-${process.pid}`,
  onEvent: print,
};
const running =
  role === 'worker'
    ? createStepWorker({ ...common, warmUp: () => warmUpScenario() })
    : createCoordinator(common);
await running.ready();
print({ type: 'ready', role });
process.on('SIGTERM', () => {
  void running.close().then(() => process.exit(0));
});
