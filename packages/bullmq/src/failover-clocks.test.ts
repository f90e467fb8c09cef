import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startCoordinator, startFrozenWorker, useFailoverWorld } from './__fixtures__/failover-world';
import { finalState, scenarioSpec, uninterruptedState } from './__fixtures__/final-state';
import { startProcess } from './__fixtures__/scale-out-processes';
import { createRunClient } from './run-client';

const world = useFailoverWorld();
const { processes, closers } = world;

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
      await startCoordinator(world, prefix, lockMs);
      const frozen = await startFrozenWorker(world, {
        prefix,
        lockMs,
        stepId: 'step-2',
        point: 'after-effect',
        env: { CLOSEDLOOP_CLOCK_SKEW_MS: String(killedSkew) },
      });
      const runSpec = scenarioSpec(settings, 'closedloop-clocks-');
      const runs = createRunClient({ connection: world.redis.url, prefix });
      closers.push(() => runs.close());
      try {
        const { runId } = await runs.submit(runSpec);
        await frozen.waitFor((event) => event.type === 'frozen', 60_000);
        await frozen.kill();
        processes.push(
          await startProcess({
            role: 'worker',
            url: world.redis.url,
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
