import type { GenerateRequest } from '@closedloop/model';
import { ScriptedModel, type ScriptedTurn, textTurn, toolCallTurn } from '@closedloop/model/testing';
import { describe, expect, it } from 'vitest';
import { echoTool, inProgressPlan } from './__fixtures__/step-plan';
import { executeStep } from './execute-step';
import type { ExecutorEvent } from './executor-events';

/** A model that echoes a new text on every turn until the script says otherwise. */
function echoTurns(count: number): ScriptedTurn[] {
  return Array.from({ length: count }, (_, index) => toolCallTurn('echo', { text: `round ${index + 1}` }));
}

const isSummaryRequest = (request: GenerateRequest) => request.toolChoice === 'none';

describe('executeStep: modes and the double limit', () => {
  it('single mode: one successful tool round, then one summary turn with tools disabled', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      matchers: [{ match: isSummaryRequest, respond: textTurn('Echoed once; nothing remains.') }],
      turns: echoTurns(5),
    });
    const events: ExecutorEvent[] = [];
    const result = await executeStep(plan, stepId, {
      model,
      tools: [echoTool],
      mode: 'single',
      onEvent: (event) => events.push(event),
    });
    expect(result.stopReason).toBe('success-cap');
    expect(result.successes).toBe(1);
    expect(result.iterations).toBe(1);
    expect(
      events.map((event) => (event.type === 'model-call-started' ? event.purpose : null)).filter(Boolean),
    ).toEqual(['turn', 'summary']);
    expect(result.answer).toBe('Echoed once; nothing remains.');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.parallelToolCalls).toBe(false);
    const summary = model.requests[1]!;
    expect(summary.toolChoice).toBe('none');
    expect(summary.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(summary.messages.at(-1)!.content).toContain('Do not call any tools');
    const step = plan.step(stepId);
    expect(step.notes).toBe(''); // finalised with what the ledger shows
    expect(step.output).toBe('Echoed once; nothing remains.');
    expect(step.ledger).toHaveLength(1);
  });

  it('auto mode: five successful rounds by default, then the summary', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      matchers: [{ match: isSummaryRequest, respond: textTurn('Five echoes.') }],
      turns: echoTurns(8),
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(result.stopReason).toBe('success-cap');
    expect(result.successes).toBe(5);
    expect(result.iterations).toBe(5);
    expect(plan.step(stepId).ledger).toHaveLength(5);
    expect(model.requests[0]!.parallelToolCalls).toBeUndefined();
    expect(model.remainingTurns).toBe(3);
  });

  it('counts successes per model response: several successful calls in one response count once', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      matchers: [{ match: isSummaryRequest, respond: textTurn('summary') }],
      turns: [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'a' } },
            { name: 'echo', arguments: { text: 'b' } },
            { name: 'echo', arguments: { text: 'c' } },
          ],
        },
        // One failure in a response: no success for it.
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'd' } },
            { name: 'echo', arguments: { wrong: true } },
          ],
        },
        toolCallTurn('echo', { text: 'e' }),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool], limits: { maxSuccesses: 2 } });
    expect(result.stopReason).toBe('success-cap');
    expect(result.iterations).toBe(3);
    expect(result.successes).toBe(2);
    expect(plan.step(stepId).ledger).toHaveLength(6);
  });

  it('a summary without text falls back to the last assistant text', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        { text: 'Echoing now.', toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] },
        textTurn(''),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool], mode: 'single' });
    expect(result.stopReason).toBe('success-cap');
    expect(result.answer).toBe('Echoing now.');
  });

  it('hard cap: stops after maxIterations turns, successful or not, with the last assistant text', async () => {
    const { plan, stepId } = inProgressPlan();
    const turns: ScriptedTurn[] = Array.from({ length: 12 }, (_, index) => ({
      text: `attempt ${index + 1}`,
      toolCalls: [{ name: 'echo', arguments: { text: index } }], // a number: invalid every time
    }));
    const model = new ScriptedModel({ turns });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(result.stopReason).toBe('max-iterations');
    expect(result.iterations).toBe(10);
    expect(result.successes).toBe(0);
    expect(result.answer).toBe('attempt 10');
    expect(model.requests).toHaveLength(10);
    const ledger = plan.step(stepId).ledger;
    expect(ledger).toHaveLength(10);
    expect(ledger.every((call) => call.status === 'error')).toBe(true);
    expect(result.pendingCalls).toEqual([]);
  });

  it('a raised success cap lets the hard cap win', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({ turns: echoTurns(5) });
    const result = await executeStep(plan, stepId, {
      model,
      tools: [echoTool],
      limits: { maxIterations: 3, maxSuccesses: 100 },
    });
    expect(result.stopReason).toBe('max-iterations');
    expect(result.iterations).toBe(3);
    expect(result.successes).toBe(3);
  });

  it('mark_step in the round that reaches the cap ends the step as marked, without a summary', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'x' } },
            { name: 'mark_step', arguments: { status: 'success', notes: 'echoed' } },
          ],
        },
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool], mode: 'single' });
    expect(result.stopReason).toBe('marked');
    expect(result.successes).toBe(1);
    expect(model.requests).toHaveLength(1);
  });

  it('stops on the third identical call (same tool, same canonical JSON arguments)', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('echo', { text: 'same', extra: { a: 1, b: 2 } }),
        toolCallTurn('echo', { text: 'other' }),
        { toolCalls: [{ name: 'echo', arguments: { extra: { b: 2, a: 1 }, text: 'same' } }] },
        { toolCalls: [{ name: 'echo', rawArguments: '{"text":"same","extra":{"a":1,"b":2}}' }] },
        textTurn('never'),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(result.stopReason).toBe('repeated-call');
    expect(result.iterations).toBe(4);
    const ledger = plan.step(stepId).ledger;
    expect(ledger.map((call) => call.status)).toEqual(['success', 'success', 'success', 'error']);
    expect(ledger[3]!.error).toContain('repeated-call');
    expect(result.pendingCalls).toEqual([]);
    expect(model.remainingTurns).toBe(1);
  });

  it('counts identical calls within one response too, and respects maxRepeatedCalls', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'x' } },
            { name: 'echo', arguments: { text: 'x' } },
          ],
        },
      ],
    });
    const result = await executeStep(plan, stepId, {
      model,
      tools: [echoTool],
      limits: { maxRepeatedCalls: 2 },
    });
    expect(result.stopReason).toBe('repeated-call');
    // Nothing of the offending response ran; the ledger says so.
    expect(plan.step(stepId).ledger.map((call) => call.status)).toEqual(['error', 'error']);
  });
});
