import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startCoordinator, useFailoverWorld } from './__fixtures__/failover-world';
import { scenarioSpec } from './__fixtures__/final-state';
import { type ScaleOutProcess, startProcess } from './__fixtures__/scale-out-processes';
import { commandScript, countEffects } from './__fixtures__/scenario';
import { createRunClient } from './run-client';

const world = useFailoverWorld();
const { processes, closers } = world;
const lockMs = 1500;

async function workers(prefix: string, count: number, env: Record<string, string> = {}) {
  const started = await Promise.all(
    Array.from({ length: count }, () =>
      startProcess({ role: 'worker', url: world.redis.url, prefix, concurrency: 1, lockMs, env }),
    ),
  );
  processes.push(...started);
  return started;
}

/**
 * Where the test's commands leave notes for the test, relative to the workspace: a folder the
 * workspace fingerprint skips (commands run sandboxed and see only the workspace), so what they
 * write there never counts as a change of the workspace.
 */
const side = 'node_modules/lock-test';

async function submit(prefix: string, settings: Record<string, string | number>, script?: string) {
  const runSpec = scenarioSpec(settings, 'closedloop-lock-');
  const workspace = runSpec.workspace!;
  closers.push(async () => rmSync(workspace, { recursive: true, force: true }));
  if (script !== undefined) writeFileSync(join(workspace, commandScript), script);
  mkdirSync(join(workspace, side), { recursive: true });
  const runs = createRunClient({ connection: world.redis.url, prefix });
  closers.push(() => runs.close());
  const { runId } = await runs.submit(runSpec);
  return { runs, runId, workspace };
}

async function until(what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !done(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
  }
}

const takerOf = (all: ScaleOutProcess[], stepId: string) =>
  all.filter((worker) =>
    worker.events.some((event) => event.type === 'step-taken' && event.stepId === stepId),
  );

describe('the workspace lock across worker processes on one shared workspace (real processes, real Redis)', () => {
  it("two workers' commands (fingerprint-judged calls) never run at once; edits (shared) do", async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    await startCoordinator(world, prefix, lockMs);
    const all = await workers(prefix, 2);
    const log = `${side}/intervals.log`;
    // Each command logs when it starts and ends (where no fingerprint looks), and takes its time.
    const script = `import { appendFileSync } from 'node:fs';
const stepId = process.argv[2];
appendFileSync(${JSON.stringify(log)}, 'start ' + stepId + ' ' + Date.now() + '\\n');
setTimeout(() => {
  appendFileSync('effects/' + stepId + '.txt', stepId + ' effect\\n');
  appendFileSync(${JSON.stringify(log)}, 'end ' + stepId + ' ' + Date.now() + '\\n');
}, 600);
`;
    const { runs, runId, workspace } = await submit(
      prefix,
      { steps: 4, shape: 'wide', turnMs: 0, commandStep: 'step-1,step-2,step-3' },
      script,
    );
    const result = await runs.result(runId);
    expect(result.stopReason).toBe('completed');
    expect([...countEffects(workspace, 4).values()]).toEqual([1, 1, 1, 1]);
    // Both workers ran commands (otherwise nothing here was concurrent).
    const ranCommands = all.filter((worker) =>
      worker.events.some(
        (event) =>
          event.type === 'step-taken' && ['step-1', 'step-2', 'step-3'].includes(String(event.stepId)),
      ),
    );
    expect(ranCommands.length).toBe(2);
    const lines = readFileSync(join(workspace, log), 'utf8').trim().split('\n');
    const intervals = new Map<string, [number, number]>();
    for (const line of lines) {
      const [kind, stepId, at] = line.split(' ');
      const interval = intervals.get(stepId!) ?? [0, 0];
      interval[kind === 'start' ? 0 : 1] = Number(at);
      intervals.set(stepId!, interval);
    }
    expect(intervals.size).toBe(3);
    const sorted = [...intervals.values()].sort((a, b) => a[0] - b[0]);
    for (let index = 1; index < sorted.length; index++) {
      expect(sorted[index]![0], `commands overlapped: ${lines.join(' | ')}`).toBeGreaterThanOrEqual(
        sorted[index - 1]![1],
      );
    }
  }, 90_000);

  it("a frozen holder of a shared grant does not hold up the other worker's edit; once SIGKILLed, its grant passes to the step's next attempt and the run completes, each effect once", async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    await startCoordinator(world, prefix, lockMs);
    // The first worker stops dead inside step-1's edit, after the file changed (a shared grant held).
    const frozen = await startProcess({
      role: 'worker',
      url: world.redis.url,
      prefix,
      concurrency: 1,
      lockMs,
      env: { CLOSEDLOOP_FREEZE: JSON.stringify({ stepId: 'step-1', point: 'after-effect' }) },
    });
    processes.push(frozen);
    const { runs, runId, workspace } = await submit(prefix, {
      steps: 2,
      shape: 'wide',
      turnMs: 0,
      runConcurrency: 2,
    });
    await frozen.waitFor((event) => event.type === 'frozen', 60_000);
    const [other] = await workers(prefix, 1);
    // Readers share: step-2's edit goes through while step-1's worker holds its shared grant.
    await other!.waitFor((event) => event.type === 'step-done' && event.stepId === 'step-2', 30_000);
    expect(countEffects(workspace, 2).get('step-2')).toBe(1);
    await frozen.kill();
    const result = await runs.result(runId);
    expect(result.stopReason).toBe('completed');
    expect(result.plan?.steps.map((step) => [step.id, step.status])).toEqual([
      ['step-1', 'completed'],
      ['step-2', 'completed'],
    ]);
    expect([...countEffects(workspace, 2).values()]).toEqual([1, 1]);
  }, 90_000);

  for (const point of ['before-effect', 'after-effect'] as const) {
    it(`SIGKILL of the worker whose command holds the lock alone (${point}), its command killed with it: the other worker's step waits, yields its slot, the dead step is settled first — no effect lost or repeated, no false completed`, async () => {
      const prefix = `t-${randomUUID().slice(0, 8)}`;
      await startCoordinator(world, prefix, lockMs);
      const all = await workers(prefix, 2, { CLOSEDLOOP_APPROVE: '1' });
      const marker = `${side}/first.json`;
      // The first command to run (whichever step) stops dead — before or after its effect — and
      // says so where no fingerprint looks; every other command (the other step's, a re-run) just acts.
      const script = `import { appendFileSync, writeFileSync } from 'node:fs';
const stepId = process.argv[2];
let first = true;
try { writeFileSync(${JSON.stringify(`${marker}.claim`)}, stepId, { flag: 'wx' }); } catch { first = false; }
const effect = () => appendFileSync('effects/' + stepId + '.txt', stepId + ' effect\\n');
if (!first) effect();
else {
  ${point === 'after-effect' ? 'effect();' : ''}
  writeFileSync(${JSON.stringify(marker)}, JSON.stringify({ stepId, pid: process.pid }));
  setInterval(() => {}, 1000);
}
`;
      const { runs, runId, workspace } = await submit(
        prefix,
        { steps: 2, shape: 'wide', turnMs: 0, runConcurrency: 2, commandStep: 'step-1,step-2' },
        script,
      );
      await until('the first command froze', () => existsSync(join(workspace, marker)));
      await sleep(50);
      const { stepId, pid } = JSON.parse(readFileSync(join(workspace, marker), 'utf8')) as {
        stepId: string;
        pid: number;
      };
      const otherStep = stepId === 'step-1' ? 'step-2' : 'step-1';
      const [holder] = takerOf(all, stepId);
      const survivor = all.find((worker) => worker !== holder)!;
      expect(holder).toBeDefined();
      // Both steps are under way, on the two workers: the other one waits for the lock.
      await survivor.waitFor((event) => event.type === 'step-taken' && event.stepId === otherStep);
      await sleep(300);
      expect(countEffects(workspace, 2).get(otherStep)).toBe(0);
      await holder!.kill();
      process.kill(pid, 'SIGKILL');

      const result = await runs.result(runId);
      expect(result.stopReason).toBe('completed');
      expect(result.plan?.steps.map((step) => [step.id, step.status])).toEqual([
        ['step-1', 'completed'],
        ['step-2', 'completed'],
      ]);
      expect([...countEffects(workspace, 2).values()]).toEqual([1, 1]);
      // The survivor gave its slot up to settle the dead step, whose workspace was judged
      // untouched by anyone else: it ran again (before) or was accepted as done (after).
      expect(
        survivor.events.some((event) => event.type === 'step-yielded' && event.stepId === otherStep),
      ).toBe(true);
      const asked = survivor.events.filter(
        (event) => event.type === 'approval' && event.kind === 'resume-review',
      );
      expect(asked.map((event) => event.stepId)).toEqual([stepId]);
      expect(String(asked[0]!.reason)).toMatch(
        point === 'before-effect'
          ? /has not changed since it started/
          : /the workspace changed since it started/,
      );
    }, 120_000);
  }
});
