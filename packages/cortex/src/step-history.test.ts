import { Plan } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { createPinnableClock } from './pinnable-clock';
import type { RunEvent } from './run-events';
import { applyStepHistory } from './step-task';

/** A plan restored where a step continues ("now" is long after the history). */
function restored(now: number) {
  const clock = createPinnableClock(() => now);
  const plan = Plan.create({ goal: 'g', steps: [{ id: 'a', description: 'edit a file' }] }, { clock });
  plan.markStep('a', { status: 'in_progress' });
  return { plan, clock };
}

const history = [
  { type: 'tool-call-started', stepId: 'a', callId: 'c1', tool: 'edit_file', args: { path: 'x' }, at: 1_000 },
  { type: 'tool-call-finished', stepId: 'a', callId: 'c1', status: 'success', result: 'ok', at: 1_040 },
] as unknown as RunEvent[];

describe('applyStepHistory (a step continued from a killed attempt)', () => {
  it("keeps each recovered call's window at the times the killed attempt journaled", () => {
    const { plan, clock } = restored(9_000);
    applyStepHistory(plan, 'a', history, clock);
    expect(
      plan.readStep('a').ledger.map(({ callId, calledAt, respondedAt }) => [callId, calledAt, respondedAt]),
    ).toEqual([['c1', 1_000, 1_040]]);
    // The clock runs on after the history.
    expect(clock()).toBe(9_000);
  });

  it('refuses a history event without a time', () => {
    const { plan, clock } = restored(9_000);
    const timeless = [{ ...history[0], at: undefined }] as unknown as RunEvent[];
    expect(() => applyStepHistory(plan, 'a', timeless, clock)).toThrow(/has no time/);
  });
});
