import { Plan } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { completeStep, examplePlan, failStep, tickingClock } from './__fixtures__/example-plan';
import { createPlanView } from './plan-view';

function expectStatusesMatch(plan: Plan, failed: string[]) {
  const view = createPlanView(plan, failed);
  expect(view.completed).toEqual(plan.steps.filter((s) => s.status === 'completed').map((s) => s.id));
  expect(view.unfinished).toEqual(plan.steps.filter((s) => s.status !== 'completed').map((s) => s.id));
  for (const step of plan.steps) expect(view.status(step.id)).toBe(step.status);
  expect(view.status('nope')).toBeUndefined();
  expect(view.step('nope')).toBeUndefined();
  return view;
}

describe('createPlanView', () => {
  it('completed = upstream of the failed step (no fold needed)', () => {
    const plan = examplePlan();
    const view = expectStatusesMatch(plan, ['5']);
    expect([...view.upstream()].sort()).toEqual(plan.upstreamOf('5').sort());
    expect(view.step('5')).toBe(plan.readStep('5')); // the live step, no copy
  });

  it('walks upstream nearest first, lazily', () => {
    // d depends on c and a; c on b; b on a: a is one dependency away from d, b two.
    const plan = Plan.create(
      {
        goal: 'g',
        steps: [
          { id: 'a', description: 'a' },
          { id: 'b', description: 'b', dependsOn: ['a'] },
          { id: 'c', description: 'c', dependsOn: ['b'] },
          { id: 'd', description: 'd', dependsOn: ['c', 'a'] },
        ],
      },
      { id: 'nearest', clock: tickingClock() },
    );
    for (const id of ['a', 'b', 'c']) completeStep(plan, id);
    failStep(plan, 'd');
    const view = createPlanView(plan, ['d']);
    expect([...view.upstream()]).toEqual(['c', 'a', 'b']);
    const first = view.upstream()[Symbol.iterator]().next();
    expect(first).toEqual({ value: 'c', done: false });
  });

  it('reads statuses after steps-added and step-reset events', () => {
    const plan = examplePlan();
    // 5 failed; a reset sends it back to not_started, an added step starts not_started.
    plan.resetStep('5', { reason: 'retry in place' });
    const { added } = plan.addSteps({ steps: [{ description: 'follow-up', dependsOn: ['4'] }] });
    const view = expectStatusesMatch(plan, ['5']);
    expect(view.status('5')).toBe('not_started');
    expect(view.status(added[0]!.id)).toBe('not_started');
    expect([...view.upstream()]).toEqual([]);
    plan.markStep('5', { status: 'in_progress' });
    plan.markStep('5', { status: 'failed' });
    expectStatusesMatch(plan, ['5']);
    expectStatusesMatch(Plan.fromJSON(plan.toJSON()), ['5']);
  });

  it('completed steps outside the upstream keep their status', () => {
    const plan = Plan.create(
      {
        goal: 'g',
        steps: [
          { id: 'a', description: 'a' },
          { id: 'b', description: 'b' },
          { id: 'c', description: 'c', dependsOn: ['a'] },
        ],
      },
      { id: 'side', clock: tickingClock() },
    );
    completeStep(plan, 'a');
    completeStep(plan, 'b'); // completed, but not upstream of c
    failStep(plan, 'c');
    plan.replaceSubgraph('c', { steps: [{ description: 'c again', dependsOn: ['a'] }] });
    const newId = plan.stepIds.at(-1)!;
    failStep(plan, newId);
    const view = expectStatusesMatch(plan, [newId]);
    expect([...view.upstream()]).toEqual(['a']);
    // Without the event log (restored from a snapshot).
    expectStatusesMatch(Plan.fromJSON(plan.toJSON()), [newId]);
  });

  it('works when no failed step ran (not_started or blocked failures)', () => {
    const plan = examplePlan({ fail: false });
    plan.markStep('5', { status: 'blocked' });
    const view = expectStatusesMatch(plan, ['5']);
    expect([...view.upstream()]).toEqual([]);
  });
});
