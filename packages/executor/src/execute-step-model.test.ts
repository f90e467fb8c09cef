import { ModelError } from '@closedloop/model';
import { errorTurn, ScriptedModel, textTurn, toolCallTurn } from '@closedloop/model/testing';
import { describe, expect, it } from 'vitest';
import { echoTool, inProgressPlan } from './__fixtures__/step-plan';
import { executeStep } from './execute-step';
import type { ExecutorEvent } from './executor-events';

const instantRetry = { sleep: async () => {}, jitter: false };

describe('executeStep: confidence', () => {
  it('asks logprob-capable models for logprobs and reports the lowest confidence of the turns', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      capabilities: { logprobs: true },
      turns: [
        { ...toolCallTurn('echo', { text: 'a' }), confidence: 0.92 },
        { ...toolCallTurn('mark_step', { status: 'success', notes: '[SUCCESS]: echoed' }), confidence: 0.61 },
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(model.requests.map((request) => request.logprobs)).toEqual([true, true]);
    expect(result.confidence).toBe(0.61);
  });

  it('does not ask models without logprobs, and reports no confidence', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({ turns: [textTurn('done')] });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(model.requests[0]?.logprobs).toBeUndefined();
    expect(result.confidence).toBeUndefined();
  });
});

describe('executeStep: streaming', () => {
  it('streams turns through doStream, emitting text and tool-call deltas, and assembles the result', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      streamChunkSize: 4,
      turns: [
        {
          text: 'Let me echo that.',
          toolCalls: [{ id: 'call_s', name: 'echo', arguments: { text: 'streamed' } }],
        },
        textTurn('All done here.'),
      ],
    });
    const events: ExecutorEvent[] = [];
    const result = await executeStep(plan, stepId, {
      model,
      tools: [echoTool],
      stream: true,
      onEvent: (event) => events.push(event),
    });
    expect(result.stopReason).toBe('no-tool-calls');
    expect(result.answer).toBe('All done here.');
    expect(plan.step(stepId).ledger[0]).toMatchObject({
      callId: 'call_s',
      status: 'success',
      result: 'echo: streamed',
    });

    const text = events.filter((event) => event.type === 'text-delta');
    expect(text.length).toBeGreaterThan(2);
    expect(
      text
        .filter((event) => event.iteration === 1)
        .map((event) => event.delta)
        .join(''),
    ).toBe('Let me echo that.');
    const calls = events.filter((event) => event.type === 'tool-call-delta');
    expect(calls[0]).toMatchObject({ index: 0, id: 'call_s', name: 'echo' });
    expect(calls.map((event) => event.argumentsDelta).join('')).toBe('{"text":"streamed"}');
    expect(events.find((event) => event.type === 'model-call-started')).toMatchObject({ streaming: true });
    // Deltas of a turn come between its start and finish events.
    const types = events.map((event) => event.type);
    expect(types.indexOf('text-delta')).toBeGreaterThan(types.indexOf('model-call-started'));
    expect(types.indexOf('model-call-finished')).toBeGreaterThan(types.lastIndexOf('tool-call-delta'));
  });

  it('does not stream when the model cannot, or when stream is off', async () => {
    for (const [stream, streaming] of [
      [true, false],
      [false, true],
    ] as const) {
      const { plan, stepId } = inProgressPlan();
      const model = new ScriptedModel({ capabilities: { streaming }, turns: [textTurn('plain answer')] });
      const events: ExecutorEvent[] = [];
      const result = await executeStep(plan, stepId, {
        model,
        tools: [],
        stream,
        onEvent: (event) => events.push(event),
      });
      expect(result.answer).toBe('plain answer');
      expect(events.some((event) => event.type === 'text-delta')).toBe(false);
      expect(events[0]).toMatchObject({ type: 'model-call-started', streaming: false });
    }
  });
});

describe('executeStep: model errors', () => {
  it('a final ModelError ends the step with model-error, no throw, ledger finalised', async () => {
    const { plan, stepId, events } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        { text: 'Working.', toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] },
        errorTurn(new ModelError({ code: 'auth', message: 'invalid API key' })),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool], retry: instantRetry });
    expect(result.stopReason).toBe('model-error');
    expect(ModelError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ code: 'auth' });
    expect(result.answer).toBe('Working.');
    expect(result.iterations).toBe(2);
    expect(model.requests).toHaveLength(2); // auth errors are not retried
    expect(plan.step(stepId).ledger.map((call) => call.status)).toEqual(['success']);
    expect(events.at(-1)).toMatchObject({ type: 'step-finalized' });
  });

  it('retries retryable errors through the retry policy before giving up', async () => {
    const { plan, stepId } = inProgressPlan();
    const overloaded = () => errorTurn(new ModelError({ code: 'overloaded', message: 'try later' }));
    const recovering = new ScriptedModel({ turns: [overloaded(), overloaded(), textTurn('made it')] });
    const result = await executeStep(plan, stepId, { model: recovering, tools: [], retry: instantRetry });
    expect(result.stopReason).toBe('no-tool-calls');
    expect(recovering.requests).toHaveLength(3);

    const second = inProgressPlan();
    const failing = new ScriptedModel({ turns: [overloaded(), overloaded()] });
    const failed = await executeStep(second.plan, second.stepId, {
      model: failing,
      tools: [],
      retry: { ...instantRetry, maxAttempts: 2 },
    });
    expect(failed.stopReason).toBe('model-error');
    expect(failed.error?.code).toBe('overloaded');
  });

  it('a model error in the success-cap summary ends with model-error and the last text', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        { text: 'Echoing.', toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] },
        errorTurn(new ModelError({ code: 'context-length', message: 'too long' })),
      ],
    });
    const result = await executeStep(plan, stepId, {
      model,
      tools: [echoTool],
      mode: 'single',
      retry: false,
    });
    expect(result.stopReason).toBe('model-error');
    expect(result.error?.code).toBe('context-length');
    expect(result.answer).toBe('Echoing.');
    expect(result.successes).toBe(1);
  });

  it('a non-ModelError thrown by a model is normalised into a ModelError', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({ turns: [errorTurn(new TypeError('undefined is not a function'))] });
    const result = await executeStep(plan, stepId, { model, tools: [], retry: false });
    expect(result.stopReason).toBe('model-error');
    expect(ModelError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toContain('undefined is not a function');
  });

  it('running out of script is a model error, not a crash', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({ turns: [toolCallTurn('echo', { text: 'x' })] });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool], retry: false });
    expect(result.stopReason).toBe('model-error');
    expect(result.error?.code).toBe('invalid-response');
  });
});
