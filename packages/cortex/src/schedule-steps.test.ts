import { Plan, type StepDraft, type StepId } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { type ScheduleStepsOptions, type StepRunOutcome, scheduleSteps } from './schedule-steps';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

const planOf = (steps: StepDraft[]) => Plan.create({ title: 't', goal: 'g', steps });

/** A runner that sleeps a per-step time and records starts/ends (ms since creation). */
function recorder(
  latency: Record<string, number>,
  outcome: (id: StepId) => StepRunOutcome = () => ({ status: 'completed' }),
) {
  const t0 = performance.now();
  const starts = new Map<StepId, number>();
  const ends = new Map<StepId, number>();
  const runs: StepId[] = [];
  let running = 0;
  let maxRunning = 0;
  const runStep: ScheduleStepsOptions['runStep'] = async (id, { signal }) => {
    runs.push(id);
    starts.set(id, performance.now() - t0);
    running++;
    maxRunning = Math.max(maxRunning, running);
    try {
      await sleep(latency[id] ?? 1, signal);
    } finally {
      running--;
      ends.set(id, performance.now() - t0);
    }
    return outcome(id);
  };
  return { runStep, starts, ends, runs, maxRunning: () => maxRunning };
}

describe('scheduleSteps', () => {
  it('runs every step once, after its dependencies', async () => {
    const plan = planOf([
      { id: 'a', description: 'a' },
      { id: 'b', description: 'b', dependsOn: ['a'] },
      { id: 'c', description: 'c', dependsOn: ['a'] },
      { id: 'd', description: 'd', dependsOn: ['b', 'c'] },
    ]);
    const rec = recorder({ a: 2, b: 5, c: 1, d: 1 });
    const result = await scheduleSteps({ plan, runStep: rec.runStep });
    expect(result).toEqual({ aborted: false, started: 4, replans: 0, abandoned: [] });
    expect(rec.runs.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(plan.counts().completed).toBe(4);
    expect(rec.starts.get('d')!).toBeGreaterThanOrEqual(
      Math.max(rec.ends.get('b')!, rec.ends.get('c')!) - 0.5,
    );
  });

  it('keeps `concurrency` steps running and never more', async () => {
    const plan = planOf(Array.from({ length: 12 }, (_, index) => ({ id: `s${index}`, description: 'x' })));
    const rec = recorder(
      Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`s${index}`, 3 + (index % 4)])),
    );
    await scheduleSteps({ plan, runStep: rec.runStep, concurrency: 3 });
    expect(rec.maxRunning()).toBe(3);
    const serial = planOf([
      { id: 'a', description: 'a' },
      { id: 'b', description: 'b' },
    ]);
    const one = recorder({ a: 2, b: 2 });
    await scheduleSteps({ plan: serial, runStep: one.runStep, concurrency: 1 });
    expect(one.maxRunning()).toBe(1);
  });

  it('a fast branch successor never waits for a slow sibling (no lock-step waves)', async () => {
    const plan = planOf([
      { id: 'slow', description: 'slow' },
      { id: 'fast', description: 'fast' },
      { id: 'next', description: 'after fast', dependsOn: ['fast'] },
    ]);
    const rec = recorder({ slow: 80, fast: 5, next: 5 });
    await scheduleSteps({ plan, runStep: rec.runStep });
    expect(rec.starts.get('next')! - rec.ends.get('fast')!).toBeLessThan(10);
    expect(rec.ends.get('next')!).toBeLessThan(rec.ends.get('slow')!);
  });

  it('a batch waits for the siblings running when it opened, and takes their failures', async () => {
    const plan = planOf([
      { id: 'x', description: 'fails first' },
      { id: 'y', description: 'fails later' },
      { id: 'ok', description: 'ok' },
      { id: 'late', description: 'starts after x failed', dependsOn: ['ok'] },
    ]);
    // Every step ends when the test says so.
    const release = new Map<StepId, (outcome: StepRunOutcome) => void>();
    const started = new Map<StepId, () => void>();
    const whenStarted = (id: StepId) =>
      new Promise<void>((resolve) => (release.has(id) ? resolve() : started.set(id, resolve)));
    const batches: StepId[][] = [];
    let lateRunningAtReplan = false;
    const done = scheduleSteps({
      plan,
      runStep: (id) =>
        new Promise<StepRunOutcome>((resolve) => {
          release.set(id, resolve);
          started.get(id)?.();
        }),
      replan: async (failed) => {
        batches.push(failed);
        lateRunningAtReplan = plan.step('late').status === 'in_progress';
        plan.replaceSubgraph(failed, { steps: [{ description: 'redo' }] });
      },
    });
    await whenStarted('y');
    release.get('x')!({ status: 'failed' });
    release.get('ok')!({ status: 'completed' });
    await whenStarted('late');
    expect(batches).toEqual([]);
    release.get('y')!({ status: 'failed' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(batches).toEqual([['x', 'y']]);
    // `late` started after the batch opened: it did not delay the replan.
    expect(lateRunningAtReplan).toBe(true);
    release.get('late')!({ status: 'completed' });
    for (let index = 0; index < 20 && !release.has('s1'); index++)
      await new Promise((resolve) => setTimeout(resolve, 1));
    release.get('s1')!({ status: 'completed' });
    await done;
    expect(plan.counts().completed).toBe(3);
  });

  it('replans failures of one turn in one batch while an independent step keeps running', async () => {
    const plan = planOf([
      { id: 'x', description: 'x' },
      { id: 'y', description: 'y' },
      { id: 'z', description: 'independent, slow' },
      { id: 'after-x', description: 'needs x', dependsOn: ['x'] },
      { id: 'done', description: 'done', dependsOn: ['z'] },
    ]);
    let zAborted = false;
    const batches: StepId[][] = [];
    const runs: StepId[] = [];
    let zRunningAtReplan = false;
    const result = await scheduleSteps({
      plan,
      concurrency: 4,
      replanWindowMs: 10,
      runStep: async (id, { signal }) => {
        runs.push(id);
        if (id === 'z') {
          signal.addEventListener('abort', () => {
            zAborted = true;
          });
          await sleep(40);
          return { status: 'completed' };
        }
        await sleep(2);
        return id === 'x' || id === 'y'
          ? { status: 'failed', notes: `[FAIL]: ${id} broke` }
          : { status: 'completed' };
      },
      replan: async (failed) => {
        batches.push(failed);
        zRunningAtReplan = plan.step('z').status === 'in_progress';
        expect(plan.step('after-x').status).toBe('not_started');
        plan.replaceSubgraph(failed, {
          steps: [
            { id: 'x2', description: 'x again' },
            { id: 'y2', description: 'y again' },
            { description: 'needs x2', dependsOn: [0] },
          ],
        });
      },
    });
    expect(batches).toEqual([['x', 'y']]);
    expect(result.replans).toBe(1);
    expect(zRunningAtReplan).toBe(true);
    expect(zAborted).toBe(false);
    expect(runs.filter((id) => id === 'z')).toHaveLength(1);
    expect(plan.counts()).toMatchObject({ completed: 5, failed: 0, blocked: 0 });
    expect(plan.has('after-x')).toBe(false);
    expect(plan.step('x2').status).toBe('completed');
  });

  /** A promise and the function that settles it (Node 20 has no `Promise.withResolvers`). */
  function signal(): { promise: Promise<void>; resolve: () => void } {
    let resolve = (): void => {};
    const promise = new Promise<void>((settle) => {
      resolve = settle;
    });
    return { promise, resolve };
  }

  it('a failure during a replan forms the next batch; completed steps never re-run', async () => {
    const plan = planOf([
      { id: 'early', description: 'fails first' },
      { id: 'late', description: 'fails later' },
      { id: 'ok', description: 'ok' },
    ]);
    const batches: StepId[][] = [];
    const runs: StepId[] = [];
    // 'late' fails only once the first replan is under way, and that replan lasts until it has: no
    // timing decides which batch a failure joins, however loaded the machine.
    const replanStarted = signal();
    const lateFailed = signal();
    await scheduleSteps({
      plan,
      replanWindowMs: 5,
      runStep: async (id) => {
        runs.push(id);
        if (id === 'late') {
          await replanStarted.promise;
          lateFailed.resolve();
        } else await sleep(1);
        return id === 'early' || id === 'late' ? { status: 'failed' } : { status: 'completed' };
      },
      replan: async (failed) => {
        batches.push(failed);
        replanStarted.resolve();
        await lateFailed.promise;
        await sleep(10);
        plan.replaceSubgraph(failed, { steps: [{ description: `redo ${failed.join('+')}` }] });
      },
    });
    expect(batches).toEqual([['early'], ['late']]);
    expect(runs.filter((id) => id === 'ok')).toHaveLength(1);
    expect(plan.counts().completed).toBe(3);
  });

  it('blocks the batch (and what depends on it) when the replanner throws', async () => {
    const plan = planOf([
      { id: 'x', description: 'x' },
      { id: 'y', description: 'y', dependsOn: ['x'] },
    ]);
    const errors: unknown[] = [];
    await scheduleSteps({
      plan,
      runStep: async () => ({ status: 'failed' }),
      replan: async () => {
        throw new Error('model down');
      },
      onReplanError: (_failed, error) => errors.push(error),
    });
    expect(plan.step('x')).toMatchObject({
      status: 'blocked',
      notes: '[FAIL]: replanning failed: model down',
    });
    expect(plan.step('y').status).toBe('blocked');
    expect(errors).toHaveLength(1);
  });

  it('blocks a failed step without a replanner, or when the replanner leaves it failed', async () => {
    const plan = planOf([{ id: 'x', description: 'x' }]);
    await scheduleSteps({ plan, runStep: async () => ({ status: 'failed' }) });
    expect(plan.step('x').status).toBe('blocked');
    const again = planOf([{ id: 'x', description: 'x' }]);
    const result = await scheduleSteps({
      plan: again,
      runStep: async () => ({ status: 'failed' }),
      replan: async () => {},
    });
    expect(again.step('x')).toMatchObject({
      status: 'blocked',
      notes: '[FAIL]: the replanner left the step failed',
    });
    expect(result.replans).toBe(1);
  });

  it('a blocked outcome blocks downstream steps without a replan', async () => {
    const plan = planOf([
      { id: 'x', description: 'x' },
      { id: 'y', description: 'y', dependsOn: ['x'] },
    ]);
    const result = await scheduleSteps({
      plan,
      runStep: async () => ({ status: 'blocked', notes: '[FAIL]: a human said no' }),
      replan: async () => expect.unreachable(),
    });
    expect(result.replans).toBe(0);
    expect(plan.step('x').notes).toBe('[FAIL]: a human said no');
    expect(plan.step('y').status).toBe('blocked');
  });

  it('a step deadline aborts the step and fails it', async () => {
    const plan = planOf([{ id: 'x', description: 'x' }]);
    let aborted = false;
    const failed: StepId[][] = [];
    await scheduleSteps({
      plan,
      stepTimeoutMs: 20,
      runStep: async (_id, { signal }) => {
        signal.addEventListener('abort', () => {
          aborted = true;
        });
        await new Promise(() => {});
        return { status: 'completed' };
      },
      replan: async (batch) => {
        failed.push(batch);
        plan.markStep(batch[0]!, { status: 'blocked' });
      },
    });
    expect(aborted).toBe(true);
    expect(failed).toEqual([['x']]);
    expect(plan.step('x').notes).toBe('[FAIL]: step deadline of 20 ms exceeded');
  });

  it('a runner that throws fails the step', async () => {
    const plan = planOf([{ id: 'x', description: 'x' }]);
    const finished: unknown[] = [];
    await scheduleSteps({
      plan,
      runStep: async () => {
        throw new Error('boom');
      },
      onStepFinished: (id, outcome) => finished.push({ id, status: outcome.status, error: outcome.error }),
    });
    expect(finished).toEqual([{ id: 'x', status: 'failed', error: 'boom' }]);
    expect(plan.step('x').status).toBe('blocked');
  });

  it('after abort no step starts, running steps get the abort and the scheduler returns promptly', async () => {
    const plan = planOf([
      { id: 'a', description: 'a' },
      { id: 'b', description: 'b', dependsOn: ['a'] },
    ]);
    const controller = new AbortController();
    const rec = recorder({ a: 10_000 });
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const t0 = performance.now();
    const result = await scheduleSteps({ plan, runStep: rec.runStep, signal: controller.signal });
    expect(performance.now() - t0).toBeLessThan(200);
    expect(result).toMatchObject({ aborted: true, started: 1 });
    expect(rec.runs).toEqual(['a']);
    expect(plan.step('a').status).toBe('in_progress');
    expect(plan.step('b').status).toBe('not_started');
  });

  it('abandons a step that ignores the abort after the grace period', async () => {
    const plan = planOf([{ id: 'a', description: 'a' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const t0 = performance.now();
    const result = await scheduleSteps({
      plan,
      abortGraceMs: 30,
      signal: controller.signal,
      runStep: () => new Promise(() => {}),
    });
    expect(result).toMatchObject({ aborted: true, abandoned: ['a'] });
    expect(performance.now() - t0).toBeLessThan(150);
  });

  it('an already aborted signal starts nothing', async () => {
    const plan = planOf([{ id: 'a', description: 'a' }]);
    const result = await scheduleSteps({
      plan,
      signal: AbortSignal.abort(),
      runStep: async () => expect.unreachable(),
    });
    expect(result).toMatchObject({ aborted: true, started: 0 });
  });

  it('replans `initialFailed` steps first', async () => {
    const plan = planOf([{ id: 'x', description: 'x' }]);
    plan.markStep('x', { status: 'in_progress' });
    plan.markStep('x', { status: 'failed' });
    const batches: StepId[][] = [];
    await scheduleSteps({
      plan,
      initialFailed: ['x'],
      runStep: async () => ({ status: 'completed' }),
      replan: async (failed) => {
        batches.push(failed);
        plan.replaceSubgraph(failed, { steps: [{ description: 'x again' }] });
      },
    });
    expect(batches).toEqual([['x']]);
    expect(plan.counts().completed).toBe(1);
  });
});

describe('scheduleSteps invariants (property)', () => {
  it('random DAGs, failures and replans: starts only ready steps, once, within the concurrency limit', async () => {
    const fc = await import('fast-check');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 25 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: 80,
          maxLength: 80,
        }),
        async (size, concurrency, random) => {
          let cursor = 0;
          const next = () => random[cursor++ % random.length]!;
          const steps: StepDraft[] = Array.from({ length: size }, (_, index) => ({
            id: `n${index}`,
            description: `step ${index}`,
            dependsOn:
              index === 0
                ? []
                : [...new Set([`n${Math.floor(next() * index)}`, `n${Math.floor(next() * index)}`])].slice(
                    0,
                    next() < 0.3 ? 0 : 2,
                  ),
          }));
          const plan = planOf(steps);
          const started = new Set<StepId>();
          const completedAtStart = new Set<StepId>();
          let running = 0;
          let maxRunning = 0;
          const batches: StepId[][] = [];
          await scheduleSteps({
            plan,
            concurrency,
            runStep: async (id) => {
              expect(started.has(id)).toBe(false);
              started.add(id);
              for (const dep of plan.step(id).dependsOn) expect(plan.step(dep).status).toBe('completed');
              running++;
              maxRunning = Math.max(maxRunning, running);
              await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 2)));
              running--;
              const attempts = plan.step(id).replanAttempts;
              return next() < 0.25 && attempts < 2 ? { status: 'failed' } : { status: 'completed' };
            },
            replan: async (failed) => {
              for (const batch of batches) for (const id of failed) expect(batch).not.toContain(id);
              batches.push(failed);
              for (const id of failed) expect(plan.step(id).status).toBe('failed');
              if (next() < 0.3) {
                for (const id of failed) plan.markStep(id, { status: 'blocked' });
                return;
              }
              plan.replaceSubgraph(failed, { steps: failed.map((id) => ({ description: `redo ${id}` })) });
            },
            onStepStarted: (id) => {
              if (plan.step(id).status === 'completed') completedAtStart.add(id);
            },
          });
          expect(completedAtStart.size).toBe(0);
          expect(maxRunning).toBeLessThanOrEqual(concurrency);
          const counts = plan.counts();
          expect(counts.in_progress + counts.failed).toBe(0);
          expect(plan.readySteps()).toEqual([]);
        },
      ),
      { numRuns: 30 },
    );
  });
});
