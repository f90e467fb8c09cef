import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalState, scenarioSpec, uninterruptedState } from './__fixtures__/final-state';
import { type ScaleOutProcess, startProcess } from './__fixtures__/scale-out-processes';
import { scenarioCortex } from './__fixtures__/scenario';
import { createCoordinator } from './coordinator';
import { createRunClient } from './run-client';
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
const settings = { steps: 3, shape: 'chain', turnMs: 0 };

describe('coordinator and workers whose clocks disagree (real processes, real Redis)', () => {
  it.each([
    [600, -600],
    [-600, 600],
    [30_000, -30_000],
  ])(
    'a worker %i ms off killed after its edit, taken over by one %i ms off: the run completes as if nothing happened',
    async (killedSkew, survivorSkew) => {
      const prefix = `t-${randomUUID().slice(0, 8)}`;
      const coordinator = createCoordinator({
        connection: redis.url,
        prefix,
        cortex: scenarioCortex,
        lockDurationMs: lockMs,
      });
      closers.push(() => coordinator.close());
      await coordinator.ready();
      const frozen = await startProcess({
        role: 'worker',
        url: redis.url,
        prefix,
        concurrency: 1,
        lockMs,
        env: {
          CLOSEDLOOP_FREEZE: JSON.stringify({ stepId: 'step-2', point: 'after-effect' }),
          CLOSEDLOOP_CLOCK_SKEW_MS: String(killedSkew),
        },
      });
      processes.push(frozen);
      const runSpec = scenarioSpec(settings, 'closedloop-clocks-');
      const runs = createRunClient({ connection: redis.url, prefix });
      closers.push(() => runs.close());
      try {
        const { runId } = await runs.submit(runSpec);
        await frozen.waitFor((event) => event.type === 'frozen', 60_000);
        await frozen.kill();
        processes.push(
          await startProcess({
            role: 'worker',
            url: redis.url,
            prefix,
            concurrency: 1,
            lockMs,
            env: { CLOSEDLOOP_CLOCK_SKEW_MS: String(survivorSkew) },
          }),
        );
        const result = await runs.result(runId);
        const step = result.plan?.steps.find((entry) => entry.id === 'step-2');
        expect(
          finalState(result, runSpec.workspace!),
          JSON.stringify(step?.verification?.findings.filter((f) => f.status !== 'pass')),
        ).toEqual({
          state: await uninterruptedState(settings),
          duplicated: 0,
        });
      } finally {
        rmSync(runSpec.workspace!, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
