import { Plan } from '@closedloop/plan';
import { createToolRegistry, defineTool } from '@closedloop/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { unsafeInterruptedCalls } from './interrupted-calls';
import type { RunEvent } from './run-events';

const tool = (name: string, idempotent: boolean) =>
  defineTool({ name, description: name, input: z.object({}), idempotent, execute: () => 'ok' });
const registry = createToolRegistry([tool('charge', false), tool('read', true)]);

function interrupted(calls: { callId: string; tool: string }[]) {
  const plan = Plan.create({ title: 't', goal: 'g', steps: [{ id: 's', description: 'pay' }] });
  plan.markStep('s', { status: 'in_progress' });
  for (const call of calls) plan.recordToolCall('s', { ...call, args: {} });
  return plan.step('s');
}

const base = { runId: 'r', at: 1 };
const started = { ...base, type: 'step-started', stepId: 's', attempt: 0 } as RunEvent;
const asked = (callId: string) =>
  ({
    ...base,
    type: 'approval-requested',
    approvalId: 'a',
    stepId: 's',
    kind: 'tool-call',
    reason: 'x',
    callId,
  }) as RunEvent;
const decided = (callId: string, approved: boolean) =>
  ({
    ...base,
    type: 'guard-decided',
    stepId: 's',
    callId,
    tool: 'charge',
    decision: { action: 'ask-human', reason: 'x' },
    approved,
  }) as RunEvent;

describe('unsafeInterruptedCalls', () => {
  it('lists non-idempotent calls, not idempotent ones', () => {
    const step = interrupted([
      { callId: 'c1', tool: 'charge' },
      { callId: 'c2', tool: 'read' },
    ]);
    expect(unsafeInterruptedCalls({ step, history: [started], registry })).toEqual(['charge']);
  });

  it('leaves out a call held for approval that never got it, keeps an approved one', () => {
    const step = interrupted([{ callId: 'c1', tool: 'charge' }]);
    expect(unsafeInterruptedCalls({ step, history: [started, asked('c1')], registry })).toEqual([]);
    expect(
      unsafeInterruptedCalls({ step, history: [started, asked('c1'), decided('c1', false)], registry }),
    ).toEqual([]);
    expect(
      unsafeInterruptedCalls({ step, history: [started, asked('c1'), decided('c1', true)], registry }),
    ).toEqual(['charge']);
  });

  it('ignores approvals of an earlier attempt with the same call id', () => {
    const step = interrupted([{ callId: 'c1', tool: 'charge' }]);
    expect(unsafeInterruptedCalls({ step, history: [started, asked('c1'), started], registry })).toEqual([
      'charge',
    ]);
  });
});
