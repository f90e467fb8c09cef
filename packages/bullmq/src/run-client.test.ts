import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioSpec } from './__fixtures__/final-state';
import { countEffects, scenarioCortex } from './__fixtures__/scenario';
import { createCoordinator } from './coordinator';
import { createRunClient } from './run-client';
import type { RunSpec } from './step-jobs';
import { createStepWorker } from './step-worker';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await redis.stop();
});

function spec(settings: RunSpec['settings']): RunSpec {
  return scenarioSpec(settings, 'closedloop-client-');
}

async function deployment() {
  const prefix = `t-${randomUUID().slice(0, 8)}`;
  const coordinator = createCoordinator({ connection: redis.url, prefix, cortex: scenarioCortex });
  const worker = createStepWorker({ connection: redis.url, prefix, cortex: scenarioCortex, concurrency: 2 });
  const client = createRunClient({ connection: redis.url, prefix });
  await Promise.all([coordinator.ready(), worker.ready()]);
  closers.push(async () => {
    await client.close();
    await worker.close();
    await coordinator.close();
  });
  return { prefix, client };
}

describe('createRunClient', () => {
  it('submits a run for a coordinator, waits for its result, and lists and tails it from the store', async () => {
    const { client } = await deployment();
    expect(await client.connected()).toEqual({ coordinators: 1, workers: 1 });
    const runSpec = spec({ steps: 3, shape: 'chain', turnMs: 5 });
    const { runId } = await client.submit(runSpec, { runId: 'run-client-1' });
    expect(runId).toBe('run-client-1');
    const result = await client.result(runId);
    expect(result.stopReason).toBe('completed');
    expect((await client.store.runs()).map((run) => run.runId)).toContain(runId);
    const tailed: string[] = [];
    for await (const { event } of client.store.tail(runId, {
      signal: AbortSignal.timeout(2000),
      blockMs: 100,
    })) {
      tailed.push(event.type);
      if (event.type === 'run-finished') break;
    }
    expect(tailed[0]).toBe('run-started');
    expect(tailed.at(-1)).toBe('run-finished');
    await expect(client.submit(runSpec, { runId })).rejects.toMatchObject({ code: 'run-exists' });
  });

  it('cancels a run from another process and resumes it to the end, each effect once', async () => {
    const { client } = await deployment();
    const runSpec = spec({ steps: 6, shape: 'chain', turnMs: 60 });
    const { runId } = await client.submit(runSpec);
    for await (const { event } of client.store.tail(runId, { blockMs: 100 })) {
      if (event.type === 'step-finished' && event.stepId === 'step-2') break;
    }
    await client.cancel(runId);
    const cancelled = await client.result(runId);
    expect(cancelled.stopReason).toBe('cancelled');
    await client.resume(runId);
    const resumed = await client.result(runId);
    expect(resumed.stopReason).toBe('completed');
    expect([...countEffects(runSpec.workspace!, 6).values()]).toEqual(Array(6).fill(1));
  });

  it('refuses a bad spec and a bad run id', async () => {
    const { client } = await deployment();
    await expect(client.submit({ request: '' })).rejects.toMatchObject({ code: 'invalid-options' });
    await expect(client.submit({ request: 'x', workspace: 'relative/ws' })).rejects.toThrow(/absolute path/);
    await expect(client.submit({ request: 'x' }, { runId: '../x' })).rejects.toMatchObject({
      code: 'invalid-run-id',
    });
  });
});
