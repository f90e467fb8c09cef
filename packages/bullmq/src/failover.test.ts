import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalState, scenarioSpec, uninterruptedState } from './__fixtures__/final-state';
import { type ScaleOutProcess, startProcess } from './__fixtures__/scale-out-processes';
import { scenarioCortex } from './__fixtures__/scenario';
import { createCoordinator } from './coordinator';
import { createRunClient, type RunClient } from './run-client';
import { createStepWorker } from './step-worker';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
const processes: ScaleOutProcess[] = [];
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const child of processes) await child.kill();
  for (const close of closers.reverse()) await close();
  await redis.stop();
});

const lockMs = 1500;

async function start(role: 'worker' | 'coordinator', prefix: string, concurrency = 2) {
  const child = await startProcess({ role, url: redis.url, prefix, concurrency, lockMs });
  processes.push(child);
  return child;
}

function client(prefix: string): RunClient {
  const created = createRunClient({ connection: redis.url, prefix });
  closers.push(() => created.close());
  return created;
}

describe('failover between real processes (SIGKILL)', () => {
  it('a worker killed mid-step: another worker takes the step over and the run completes as if nothing happened', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const workers = await Promise.all([start('worker', prefix, 1), start('worker', prefix, 1)]);
    const coordinator = createCoordinator({
      connection: redis.url,
      prefix,
      cortex: scenarioCortex,
      lockDurationMs: lockMs,
    });
    closers.push(() => coordinator.close());
    await coordinator.ready();
    const settings = { steps: 5, shape: 'chain', turnMs: 400 };
    const runSpec = scenarioSpec(settings, 'closedloop-failover-');
    const runs = client(prefix);
    const { runId } = await runs.submit(runSpec);
    const taken = await Promise.race(
      workers.map((worker) =>
        worker.waitFor((event) => event.type === 'step-taken' && event.stepId === 'step-3'),
      ),
    );
    const victim = workers.find((worker) => worker.child.pid === taken.pid)!;
    await victim.kill();
    const survivor = workers.find((worker) => worker !== victim)!;
    const result = await runs.result(runId);
    expect(finalState(result, runSpec.workspace!)).toEqual({
      state: await uninterruptedState(settings),
      duplicated: 0,
    });
    // The survivor ran the killed worker's step.
    await survivor.waitFor((event) => event.type === 'step-done' && event.stepId === 'step-3', 1000);
  }, 60_000);

  it('the coordinator killed mid-run: another coordinator resumes the run from Redis and no step runs twice', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const worker = createStepWorker({
      connection: redis.url,
      prefix,
      cortex: scenarioCortex,
      concurrency: 2,
      lockDurationMs: lockMs,
    });
    closers.push(() => worker.close());
    await worker.ready();
    const first = await start('coordinator', prefix);
    const settings = { steps: 6, shape: 'chain', turnMs: 150 };
    const runSpec = scenarioSpec(settings, 'closedloop-failover-');
    const runs = client(prefix);
    const { runId } = await runs.submit(runSpec);
    const controller = new AbortController();
    for await (const { event } of runs.store.tail(runId, { signal: controller.signal, blockMs: 200 })) {
      if (event.type === 'step-started' && event.stepId === 'step-3') break;
    }
    controller.abort();
    await first.kill();
    await start('coordinator', prefix);
    const result = await runs.result(runId);
    expect(result.report.sessions).toBe(2);
    expect(finalState(result, runSpec.workspace!)).toEqual({
      state: await uninterruptedState(settings),
      duplicated: 0,
    });
  }, 60_000);
});
