/**
 * Scale-out throughput: `pnpm bench` in packages/bullmq (or
 * `npx tsx --conditions=@closedloop/source bench/throughput.bench.ts [steps] [stepMs] [perWorker] [workers,…]`).
 *
 * A private redis-server, one coordinator process and W step-worker processes (W = 1, 2, 4),
 * each worker running `perWorker` steps at once. One run of `steps` independent steps (default
 * 500); each step is two model turns of `stepMs / 2` (a scripted model: the step waits on its
 * model like a real one does) plus its real tool calls (write_file, an effect) and its real
 * verification, run by the real executor and verifier in the worker processes.
 *
 * Makespan: from the first `step-started` to the last `step-finished` in the run's journal.
 * Ideal: ⌈steps ÷ (perWorker × W)⌉ × stepMs — perfect packing of the slots the workers offer,
 * zero overhead. The steps wait (they do not compute), so the 2 cores of this machine are not
 * the limit as long as the CPU each step costs (executor, verifier, journaling, Redis) stays
 * well below stepMs × cores ÷ slots; the CPU figure printed shows how much there was.
 * Target: makespan ≤ 1.2 × ideal for every W. Also prints an in-process baseline (one
 * process, no Redis, the same per-process concurrency) for comparison.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCortex, type RunEvent } from '@closedloop/cortex';
import { type ScaleOutProcess, startProcess } from '../src/__fixtures__/scale-out-processes';
import { scenarioCortex } from '../src/__fixtures__/scenario';
import { createRunClient } from '../src/run-client';
import type { RunSpec } from '../src/step-jobs';
import { startRedisServer } from '../src/testing';

const [stepsText = '500', stepMsText = '50', perWorkerText = '4', workersText = '1,2,4'] =
  process.argv.slice(2);
const steps = Number(stepsText);
const stepMs = Number(stepMsText);
const perWorker = Number(perWorkerText);
const workerCounts = workersText.split(',').map(Number);

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function makespanOf(events: readonly RunEvent[]): { makespan: number; stepsDone: number; wall: number } {
  const starts = events.filter((event) => event.type === 'step-started').map((event) => event.at);
  const finishes = events.filter((event) => event.type === 'step-finished');
  const runStarted = events.find((event) => event.type === 'run-started')!.at;
  const runFinished = events.findLast((event) => event.type === 'run-finished')!.at;
  return {
    makespan: Math.max(...finishes.map((event) => event.at)) - Math.min(...starts),
    stepsDone: finishes.filter((event) => event.type === 'step-finished' && event.status === 'completed')
      .length,
    wall: runFinished - runStarted,
  };
}

function specFor(concurrency: number): RunSpec {
  return {
    request: `Run ${steps} independent steps.`,
    workspace: mkdtempSync(join(tmpdir(), 'closedloop-bench-')),
    settings: { steps, shape: 'wide', turnMs: stepMs / 2, runConcurrency: concurrency },
  };
}

const rows: string[] = [];
let failed = false;

// In-process baseline: one process, `perWorker` steps at once, the memory store.
{
  const spec = specFor(perWorker);
  const events: RunEvent[] = [];
  const cortex = createCortex({ ...scenarioCortex(spec), onEvent: (event) => events.push(event) });
  const cpu = process.cpuUsage();
  const result = await cortex.run(spec.request);
  const used = process.cpuUsage(cpu);
  const { makespan, stepsDone } = makespanOf(events);
  const ideal = Math.ceil(steps / perWorker) * stepMs;
  rows.push(
    `in-process (1 process × ${perWorker}): makespan ${makespan} ms, ideal ${ideal} ms, ratio ${(makespan / ideal).toFixed(3)}, ${stepsDone}/${steps} steps completed (${result.stopReason}), CPU ${((used.user + used.system) / 1000 / steps).toFixed(2)} ms/step`,
  );
  rmSync(spec.workspace!, { recursive: true, force: true });
}

const redis = await startRedisServer();
try {
  for (const workers of workerCounts) {
    const prefix = `bench-${randomUUID().slice(0, 8)}`;
    const processes: ScaleOutProcess[] = await Promise.all([
      startProcess({ role: 'coordinator', url: redis.url, prefix, concurrency: 1, lockMs: 30_000 }),
      ...Array.from({ length: workers }, () =>
        startProcess({ role: 'worker', url: redis.url, prefix, concurrency: perWorker, lockMs: 30_000 }),
      ),
    ]);
    const pids = [...processes.map((child) => child.child.pid), redis.process.pid];
    const client = createRunClient({ connection: redis.url, prefix });
    const spec = specFor(2 * perWorker * workers);
    const cpuBefore = pids.map(cpuSeconds);
    const { runId } = await client.submit(spec);
    const result = await client.result(runId);
    const cpuEach = pids.map((pid, index) => cpuSeconds(pid) - cpuBefore[index]!);
    const cpuUsed = cpuEach.reduce((sum, value) => sum + value, 0);
    const perStep = (seconds: number) => ((seconds * 1000) / steps).toFixed(2);
    const cpuSplit = `coordinator ${perStep(cpuEach[0]!)}, workers ${perStep(cpuEach.slice(1, -1).reduce((sum, value) => sum + value, 0))}, redis ${perStep(cpuEach.at(-1)!)}`;
    const events = await client.store.read(runId);
    const { makespan, stepsDone, wall } = makespanOf(events);
    const ideal = Math.ceil(steps / (perWorker * workers)) * stepMs;
    const ratio = makespan / ideal;
    const pass = ratio <= 1.2 && stepsDone === steps;
    failed ||= !pass;
    rows.push(
      `${pass ? 'PASS' : 'FAIL'}  ${workers} worker process(es) × ${perWorker}: makespan ${makespan} ms, ideal ${ideal} ms, ratio ${ratio.toFixed(3)} (target ≤ 1.2), ${stepsDone}/${steps} steps completed (${result.stopReason}), run wall ${wall} ms, CPU ${perStep(cpuUsed)} ms/step (${cpuSplit})`,
    );
    console.log(rows.at(-1));
    await client.close();
    await Promise.all(processes.map((child) => child.stop()));
    rmSync(spec.workspace!, { recursive: true, force: true });
  }
} finally {
  await redis.stop();
}

console.log(
  `\nScale-out throughput: ${steps} steps of ${stepMs} ms, ${perWorker} steps at once per worker process`,
);
for (const row of rows) console.log(row);
process.exitCode = failed ? 1 : 0;
