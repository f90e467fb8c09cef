import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCoordinator, useFailoverWorld } from './__fixtures__/failover-world';
import { finalState, scenarioSpec, uninterruptedState } from './__fixtures__/final-state';
import { startProcess } from './__fixtures__/scale-out-processes';
import { commandScript, effectFile, effectLine, scenarioCortex } from './__fixtures__/scenario';
import { createRunClient, type RunClient } from './run-client';
import { createStepWorker } from './step-worker';

const world = useFailoverWorld();
const { processes, closers } = world;

const lockMs = 1500;

async function start(role: 'worker' | 'coordinator', prefix: string, concurrency = 2) {
  const child = await startProcess({ role, url: world.redis.url, prefix, concurrency, lockMs });
  processes.push(child);
  return child;
}

function client(prefix: string): RunClient {
  const created = createRunClient({ connection: world.redis.url, prefix });
  closers.push(() => created.close());
  return created;
}

describe('failover between real processes (SIGKILL)', () => {
  it('a worker killed mid-step: another worker takes the step over and the run completes as if nothing happened', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const workers = await Promise.all([start('worker', prefix, 1), start('worker', prefix, 1)]);
    await startCoordinator(world, prefix, lockMs);
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
      connection: world.redis.url,
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

  it('a command cut off by a dead worker, with no onApproval to ask: the step ends blocked for review and the run stops (blocked), it does not hang', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const workers = await Promise.all([start('worker', prefix, 1), start('worker', prefix, 1)]);
    await start('coordinator', prefix);
    const settings = { steps: 3, shape: 'chain', turnMs: 50, commandStep: 'step-2' };
    const runSpec = scenarioSpec(settings, 'closedloop-failover-');
    const workspace = runSpec.workspace!;
    // The command marks that it started, then takes its time before its effect.
    writeFileSync(
      join(workspace, commandScript),
      `import { appendFileSync, writeFileSync } from 'node:fs';
const stepId = process.argv[2];
writeFileSync('effects/' + stepId + '.started', '');
setTimeout(() => appendFileSync('effects/' + stepId + '.txt', stepId + ' effect\\n'), 1500);
`,
    );
    const runs = client(prefix);
    const { runId } = await runs.submit(runSpec);
    const taken = await Promise.race(
      workers.map((worker) =>
        worker.waitFor((event) => event.type === 'step-taken' && event.stepId === 'step-2'),
      ),
    );
    for (const deadline = Date.now() + 20_000; !existsSync(join(workspace, 'effects/step-2.started')); ) {
      if (Date.now() > deadline) throw new Error('the command of step-2 never started');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await workers.find((worker) => worker.child.pid === taken.pid)!.kill();

    const result = await runs.result(runId);
    expect(result.stopReason).toBe('blocked');
    expect(result.plan?.steps.map((step) => [step.id, step.status])).toEqual([
      ['step-1', 'completed'],
      ['step-2', 'blocked'],
      ['step-3', 'blocked'],
    ]);
    const blocked = result.plan!.steps[1]!;
    expect(blocked.notes).toMatch(
      /run_command .* was interrupted .* not approved .*no onApproval handler is configured.*needs review/s,
    );
    const events = await runs.store.read(runId);
    const asked = events.filter((event) => event.type === 'approval-requested' && event.stepId === 'step-2');
    expect(asked).toMatchObject([{ kind: 'resume-review', tool: 'run_command' }]);
    expect(
      events.filter((event) => event.type === 'approval-resolved' && event.stepId === 'step-2'),
    ).toMatchObject([{ approved: false, note: 'no onApproval handler is configured' }]);
    // Not run again: its effect shows at most once (once if the cut-off command finished anyway).
    const effects = readFileSync(join(workspace, effectFile('step-2')), 'utf8')
      .split('\n')
      .filter((line) => line === effectLine('step-2'));
    expect(effects.length).toBeLessThanOrEqual(1);
  }, 60_000);
});
