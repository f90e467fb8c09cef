import { Plan, type StepId } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/random';
import { type ReadyOrder, ReadyQueue } from './ready-queue';

function randomPlan(next: () => number): Plan {
  const size = 2 + Math.floor(next() * 8);
  return Plan.create({
    steps: Array.from({ length: size }, (_, index) => ({
      id: `t${index}`,
      description: `task ${index}`,
      dependsOn: index === 0 ? [] : [...new Set([0, 1].map(() => `t${Math.floor(next() * index)}`))],
    })),
  });
}

/**
 * Drives a plan the way the scheduler does (take a ready step, start it, finish it) mixed with
 * resets, added steps and redesigns, checking every take against `plan.readySteps()`.
 */
function drive(seed: number, order: ReadyOrder): void {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T | undefined =>
    list.length === 0 ? undefined : list[Math.floor(next() * list.length)];
  const plan = randomPlan(next);
  const queue = new ReadyQueue(plan, order);
  const take = () => {
    const ready = plan.readySteps();
    const got = queue.shift();
    if (order === 'display') expect(got, `seed ${seed}`).toBe(ready[0]);
    else if (got === undefined) expect(ready, `seed ${seed}`).toEqual([]);
    else expect(ready, `seed ${seed}`).toContain(got);
    if (got !== undefined) plan.markStep(got, { status: 'in_progress' });
    return got;
  };
  const withStatus = (status: string): StepId[] =>
    plan.steps.filter((step) => step.status === status).map((step) => step.id);
  let added = 0;
  for (let op = 0; op < 40; op++) {
    const roll = next();
    if (roll < 0.3) take();
    else if (roll < 0.5) {
      const id = pick(withStatus('in_progress'));
      if (id !== undefined) plan.markStep(id, { status: next() < 0.75 ? 'completed' : 'failed' });
    } else if (roll < 0.65) {
      const id = pick([...withStatus('in_progress'), ...withStatus('failed')]);
      if (id !== undefined) plan.resetStep(id, { reason: 'test' });
    } else if (roll < 0.85) {
      const ids = plan.stepIds;
      plan.addSteps(
        {
          steps: [
            { id: `a${added++}`, description: 'added', dependsOn: [pick(ids)!] },
            { description: 'added after it', dependsOn: next() < 0.5 ? [0] : [0, pick(ids)!] },
          ],
        },
        { insertAt: Math.floor(next() * (ids.length + 1)) },
      );
    } else {
      const id = pick(withStatus('failed'));
      if (id !== undefined) {
        const keep = plan.stepIds.filter((step) => plan.step(step).status === 'completed');
        plan.replaceSubgraph(id, {
          steps: [{ description: 'redesign', dependsOn: keep.length > 0 ? [pick(keep)!] : [] }],
        });
      }
    }
  }
  // Drain: finish everything that runs, take everything that becomes ready.
  for (let guard = 0; guard < 1000; guard++) {
    for (const id of withStatus('in_progress')) plan.markStep(id, { status: 'completed' });
    if (take() === undefined && withStatus('in_progress').length === 0) break;
  }
  expect(plan.readySteps(), `seed ${seed}`).toEqual([]);
  queue.close();
}

describe('ReadyQueue', () => {
  it('mirrors readySteps through starts, completions, failures, resets, added steps and redesigns (display order)', () => {
    for (let seed = 1; seed <= 150; seed++) drive(seed, 'display');
  });

  it('critical-path order only ever hands out ready steps and misses none', () => {
    for (let seed = 1; seed <= 150; seed++) drive(seed, 'critical-path');
  });

  it('a reset step is ready again; added steps become ready when their dependencies complete', () => {
    const plan = Plan.create({
      steps: [
        { id: 'a', description: 'a' },
        { id: 'b', description: 'b', dependsOn: ['a'] },
      ],
    });
    const queue = new ReadyQueue(plan, 'display');
    expect(queue.shift()).toBe('a');
    plan.markStep('a', { status: 'in_progress' });
    expect(queue.shift()).toBeUndefined();
    plan.resetStep('a', { reason: 'resume' });
    expect(queue.shift()).toBe('a');
    plan.markStep('a', { status: 'in_progress' });
    plan.addSteps({
      steps: [
        { id: 'c', description: 'c', dependsOn: ['a'] },
        { id: 'root', description: 'r' },
      ],
    });
    expect(queue.shift()).toBe('root');
    plan.markStep('root', { status: 'in_progress' });
    plan.markStep('a', { status: 'completed' });
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual(['b', 'c', undefined]);
    queue.close();
  });
});
