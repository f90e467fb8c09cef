import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCoordinator, startFrozenWorker, useFailoverWorld } from './__fixtures__/failover-world';
import { finalState, scenarioSpec, uninterruptedState } from './__fixtures__/final-state';
import { startProcess } from './__fixtures__/scale-out-processes';
import { countEffects } from './__fixtures__/scenario';
import { createRunClient } from './run-client';

const world = useFailoverWorld();
const { processes, closers } = world;

const lockMs = 1500;
const settings = { steps: 3, shape: 'chain', turnMs: 0 };

/**
 * A worker killed right after its edit of step-2; the worker that takes the step over maps the
 * run to `elsewhere(workspace)` (its CLOSEDLOOP_WORKSPACE).
 */
async function takenOverElsewhere(elsewhere: (workspace: string, scratch: string) => string) {
  const prefix = `t-${randomUUID().slice(0, 8)}`;
  await startCoordinator(world, prefix, lockMs);
  const frozen = await startFrozenWorker(world, { prefix, lockMs, stepId: 'step-2', point: 'after-effect' });
  const runSpec = scenarioSpec(settings, 'closedloop-workspaces-');
  const workspace = runSpec.workspace!;
  const scratch = mkdtempSync(join(tmpdir(), 'closedloop-elsewhere-'));
  closers.push(async () => {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });
  const runs = createRunClient({ connection: world.redis.url, prefix });
  closers.push(() => runs.close());
  const { runId } = await runs.submit(runSpec);
  await frozen.waitFor((event) => event.type === 'frozen', 60_000);
  const other = elsewhere(workspace, scratch);
  await frozen.kill();
  const survivor = await startProcess({
    role: 'worker',
    url: world.redis.url,
    prefix,
    concurrency: 1,
    lockMs,
    env: { CLOSEDLOOP_WORKSPACE: other },
  });
  processes.push(survivor);
  return { result: await runs.result(runId), workspace, other, survivor };
}

describe('a step taken over by a worker whose workspace path for the run differs (real processes, real Redis)', () => {
  it('the same folder under another path (a link): the run completes as if nothing happened', async () => {
    const { result, workspace } = await takenOverElsewhere((workspace, scratch) => {
      const link = join(scratch, 'mounted-here');
      symlinkSync(workspace, link);
      return link;
    });
    expect(finalState(result, workspace)).toEqual({
      state: await uninterruptedState(settings),
      duplicated: 0,
    });
  }, 90_000);

  it('another folder (a copy): the worker refuses the step (workspace-mismatch), the run stops without completing and no effect is applied twice or elsewhere', async () => {
    const { result, workspace, other, survivor } = await takenOverElsewhere((workspace, scratch) => {
      const copy = join(scratch, 'copy');
      cpSync(workspace, copy, { recursive: true });
      return copy;
    });
    expect(result.stopReason).not.toBe('completed');
    const step = result.plan?.steps.find((entry) => entry.id === 'step-2');
    expect(step?.status).not.toBe('completed');
    const refused = await survivor.waitFor((event) => event.type === 'step-error', 1000);
    expect(String(refused.error)).toMatch(/workspace-mismatch/);
    expect([...countEffects(workspace, settings.steps).values()]).toEqual([1, 1, 0]);
    // The copy (taken after step-2's edit) was never acted on: no effect added to it either.
    expect([...countEffects(other, settings.steps).values()]).toEqual([1, 1, 0]);
  }, 90_000);
});
