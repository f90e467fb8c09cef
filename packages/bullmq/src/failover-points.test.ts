import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { startCoordinator, startFrozenWorker, useFailoverWorld } from './__fixtures__/failover-world';
import { finalState, scenarioSpec, uninterruptedState } from './__fixtures__/final-state';
import type { FreezePoint } from './__fixtures__/freeze-points';
import { startProcess } from './__fixtures__/scale-out-processes';
import { effectFile } from './__fixtures__/scenario';
import { closeRedis, connectRedis } from './redis-connection';
import { redisKeys } from './redis-keys';
import { createRunClient } from './run-client';
import { createStepTranscripts } from './step-transcripts';

const world = useFailoverWorld();
const { processes, closers } = world;

const lockMs = 1500;
const settings = { steps: 3, shape: 'chain', turnMs: 0 };
const victimStep = 'step-2';

/**
 * What the verifier had to go on when the step did not complete: the journal's ledger windows of
 * the step (every attempt's), the start its file-times check uses (the first call), the effect
 * file's times, and when the second worker took the step over.
 */
function diagnose(result: RunResult, workspace: string, takenOverAt: number): string {
  const step = result.plan?.steps.find((entry) => entry.id === victimStep);
  const stats = statSync(join(workspace, effectFile(victimStep)));
  return JSON.stringify({
    status: step?.status,
    notes: step?.notes,
    ledger: step?.ledger.map((call) => [call.tool, call.calledAt, call.respondedAt, call.status]),
    stepStartedAt: step?.ledger[0]?.calledAt,
    effectFile: { mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs },
    takenOverAt,
    findings: step?.verification?.findings.filter((finding) => finding.status !== 'pass'),
  });
}

describe('a worker SIGKILLed at each point of a step effect (real processes, real Redis)', () => {
  it.each<FreezePoint>(['before-effect', 'after-effect', 'after-journal'])(
    'killed %s: the step is taken over, its effect applies once, and the run completes as if nothing happened',
    async (point) => {
      const prefix = `t-${randomUUID().slice(0, 8)}`;
      await startCoordinator(world, prefix, lockMs);
      // Alone at first, so it takes the victim step; it stops dead at `point` inside the step's edit.
      const frozen = await startFrozenWorker(world, { prefix, lockMs, stepId: victimStep, point });
      const runSpec = scenarioSpec(settings, 'closedloop-freeze-');
      const workspace = runSpec.workspace!;
      const runs = createRunClient({ connection: world.redis.url, prefix });
      closers.push(() => runs.close());
      try {
        const { runId } = await runs.submit(runSpec);
        const taken = await frozen.waitFor(
          (event) => event.type === 'step-taken' && event.stepId === victimStep,
          60_000,
        );
        await frozen.waitFor((event) => event.type === 'frozen' && event.point === point, 30_000);
        if (point === 'after-journal') {
          // Killed only once the edit's result is on record in the step's transcript.
          const client = connectRedis(world.redis.url, 'test-transcripts');
          try {
            const transcripts = createStepTranscripts({
              client,
              keys: redisKeys(prefix),
              retentionMs: 60_000,
            });
            for (const deadline = Date.now() + 10_000; ; ) {
              const events = await transcripts.read(String(taken.jobId));
              const edit = events.find(
                (event) => event.type === 'tool-call-started' && event.tool === 'edit_file',
              ) as { callId: string } | undefined;
              if (
                edit !== undefined &&
                events.some((event) => event.type === 'tool-call-finished' && event.callId === edit.callId)
              )
                break;
              if (Date.now() > deadline) throw new Error('the edit of step-2 never reached its transcript');
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          } finally {
            await closeRedis(client);
          }
        }
        await frozen.kill();
        const survivor = await startProcess({
          role: 'worker',
          url: world.redis.url,
          prefix,
          concurrency: 1,
          lockMs,
        });
        processes.push(survivor);
        const result = await runs.result(runId);
        const takenOver = await survivor.waitFor(
          (event) => event.type === 'step-taken' && event.stepId === victimStep,
          1000,
        );
        const state = finalState(result, workspace);
        expect(
          state,
          `killed ${point}: ${diagnose(result, workspace, Number(takenOver.at ?? Number.NaN))}`,
        ).toEqual({ state: await uninterruptedState(settings), duplicated: 0 });
        // The step was continued from its transcript, not started over.
        expect(Number(takenOver.attempt)).toBeGreaterThan(1);
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
