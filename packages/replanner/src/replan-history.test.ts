import { Plan } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { completeStep, failStep, tickingClock } from './__fixtures__/example-plan';
import { redesignsFromEvents } from './replan-history';

function smallPlan(): Plan {
  const plan = Plan.create(
    { goal: 'g', steps: [{ id: 'a', description: 'Prepare the data' }] },
    { id: 'history', clock: tickingClock() },
  );
  completeStep(plan, 'a');
  return plan;
}

describe('redesignsFromEvents', () => {
  it('keeps a step added by steps-added in the history when a redesign replaces it', () => {
    const plan = smallPlan();
    plan.addSteps({ steps: [{ id: 'extra', description: 'Summarise the data', dependsOn: ['a'] }] });
    failStep(plan, 'extra', { notes: '[FAIL]: summary.md was never written' });
    const { added } = plan.replaceSubgraph('extra', {
      steps: [{ description: 'Write summary.md from the data', dependsOn: ['a'] }],
    });
    const [redesign] = redesignsFromEvents(plan, [added[0]!.id]);
    expect(redesign).toMatchObject({ failed: ['extra'], replaced: ['extra'] });
    expect(redesign!.replacedSteps).toEqual([
      {
        id: 'extra',
        description: 'Summarise the data',
        dependsOn: ['a'],
        status: 'failed',
        failure: '[FAIL]: summary.md was never written',
      },
    ]);
  });

  it('treats a reset step as not_started, without the archived attempt’s failure', () => {
    const plan = smallPlan();
    plan.addSteps({ steps: [{ id: 'b', description: 'Build the report', dependsOn: ['a'] }] });
    failStep(plan, 'b', { notes: '[FAIL]: first try' });
    const { added } = plan.replaceSubgraph('b', {
      steps: [{ description: 'Build the report again', dependsOn: ['a'] }],
    });
    const id = added[0]!.id;
    failStep(plan, id, { notes: '[FAIL]: second try' });
    expect(redesignsFromEvents(plan, [id])[0]!.steps[0]).toMatchObject({
      status: 'failed',
      failure: '[FAIL]: second try',
    });
    plan.resetStep(id, { reason: 'run again after resume' });
    const [redesign] = redesignsFromEvents(plan, [id]);
    expect(redesign!.steps).toEqual([
      { id, description: 'Build the report again', dependsOn: ['a'], status: 'not_started' },
    ]);
    expect(plan.status(id)).toBe('not_started');
  });
});
