import type { GenerateRequest } from '@closedloop/model';
import { ScriptedModel, textTurn, toolCallTurn } from '@closedloop/model/testing';
import { createToolRegistry, defineTool, workspaceTools } from '@closedloop/tools';
import type { TempWorkspace } from '@closedloop/tools/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { echoTool, inProgressPlan, toolMessages, useTempWorkspace } from './__fixtures__/step-plan';
import { executeStep } from './execute-step';
import { ExecutorError } from './executor-error';
import type { ExecutorEvent } from './executor-events';
import { executorSystemPrompt } from './executor-system-prompt';

let ws: TempWorkspace;
useTempWorkspace((created) => {
  ws = created;
});

describe('executeStep: the ReAct loop', () => {
  it('runs real tools, feeds results back by call id, and ends with mark_step success + claims', async () => {
    const { plan, stepId, events } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('write_file', { path: 'hello.txt', content: 'hello' }, 'call_w'),
        (request) => {
          const last = request.messages.at(-1);
          // The tool result came back into the conversation, paired with the call id.
          expect(last).toMatchObject({ role: 'tool', toolCallId: 'call_w', toolName: 'write_file' });
          return toolCallTurn('read_file', { path: 'hello.txt' }, 'call_r');
        },
        (request) => {
          expect(request.messages.at(-1)).toMatchObject({ role: 'tool', content: 'hello' });
          return {
            text: 'The file is written.',
            toolCalls: [
              {
                id: 'call_m',
                name: 'mark_step',
                arguments: {
                  status: 'success',
                  notes: 'wrote hello.txt',
                  claims: { filesWritten: ['hello.txt'] },
                },
              },
            ],
          };
        },
      ],
    });

    const result = await executeStep(plan, stepId, { model, tools: workspaceTools({ root: ws.root }) });

    expect(result.stopReason).toBe('marked');
    expect(result.marked).toEqual({ status: 'success', notes: '[SUCCESS]: wrote hello.txt' });
    expect(result.iterations).toBe(3);
    expect(result.successes).toBe(2);
    expect(result.pendingCalls).toEqual([]);
    expect(result.answer).toBe('The file is written.');
    expect(await ws.read('hello.txt')).toBe('hello');

    const step = plan.step(stepId);
    expect(step.status).toBe('in_progress'); // the caller decides completed/failed
    expect(step.notes).toBe('[SUCCESS]: wrote hello.txt');
    expect(step.claims?.filesWritten).toEqual(['hello.txt']);
    expect(step.output).toBe('The file is written.');
    expect(step.ledger.map((call) => [call.callId, call.tool, call.status])).toEqual([
      ['call_w', 'write_file', 'success'],
      ['call_r', 'read_file', 'success'],
      ['call_m', 'mark_step', 'success'],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'step-finalized', stepId, pendingCallIds: [] });

    // The system prompt is the executor's; the tools include mark_step.
    const first = model.requests[0]!;
    expect(first.messages[0]).toEqual({ role: 'system', content: executorSystemPrompt });
    expect(first.tools?.map((tool) => tool.name)).toEqual([
      ...workspaceTools({ root: ws.root }).map((tool) => tool.name),
      'mark_step',
    ]);
    expect(first.toolChoice).toBe('auto');
  });

  it('mark_step fail stores [FAIL] notes and ends the loop', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('mark_step', { status: 'fail', notes: 'Unable to post - no credentials available' }),
        textTurn('never asked'),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(result.stopReason).toBe('marked');
    expect(result.marked).toEqual({
      status: 'fail',
      notes: '[FAIL]: Unable to post - no credentials available',
    });
    expect(result.answer).toBe('Unable to post - no credentials available');
    expect(plan.step(stepId).notes).toBe('[FAIL]: Unable to post - no credentials available');
    expect(model.remainingTurns).toBe(1);
  });

  it('keeps a [FAIL] tag of the notes even when status says success, and does not double tags', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [toolCallTurn('mark_step', { status: 'success', notes: '[FAIL]: no image tool available' })],
    });
    const result = await executeStep(plan, stepId, { model, tools: [] });
    expect(result.marked).toEqual({ status: 'fail', notes: '[FAIL]: no image tool available' });

    const second = inProgressPlan();
    const tagged = new ScriptedModel({
      turns: [toolCallTurn('mark_step', { status: 'success', notes: '[SUCCESS]: done it' })],
    });
    const again = await executeStep(second.plan, second.stepId, { model: tagged, tools: [] });
    expect(again.marked?.notes).toBe('[SUCCESS]: done it');
  });

  it('answers invalid mark_step arguments with zod issues and lets the model correct them', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('mark_step', { status: 'maybe', notes: '' }),
        toolCallTurn('mark_step', { status: 'success', notes: '[SUCCESS]:' }),
        toolCallTurn('mark_step', { status: 'success', notes: 'all good', claims: { filesWritten: 'x' } }),
        toolCallTurn('mark_step', { status: 'success', notes: 'all good' }),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [] });
    expect(result.stopReason).toBe('marked');
    const tools = toolMessages(result.messages);
    expect(tools[0]).toMatchObject({ isError: true });
    expect(tools[0]!.content).toContain('Error (invalid-arguments)');
    expect(tools[0]!.content).toContain('status');
    expect(tools[1]!.content).toContain('need a message after the tag');
    expect(tools[2]!.content).toContain('filesWritten');
    expect(plan.step(stepId).ledger.map((call) => call.status)).toEqual([
      'error',
      'error',
      'error',
      'success',
    ]);
  });

  it('refuses mark_step success sent together with a call that failed', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'missing.txt' } },
            { name: 'mark_step', arguments: { status: 'success', notes: 'read it' } },
          ],
        },
        toolCallTurn('mark_step', { status: 'fail', notes: 'missing.txt does not exist' }),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: workspaceTools({ root: ws.root }) });
    expect(result.marked?.status).toBe('fail');
    const tools = toolMessages(result.messages);
    expect(tools[1]!.content).toContain('mark-refused');
    expect(plan.step(stepId).ledger.map((call) => `${call.tool}:${call.status}`)).toEqual([
      'read_file:error',
      'mark_step:error',
      'mark_step:success',
    ]);
  });

  it('only the first mark_step of a response counts', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'mark_step', arguments: { status: 'success', notes: 'first' } },
            { name: 'mark_step', arguments: { status: 'fail', notes: 'second' } },
          ],
        },
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [] });
    expect(result.marked).toEqual({ status: 'success', notes: '[SUCCESS]: first' });
    expect(plan.step(stepId).ledger.map((call) => call.status)).toEqual(['success', 'error']);
    expect(toolMessages(result.messages)[1]!.content).toContain('already-marked');
  });

  it('without mark_step, ends on a text answer with empty notes (the verifier decides)', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [toolCallTurn('echo', { text: 'hi' }), textTurn('I echoed hi.')],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(result.stopReason).toBe('no-tool-calls');
    expect(result.marked).toBeUndefined();
    expect(result.answer).toBe('I echoed hi.');
    const step = plan.step(stepId);
    expect(step.notes).toBe('');
    expect(step.output).toBe('I echoed hi.');
    expect(step.ledger).toHaveLength(1);
    expect(step.ledger[0]).toMatchObject({ tool: 'echo', status: 'success', result: 'echo: hi' });
  });

  it('accepts a tool registry, emits model-call events with usage, and sums usage', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [{ name: 'echo', arguments: { text: 'a' } }],
          usage: { inputTokens: 10, outputTokens: 2 },
        },
        { text: 'done', usage: { inputTokens: 20, outputTokens: 3 } },
      ],
    });
    const events: ExecutorEvent[] = [];
    const result = await executeStep(plan, stepId, {
      model,
      tools: createToolRegistry([echoTool]),
      onEvent: (event) => {
        events.push(event);
        throw new Error('listeners may throw without breaking the step');
      },
    });
    expect(result.stopReason).toBe('no-tool-calls');
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 5, totalTokens: 35 });
    expect(events.map((event) => event.type)).toEqual([
      'model-call-started',
      'model-call-finished',
      'model-call-started',
      'model-call-finished',
    ]);
    expect(events[1]).toMatchObject({
      type: 'model-call-finished',
      iteration: 1,
      purpose: 'turn',
      toolCalls: 1,
      usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
    });
  });

  it('appends a caller systemPrompt after the executor prompt and passes call settings', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({ turns: [textTurn('ok')] });
    await executeStep(plan, stepId, {
      model,
      tools: [],
      systemPrompt: 'Write in French.',
      callSettings: { temperature: 0 },
    });
    const request = model.requests[0]!;
    expect(request.messages[0]!.content).toBe(`${executorSystemPrompt}\n\nWrite in French.`);
    expect(request.temperature).toBe(0);
  });

  it('gives reused provider call ids a unique ledger id and still answers the provider id', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('echo', { text: '1' }, 'same'),
        toolCallTurn('echo', { text: '2' }, 'same'),
        textTurn('ok'),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(plan.step(stepId).ledger.map((call) => call.callId)).toEqual(['same', 'same#2']);
    expect(toolMessages(result.messages).map((message) => message.toolCallId)).toEqual(['same', 'same']);
  });
});

describe('executeStep: the first user message', () => {
  it('carries the goal, the step, success criteria, required tools and dependency outputs (unverified flagged)', async () => {
    const { plan, stepId } = inProgressPlan({
      goal: 'Ship the greeting feature.',
      steps: [
        { id: 'design', description: 'Design the greeting.' },
        { id: 'research', description: 'Research greetings.' },
        {
          id: 'build',
          title: 'Build it',
          description: 'Implement the greeting in hello.txt.',
          dependsOn: ['design', 'research'],
          successCriteria: ['hello.txt exists', 'it says hello'],
          requiredTools: ['write_file', 'read_file'],
        },
      ],
    });
    plan.markStep('design', { output: 'Use the word "hello".' });
    plan.recordVerification('research', { verdict: 'unverified', unverified: true });
    plan.markStep('research', { notes: '[SUCCESS]: found three greetings' });
    const model = new ScriptedModel({ turns: [textTurn('ok')] });
    await executeStep(plan, stepId, { model, tools: [] });
    const user = model.requests[0]!.messages[1]!;
    expect(user.role).toBe('user');
    const text = user.content;
    expect(text).toContain('Ship the greeting feature.');
    expect(text).toContain('# Your step: build — Build it');
    expect(text).toContain('Implement the greeting in hello.txt.');
    expect(text).toContain('- hello.txt exists\n- it says hello');
    expect(text).toContain('1. write_file\n2. read_file');
    expect(text).toContain('### design: Design the greeting.\n\nUse the word "hello".');
    expect(text).toMatch(/### research: Research greetings\.\n\(UNVERIFIED[^\n]*\n\nfound three greetings/);
    expect(text.indexOf('design:')).toBeLessThan(text.indexOf('research:'));
  });

  it('uses the caller context instead of the plan when given', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({ turns: [textTurn('ok')] });
    await executeStep(plan, stepId, {
      model,
      tools: [],
      context: {
        goal: 'A different goal.',
        dependencyOutputs: [
          { stepId: 'x', description: 'Earlier work', output: 'x'.repeat(500), unverified: false },
        ],
      },
      maxToolResultChars: 100,
    });
    const text = model.requests[0]!.messages[1]!.content;
    expect(text).toContain('A different goal.');
    expect(text).not.toContain('Say hello in a file.');
    expect(text).toContain('### x: Earlier work');
    expect(text).toContain('[… truncated: 450 of 500 characters omitted …]');
    expect(text).not.toContain('x'.repeat(51));
    expect(text).not.toContain('UNVERIFIED');
  });
});

describe('executeStep: bad input', () => {
  const model = () => new ScriptedModel({ turns: [textTurn('ok')] });

  it('throws unknown-step and step-not-in-progress before anything runs', async () => {
    const { plan } = inProgressPlan({
      steps: [
        { id: 'a', description: 'A' },
        { id: 'b', description: 'B', dependsOn: ['a'] },
      ],
      stepId: 'a',
    });
    await expect(executeStep(plan, 'nope', { model: model(), tools: [] })).rejects.toMatchObject({
      code: 'unknown-step',
    });
    const m = model();
    const error = await executeStep(plan, 'b', { model: m, tools: [] }).catch((caught: unknown) => caught);
    expect(ExecutorError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'step-not-in-progress',
      details: { stepId: 'b', status: 'not_started' },
    });
    expect(m.requests).toHaveLength(0);
    expect(plan.step('b').ledger).toEqual([]);
  });

  it.each([
    [{ limits: { maxIterations: 0 } }, 'limits.maxIterations'],
    [{ limits: { maxSuccesses: 1.5 } }, 'limits.maxSuccesses'],
    [{ limits: { maxRepeatedCalls: -1 } }, 'limits.maxRepeatedCalls'],
    [{ parallelTools: 0 }, 'parallelTools'],
    [{ maxToolResultChars: 0 }, 'maxToolResultChars'],
    [{ toolTimeoutMs: -5 }, 'toolTimeoutMs'],
    [{ mode: 'turbo' }, 'mode'],
  ])('rejects %j as invalid-options', async (extra, option) => {
    const { plan, stepId } = inProgressPlan();
    const options = { model: model(), tools: [], ...extra } as Parameters<typeof executeStep>[2];
    await expect(executeStep(plan, stepId, options)).rejects.toMatchObject({
      code: 'invalid-options',
      details: { option },
    });
  });

  it('rejects missing model or tools', async () => {
    const { plan, stepId } = inProgressPlan();
    const noModel = {} as Parameters<typeof executeStep>[2];
    await expect(executeStep(plan, stepId, noModel)).rejects.toMatchObject({ code: 'invalid-options' });
    const noTools = { model: model() } as unknown as Parameters<typeof executeStep>[2];
    await expect(executeStep(plan, stepId, noTools)).rejects.toMatchObject({
      code: 'invalid-options',
      details: { option: 'tools' },
    });
  });

  it('rejects a tool named mark_step and duplicate tool names', async () => {
    const { plan, stepId } = inProgressPlan();
    const impostor = defineTool({
      name: 'mark_step',
      description: 'Not the real one.',
      input: z.object({}),
      execute: () => 'x',
    });
    await expect(executeStep(plan, stepId, { model: model(), tools: [impostor] })).rejects.toMatchObject({
      code: 'tool-name-conflict',
    });
    await expect(
      executeStep(plan, stepId, { model: model(), tools: [echoTool, echoTool] }),
    ).rejects.toMatchObject({
      code: 'tool-name-conflict',
    });
    expect(plan.step(stepId).ledger).toEqual([]);
  });
});

describe('executeStep: requests', () => {
  it('sends the growing conversation as a fresh array each turn', async () => {
    const { plan, stepId } = inProgressPlan();
    const seen: GenerateRequest['messages'][] = [];
    const model = new ScriptedModel({
      turns: [
        (request) => {
          seen.push(request.messages);
          return toolCallTurn('echo', { text: 'a' });
        },
        (request) => {
          seen.push(request.messages);
          return textTurn('done');
        },
      ],
    });
    await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(seen[0]).toHaveLength(2);
    expect(seen[1]).toHaveLength(4);
    expect(seen[0]).not.toBe(seen[1]);
  });
});

describe('executorSystemPrompt', () => {
  it('asks for tagged, honest notes in the words of the notes-based verification design', () => {
    for (const line of [
      'you MUST call mark_step with a notes field that starts with a status tag',
      '- [SUCCESS]: <brief description of what was accomplished>',
      '- [FAIL]: <reason why the step could not be completed>',
      'Be HONEST about failures.',
      'report [FAIL] with a clear reason',
    ]) {
      expect(executorSystemPrompt).toContain(line);
    }
    expect(executorSystemPrompt).toContain('Never claim to have done something a tool result does not show.');
  });
});
