/**
 * Failover trials: `pnpm trials` in packages/bullmq (or
 * `npx tsx --conditions=@closedloop/source bench/failover-trials.ts [workerTrials] [coordinatorTrials]`).
 *
 * A private redis-server, real coordinator and step-worker processes (the scenario of the
 * tests: every step writes its file, edits it — its non-idempotent effect: an edit applied twice
 * leaves its line twice — and claims the file). Each trial runs one 8-step run (two layers of four):
 *
 * - worker trials: a worker is SIGKILLed at a random moment while it runs a step (0–120 ms after
 *   it took the step: before, during or after the step's tool calls); a fresh worker replaces it;
 * - coordinator trials: the coordinator is SIGKILLed at a random moment of the run (between its
 *   first step dispatch and its end); a fresh coordinator takes the run over.
 *
 * Per trial: did the run complete, how many effects ran more than once (effect lines beyond one
 * per step), and is the final state — stop reason, answer, step statuses, files, effects — equal to
 * an uninterrupted run of the same scenario. Exit code 1 unless every trial passes.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { finalState, scenarioSpec, uninterruptedState } from '../src/__fixtures__/final-state';
import { type ScaleOutProcess, startProcess } from '../src/__fixtures__/scale-out-processes';
import { createRunClient } from '../src/run-client';
import { startRedisServer } from '../src/testing';

const [workerTrialsText = '50', coordinatorTrialsText = '20'] = process.argv.slice(2);
const workerTrials = Number(workerTrialsText);
const coordinatorTrials = Number(coordinatorTrialsText);
const lockMs = 1500;
const settings = { steps: 8, shape: 'layers', turnMs: 60, runConcurrency: 4 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const expected = await uninterruptedState(settings);

interface Trial {
  kind: 'worker' | 'coordinator';
  completed: boolean;
  duplicated: number;
  equal: boolean;
  killedAt: string;
  error?: string;
}
const trials: Trial[] = [];

const redis = await startRedisServer();
const prefix = `trials-${randomUUID().slice(0, 8)}`;
const client = createRunClient({ connection: redis.url, prefix });
const start = (role: 'worker' | 'coordinator') =>
  startProcess({ role, url: redis.url, prefix, concurrency: role === 'worker' ? 2 : 4, lockMs });
let coordinator = await start('coordinator');
const workers: ScaleOutProcess[] = await Promise.all([start('worker'), start('worker')]);

async function trial(kind: 'worker' | 'coordinator'): Promise<Trial> {
  const runSpec = scenarioSpec(settings, 'closedloop-trial-');
  const { runId } = await client.submit(runSpec);
  let killedAt = 'never';
  if (kind === 'worker') {
    // Kill the worker that takes the nth step of this run, a random moment after it took it.
    const nth = 1 + Math.floor(Math.random() * settings.steps);
    const taken = await Promise.race(
      workers.map((worker) =>
        worker.waitFor(
          (event) =>
            event.type === 'step-taken' &&
            String(event.jobId).startsWith(`${runId}/`) &&
            event.stepId === `step-${nth}`,
          60_000,
        ),
      ),
    );
    const victim = workers.find((worker) => worker.child.pid === taken.pid)!;
    const delay = Math.floor(Math.random() * 120);
    await sleep(delay);
    await victim.kill();
    killedAt = `step-${nth} +${delay} ms`;
    workers.splice(workers.indexOf(victim), 1, await start('worker'));
  } else {
    const controller = new AbortController();
    let first = 0;
    const delay = Math.floor(Math.random() * 700);
    for await (const { event } of client.store.tail(runId, { signal: controller.signal, blockMs: 200 })) {
      if (event.type === 'step-started' && first === 0) {
        first = Date.now();
        break;
      }
    }
    controller.abort();
    await sleep(Math.max(0, first + delay - Date.now()));
    await coordinator.kill();
    killedAt = `${delay} ms after the first dispatch`;
    coordinator = await start('coordinator');
  }
  try {
    const result = await client.result(runId);
    if (result.stopReason !== 'completed' && process.env.TRIALS_DUMP !== undefined) {
      // What the run's journal holds of the steps that did not complete (adopted from every attempt).
      const stuck = new Set(
        (result.plan?.steps ?? []).filter((step) => step.status !== 'completed').map((step) => step.id),
      );
      const events = await client.store.read(runId);
      const lines = events
        .filter((event) => stuck.has((event as { stepId?: string }).stepId ?? ''))
        .map((event) => JSON.stringify(event).slice(0, 300));
      writeFileSync(`${process.env.TRIALS_DUMP}/${runId}.txt`, lines.join('\n'));
    }
    const { state, duplicated } = finalState(result, runSpec.workspace!);
    return {
      kind,
      completed: result.stopReason === 'completed',
      duplicated,
      equal: state === expected,
      killedAt,
      ...(result.stopReason !== 'completed'
        ? {
            error: `${result.stopReason}: ${result.reason}; ${(result.plan?.steps ?? [])
              .filter((step) => step.status !== 'completed')
              .map(
                (step) =>
                  `${step.id} ${step.status}: ${step.notes} ${JSON.stringify(step.verification?.findings?.filter((finding) => finding.status !== 'pass'))}`,
              )
              .join(' | ')}`,
          }
        : {}),
    };
  } catch (error) {
    return {
      kind,
      completed: false,
      duplicated: 0,
      equal: false,
      killedAt,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    rmSync(runSpec.workspace!, { recursive: true, force: true });
  }
}

try {
  for (let index = 0; index < workerTrials; index++) {
    trials.push(await trial('worker'));
    const last = trials.at(-1)!;
    console.log(
      `worker trial ${index + 1}/${workerTrials}: killed at ${last.killedAt} → completed ${last.completed}, duplicated ${last.duplicated}, equal ${last.equal}${last.error ? ` (${last.error})` : ''}`,
    );
  }
  for (let index = 0; index < coordinatorTrials; index++) {
    trials.push(await trial('coordinator'));
    const last = trials.at(-1)!;
    console.log(
      `coordinator trial ${index + 1}/${coordinatorTrials}: killed ${last.killedAt} → completed ${last.completed}, duplicated ${last.duplicated}, equal ${last.equal}${last.error ? ` (${last.error})` : ''}`,
    );
  }
} finally {
  await client.close();
  await Promise.all([coordinator, ...workers].map((child) => child.stop()));
  await redis.stop();
}

let failed = false;
console.log('\nFailover trials (8-step runs, SIGKILL at a random moment):');
for (const kind of ['worker', 'coordinator'] as const) {
  const of = trials.filter((entry) => entry.kind === kind);
  const completed = of.filter((entry) => entry.completed).length;
  const duplicated = of.reduce((sum, entry) => sum + entry.duplicated, 0);
  const runsWithDuplicates = of.filter((entry) => entry.duplicated > 0).length;
  const equal = of.filter((entry) => entry.equal).length;
  const pass = completed === of.length && duplicated === 0 && equal === of.length;
  failed ||= !pass;
  console.log(
    `${pass ? 'PASS' : 'FAIL'}  ${kind} killed: ${of.length} runs, ${completed} completed, ${duplicated} duplicated effects (in ${runsWithDuplicates} runs), ${equal} equal to an uninterrupted run`,
  );
}
process.exitCode = failed ? 1 : 0;
