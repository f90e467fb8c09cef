import { randomUUID } from 'node:crypto';
import { createCortex } from '@closedloop/cortex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioSpec } from './__fixtures__/final-state';
import { scenarioCortex } from './__fixtures__/scenario';
import { createRedisRunStore } from './redis-run-store';
import { createStepDispatcher } from './step-dispatcher';
import { createStepWorker, type StepWorkerEvent } from './step-worker';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});

/** The most intervals open at once. */
function maxOverlap(intervals: readonly [start: number, end: number][]): number {
  const edges = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]) as [number, number][];
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, delta] of edges) {
    open += delta;
    most = Math.max(most, open);
  }
  return most;
}

describe('concurrency limits', () => {
  it('per run (cortex concurrency) and per worker (worker concurrency) both hold', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const store = createRedisRunStore({ connection: redis.url, prefix });
    const dispatcher = createStepDispatcher({ connection: redis.url, prefix });
    const perWorker = new Map<string, [number, number][]>();
    const open = new Map<string, number>();
    const track = (name: string) => (event: StepWorkerEvent) => {
      if (event.type === 'step-taken') open.set(event.jobId, performance.now());
      if (event.type === 'step-done') {
        const list = perWorker.get(name) ?? [];
        list.push([open.get(event.jobId)!, performance.now()]);
        perWorker.set(name, list);
      }
    };
    const workers = ['a', 'b'].map((name) =>
      createStepWorker({
        connection: redis.url,
        prefix,
        cortex: scenarioCortex,
        concurrency: 2,
        onEvent: track(name),
      }),
    );
    await Promise.all(workers.map((worker) => worker.ready()));
    try {
      const spec = scenarioSpec(
        { steps: 12, shape: 'wide', turnMs: 40, runConcurrency: 3 },
        'closedloop-limits-',
      );
      const result = await createCortex({
        ...scenarioCortex(spec),
        store,
        stepRunner: dispatcher.runnerFor(spec),
      }).run(spec.request);
      expect(result.stopReason).toBe('completed');
      const journal = await store.read(result.runId);
      const started = new Map<string, number>();
      const runIntervals: [number, number][] = [];
      for (const event of journal) {
        if (event.type === 'step-started') started.set(event.stepId, event.at);
        if (event.type === 'step-finished') runIntervals.push([started.get(event.stepId)!, event.at]);
      }
      expect(runIntervals).toHaveLength(12);
      expect(maxOverlap(runIntervals)).toBe(3);
      for (const intervals of perWorker.values()) expect(maxOverlap(intervals)).toBeLessThanOrEqual(2);
      expect([...perWorker.values()].flat()).toHaveLength(12);
    } finally {
      for (const worker of workers) await worker.close();
      await dispatcher.close();
      await store.close();
    }
  });
});
