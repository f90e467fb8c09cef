import { ScriptedModel, textTurn, toolCallTurn } from '@closedloop/model/testing';
import type { Plan } from '@closedloop/plan';
import { defineTool, workspaceTools } from '@closedloop/tools';
import type { TempWorkspace } from '@closedloop/tools/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { echoTool, inProgressPlan, sleep, toolMessages, useTempWorkspace } from './__fixtures__/step-plan';
import { executeStep } from './execute-step';
import type { ExecutorEvent } from './executor-events';
import type { GuardCheckInput, GuardDecision, ToolCallGuard } from './tool-call-guard';

let ws: TempWorkspace;
useTempWorkspace((created) => {
  ws = created;
});

describe('executeStep: tool errors the model can correct', () => {
  it('answers an unknown tool with an error listing the tools, records it, and continues', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('write_files', { path: 'a.txt', content: 'a' }),
        toolCallTurn('write_file', { path: 'a.txt', content: 'a' }),
        textTurn('done'),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: workspaceTools({ root: ws.root }) });
    expect(result.stopReason).toBe('no-tool-calls');
    const [unknown] = toolMessages(result.messages);
    expect(unknown).toMatchObject({ role: 'tool', toolName: 'write_files', isError: true });
    expect(unknown!.content).toContain('Error (unknown-tool)');
    expect(unknown!.content).toContain('write_file, edit_file');
    expect(unknown!.content).toContain('mark_step');
    expect(plan.step(stepId).ledger.map((call) => `${call.tool}:${call.status}`)).toEqual([
      'write_files:error',
      'write_file:success',
    ]);
    expect(await ws.read('a.txt')).toBe('a');
  });

  it('answers invalid arguments with the zod issues, never runs the tool, and records an error', async () => {
    const { plan, stepId } = inProgressPlan();
    let runs = 0;
    const strict = defineTool({
      name: 'make_dir',
      description: 'Creates a folder.',
      input: z.object({ path: z.string().min(1), mode: z.number().int() }),
      execute: () => {
        runs++;
        return 'made';
      },
    });
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('make_dir', { path: '', mode: 'rwx' }),
        { toolCalls: [{ name: 'make_dir', rawArguments: '{"path": "x", ' }] }, // malformed JSON
        toolCallTurn('make_dir', { path: 'x', mode: 7 }),
        textTurn('done'),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [strict] });
    const [first, second, third] = toolMessages(result.messages);
    expect(first).toMatchObject({ isError: true });
    expect(first!.content).toContain('Error (invalid-arguments)');
    expect(first!.content).toContain('path');
    expect(first!.content).toContain('mode');
    expect(first!.content).toMatch(/expected number/i);
    expect(second).toMatchObject({ isError: true });
    expect(second!.content).toContain('invalid-arguments');
    expect(third).toMatchObject({ content: 'made' });
    expect(third!.isError).toBeUndefined();
    expect(runs).toBe(1);
    const ledger = plan.step(stepId).ledger;
    expect(ledger.map((call) => call.status)).toEqual(['error', 'error', 'success']);
    expect(ledger[0]!.error).toContain('invalid-arguments');
  });

  it('refuses tool-call arguments nested too deep for anything to walk, with an error the model can correct', async () => {
    const { plan, stepId } = inProgressPlan();
    // 50 000 levels: 100 KB of model output, parsed fine by JSON.parse, but past the stack of
    // every recursive walker (dedupe keys, JSON.stringify of the next request, the journal).
    const deep = `{"path":"a.txt","content":"a","extra":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    const events: ExecutorEvent[] = [];
    const model = new ScriptedModel({
      turns: [
        { toolCalls: [{ name: 'write_file', rawArguments: deep }] },
        toolCallTurn('write_file', { path: 'a.txt', content: 'a' }),
        textTurn('done'),
      ],
    });
    const result = await executeStep(plan, stepId, {
      model,
      tools: workspaceTools({ root: ws.root }),
      onEvent: (event) => events.push(event),
    });
    expect(result.stopReason).toBe('no-tool-calls');
    const [refused, written] = toolMessages(result.messages);
    expect(refused).toMatchObject({ isError: true });
    expect(refused!.content).toContain('Error (invalid-arguments)');
    expect(refused!.content).toMatch(/nested deeper than \d+ levels/);
    expect(written!.isError).toBeUndefined();
    expect(await ws.read('a.txt')).toBe('a');
    // Everything the step produced can be written down (journal, transcript, next request).
    expect(() => JSON.stringify({ events, messages: result.messages, plan: plan.toJSON() })).not.toThrow();
    expect(plan.step(stepId).ledger.map((call) => `${call.tool}:${call.status}`)).toEqual([
      'write_file:error',
      'write_file:success',
    ]);
  });

  it('turns a throwing tool into an error result', async () => {
    const { plan, stepId } = inProgressPlan();
    const broken = defineTool({
      name: 'broken',
      description: 'Always fails.',
      input: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const model = new ScriptedModel({ turns: [toolCallTurn('broken'), textTurn('it failed')] });
    const result = await executeStep(plan, stepId, { model, tools: [broken] });
    expect(toolMessages(result.messages)[0]!.content).toContain('disk on fire');
    expect(plan.step(stepId).ledger[0]).toMatchObject({ status: 'error' });
    expect(result.successes).toBe(0);
  });

  it('cuts oversized results for the model but records the full text in the ledger', async () => {
    const { plan, stepId } = inProgressPlan();
    const big = defineTool({
      name: 'big',
      description: 'Returns a lot.',
      input: z.object({}),
      execute: () => `${'a'.repeat(5000)}${'z'.repeat(5000)}`,
    });
    const model = new ScriptedModel({ turns: [toolCallTurn('big'), textTurn('ok')] });
    const result = await executeStep(plan, stepId, { model, tools: [big], maxToolResultChars: 1000 });
    const content = toolMessages(result.messages)[0]!.content;
    // The tools' truncateText: 70 % head, 30 % tail, the marker within the budget.
    expect(content.length).toBeLessThanOrEqual(1000);
    expect(content).toContain('[… truncated: 9054 of 10000 characters omitted …]');
    expect(content.startsWith('a'.repeat(663))).toBe(true);
    expect(content.endsWith('z'.repeat(283))).toBe(true);
    expect(plan.step(stepId).ledger[0]!.result).toHaveLength(10_000);
  });
});

describe('executeStep: the tool-call guard', () => {
  function guardOf(decide: (input: GuardCheckInput) => GuardDecision | Promise<GuardDecision>) {
    const seen: GuardCheckInput[] = [];
    const guard: ToolCallGuard = {
      async check(input) {
        seen.push(input);
        return decide(input);
      },
    };
    return { guard, seen };
  }

  it('feeds a denial back as an error result, does not run the tool, and records it', async () => {
    const { plan, stepId } = inProgressPlan();
    await ws.write('keep.txt', 'precious');
    const { guard, seen } = guardOf((input) =>
      input.tool.destructive
        ? { action: 'deny', reason: 'deleting files is not part of this step' }
        : { action: 'allow' },
    );
    const events: ExecutorEvent[] = [];
    const model = new ScriptedModel({
      turns: [
        { confidence: 0.42, toolCalls: [{ name: 'delete_file', arguments: { path: 'keep.txt' } }] },
        toolCallTurn('read_file', { path: 'keep.txt' }),
        textTurn('kept it'),
      ],
    });
    const result = await executeStep(plan, stepId, {
      model,
      tools: workspaceTools({ root: ws.root }),
      guard,
      onEvent: (event) => events.push(event),
    });
    expect(await ws.exists('keep.txt')).toBe(true);
    const [denied, read] = toolMessages(result.messages);
    expect(denied).toMatchObject({ isError: true });
    expect(denied!.content).toContain('Error (denied)');
    expect(denied!.content).toContain('deleting files is not part of this step');
    expect(read!.content).toBe('precious');
    expect(plan.step(stepId).ledger.map((call) => call.status)).toEqual(['error', 'success']);
    expect(seen[0]).toMatchObject({ args: { path: 'keep.txt' }, confidence: 0.42 });
    expect(seen[0]!.tool.name).toBe('delete_file');
    expect(seen[0]!.request).toContain('Say hello in a file.');
    expect(seen[0]!.request).toContain('Write hello.txt');
    const decided = events.filter((event) => event.type === 'guard-decided');
    expect(decided.map((event) => event.decision.action)).toEqual(['deny', 'allow']);
  });

  it('does not ask the guard about calls that cannot run (unknown tool, invalid arguments) or mark_step', async () => {
    const { plan, stepId } = inProgressPlan();
    const { guard, seen } = guardOf(() => ({ action: 'allow' }));
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('nope'),
        toolCallTurn('echo', { text: 3 }),
        toolCallTurn('mark_step', { status: 'fail', notes: 'could not' }),
      ],
    });
    await executeStep(plan, stepId, { model, tools: [echoTool], guard });
    expect(seen).toHaveLength(0);
  });

  it('ask-human is denied by default, and runs when onAskHuman approves', async () => {
    const askingGuard = guardOf(() => ({ action: 'ask-human', reason: 'overwrites a file' })).guard;

    const first = inProgressPlan();
    const model = new ScriptedModel({
      turns: [toolCallTurn('write_file', { path: 'a.txt', content: 'x' }), textTurn('ok')],
    });
    const denied = await executeStep(first.plan, first.stepId, {
      model,
      tools: workspaceTools({ root: ws.root }),
      guard: askingGuard,
    });
    expect(toolMessages(denied.messages)[0]!.content).toContain('needs a human');
    expect(toolMessages(denied.messages)[0]!.content).toContain('overwrites a file');
    expect(await ws.exists('a.txt')).toBe(false);

    const second = inProgressPlan();
    const asked: string[] = [];
    const events: ExecutorEvent[] = [];
    const approving = new ScriptedModel({
      turns: [toolCallTurn('write_file', { path: 'a.txt', content: 'x' }), textTurn('ok')],
    });
    await executeStep(second.plan, second.stepId, {
      model: approving,
      tools: workspaceTools({ root: ws.root }),
      guard: askingGuard,
      onAskHuman: async (request) => {
        asked.push(`${request.tool.name}: ${request.reason}`);
        return true;
      },
      onEvent: (event) => events.push(event),
    });
    expect(asked).toEqual(['write_file: overwrites a file']);
    expect(await ws.read('a.txt')).toBe('x');
    expect(events.find((event) => event.type === 'guard-decided')).toMatchObject({ approved: true });
  });

  it('an onAskHuman that says no (or throws) denies the call', async () => {
    for (const answer of [() => false, () => Promise.reject(new Error('UI closed'))]) {
      const { plan, stepId } = inProgressPlan();
      const { guard } = guardOf(() => ({ action: 'ask-human', reason: 'risky' }));
      const model = new ScriptedModel({ turns: [toolCallTurn('echo', { text: 'x' }), textTurn('ok')] });
      const result = await executeStep(plan, stepId, { model, tools: [echoTool], guard, onAskHuman: answer });
      expect(toolMessages(result.messages)[0]!.content).toContain('was not approved');
      expect(plan.step(stepId).ledger[0]!.status).toBe('error');
    }
  });

  it('fails closed when the guard throws', async () => {
    const { plan, stepId } = inProgressPlan();
    const { guard } = guardOf(() => {
      throw new Error('verifier model unavailable');
    });
    const model = new ScriptedModel({ turns: [toolCallTurn('echo', { text: 'x' }), textTurn('ok')] });
    const result = await executeStep(plan, stepId, { model, tools: [echoTool], guard });
    expect(toolMessages(result.messages)[0]!.content).toContain(
      'the guard failed: verifier model unavailable',
    );
    expect(plan.step(stepId).ledger[0]!.status).toBe('error');
  });

  it('shows the guard the parsed input, and the tool runs exactly that input (validated once)', async () => {
    const { plan, stepId } = inProgressPlan();
    const ran: unknown[] = [];
    const copy = defineTool({
      name: 'copy',
      description: 'Copies a file.',
      input: z.object({ from: z.string(), to: z.string(), overwrite: z.boolean().default(false) }),
      execute: (input) => {
        ran.push(input);
        return 'copied';
      },
    });
    const { guard, seen } = guardOf(() => ({ action: 'allow' }));
    const model = new ScriptedModel({
      turns: [
        { toolCalls: [{ name: 'copy', rawArguments: '{"from":"a.txt","to":"b.txt"}' }] },
        textTurn('done'),
      ],
    });
    await executeStep(plan, stepId, { model, tools: [copy], guard });
    expect(seen.map((input) => input.args)).toEqual([{ from: 'a.txt', to: 'b.txt', overwrite: false }]);
    expect(ran).toEqual([{ from: 'a.txt', to: 'b.txt', overwrite: false }]);
    expect(ran[0]).toBe(seen[0]!.args);
  });
});

describe('executeStep: the ledger is written before tools run', () => {
  it('a tool that inspects the ledger while it runs sees its own call pending', async () => {
    const { plan, stepId } = inProgressPlan();
    const observed: Array<{ callId: string; status: string }[]> = [];
    const inspector = (target: Plan) =>
      defineTool({
        name: 'inspect',
        description: 'Looks at the ledger.',
        input: z.object({ n: z.number() }),
        execute: (_input, context) => {
          const ledger = target.step(stepId).ledger;
          observed.push(ledger.map((call) => ({ callId: call.callId, status: call.status })));
          expect(ledger.find((call) => call.callId === context.callId)?.status).toBe('pending');
          return 'seen';
        },
      });
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'inspect', arguments: { n: 1 } },
            { id: 'c2', name: 'inspect', arguments: { n: 2 } },
          ],
        },
        textTurn('done'),
      ],
    });
    await executeStep(plan, stepId, { model, tools: [inspector(plan)] });
    // Every call of the response was pending before the first one ran.
    expect(observed).toEqual([
      [
        { callId: 'c1', status: 'pending' },
        { callId: 'c2', status: 'pending' },
      ],
      [
        { callId: 'c1', status: 'success' },
        { callId: 'c2', status: 'pending' },
      ],
    ]);
  });

  it('orders plan events: tool-call-started for all calls, then finished ones', async () => {
    const { plan, stepId, events } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: 'a', name: 'echo', arguments: { text: '1' } },
            { id: 'b', name: 'echo', arguments: { text: '2' } },
          ],
        },
        textTurn('done'),
      ],
    });
    await executeStep(plan, stepId, { model, tools: [echoTool] });
    expect(events.map((event) => ('callId' in event ? `${event.type}:${event.callId}` : event.type))).toEqual(
      [
        'tool-call-started:a',
        'tool-call-started:b',
        'tool-call-finished:a',
        'tool-call-finished:b',
        'step-marked',
        'step-finalized',
      ],
    );
  });
});

describe('executeStep: timeouts and progress', () => {
  it("answers a tool's own timeout with an error and continues", async () => {
    const { plan, stepId } = inProgressPlan();
    const slow = defineTool({
      name: 'slow',
      description: 'Takes too long.',
      input: z.object({}),
      timeoutMs: 30,
      execute: async (_input, context) => {
        await sleep(2000, context.signal);
        return 'late';
      },
    });
    const model = new ScriptedModel({ turns: [toolCallTurn('slow'), textTurn('it timed out')] });
    const started = performance.now();
    const result = await executeStep(plan, stepId, { model, tools: [slow] });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.stopReason).toBe('no-tool-calls');
    expect(toolMessages(result.messages)[0]!.content).toContain('Error (timeout)');
    expect(plan.step(stepId).ledger[0]).toMatchObject({ status: 'error' });
    expect(plan.step(stepId).ledger[0]!.error).toContain('timeout');
  });

  it('applies toolTimeoutMs to tools without their own timeout, even when they ignore the signal', async () => {
    const { plan, stepId } = inProgressPlan();
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'Ignores its signal.',
      input: z.object({}),
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), 3000).unref()),
    });
    const model = new ScriptedModel({ turns: [toolCallTurn('stubborn'), textTurn('gave up')] });
    const started = performance.now();
    const result = await executeStep(plan, stepId, { model, tools: [stubborn], toolTimeoutMs: 40 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(toolMessages(result.messages)[0]!.content).toContain('did not finish within 40 ms');
    expect(plan.step(stepId).ledger[0]!.error).toContain('timeout');
  });

  it('forwards progress of long-running tools as tool-call-progress events', async () => {
    const { plan, stepId } = inProgressPlan();
    const training = defineTool({
      name: 'train',
      description: 'Trains a model.',
      input: z.object({}),
      execute: async (_input, context) => {
        for (const fraction of [0.25, 0.5, 1]) {
          await sleep(1);
          context.onProgress?.({ message: `epoch ${fraction * 4}`, fraction });
        }
        return 'trained';
      },
    });
    const events: ExecutorEvent[] = [];
    const model = new ScriptedModel({ turns: [toolCallTurn('train', {}, 'call_t'), textTurn('done')] });
    await executeStep(plan, stepId, { model, tools: [training], onEvent: (event) => events.push(event) });
    const progress = events.filter((event) => event.type === 'tool-call-progress');
    expect(progress).toEqual([
      {
        type: 'tool-call-progress',
        stepId,
        callId: 'call_t',
        tool: 'train',
        progress: { message: 'epoch 1', fraction: 0.25 },
      },
      {
        type: 'tool-call-progress',
        stepId,
        callId: 'call_t',
        tool: 'train',
        progress: { message: 'epoch 2', fraction: 0.5 },
      },
      {
        type: 'tool-call-progress',
        stepId,
        callId: 'call_t',
        tool: 'train',
        progress: { message: 'epoch 4', fraction: 1 },
      },
    ]);
  });
});

describe('executeStep: parallel tool calls', () => {
  function tracked(
    name: string,
    options: { destructive?: boolean; ms: number },
    log: string[],
    state: { active: number; max: number },
  ) {
    return defineTool({
      name,
      description: `Tracked tool ${name}.`,
      input: z.object({ id: z.string() }),
      destructive: options.destructive ?? false,
      execute: async ({ id }) => {
        state.active++;
        state.max = Math.max(state.max, state.active);
        log.push(`start ${id}`);
        await sleep(options.ms);
        log.push(`end ${id}`);
        state.active--;
        return `result ${id}`;
      },
    });
  }

  const response = {
    toolCalls: [
      { id: 'c1', name: 'fetch', arguments: { id: '1' } },
      { id: 'c2', name: 'remove', arguments: { id: '2' } },
      { id: 'c3', name: 'fetch', arguments: { id: '3' } },
      { id: 'c4', name: 'fetch', arguments: { id: '4' } },
      { id: 'c5', name: 'fetch', arguments: { id: '5' } },
    ],
  };

  it('runs calls one at a time, in call order, by default', async () => {
    const { plan, stepId } = inProgressPlan();
    const log: string[] = [];
    const state = { active: 0, max: 0 };
    const tools = [
      tracked('fetch', { ms: 5 }, log, state),
      tracked('remove', { destructive: true, ms: 5 }, log, state),
    ];
    const model = new ScriptedModel({ turns: [response, textTurn('done')] });
    await executeStep(plan, stepId, { model, tools });
    expect(state.max).toBe(1);
    expect(log).toEqual(['1', '2', '3', '4', '5'].flatMap((id) => [`start ${id}`, `end ${id}`]));
  });

  it('runs non-destructive calls concurrently (at most n), destructive ones after, results in call order', async () => {
    const { plan, stepId } = inProgressPlan();
    const log: string[] = [];
    const state = { active: 0, max: 0 };
    const tools = [
      tracked('fetch', { ms: 40 }, log, state),
      tracked('remove', { destructive: true, ms: 5 }, log, state),
    ];
    const model = new ScriptedModel({ turns: [response, textTurn('done')] });
    const result = await executeStep(plan, stepId, { model, tools, parallelTools: 3 });
    // Overlap observed, capped at 3.
    expect(state.max).toBe(3);
    expect(log.slice(0, 3).sort()).toEqual(['start 1', 'start 3', 'start 4']);
    // The destructive call runs alone, after every non-destructive one finished.
    const removeStart = log.indexOf('start 2');
    expect(log.slice(0, removeStart).filter((entry) => entry.startsWith('end'))).toHaveLength(4);
    expect(log.at(-1)).toBe('end 2');
    // Results go back to the model in call order.
    expect(toolMessages(result.messages).map((message) => [message.toolCallId, message.content])).toEqual([
      ['c1', 'result 1'],
      ['c2', 'result 2'],
      ['c3', 'result 3'],
      ['c4', 'result 4'],
      ['c5', 'result 5'],
    ]);
    // The ledger keeps call order too, everything answered.
    expect(plan.step(stepId).ledger.map((call) => `${call.callId}:${call.status}`)).toEqual([
      'c1:success',
      'c2:success',
      'c3:success',
      'c4:success',
      'c5:success',
    ]);
    expect(result.successes).toBe(1);
  });

  it('returns results in call order even when the calls finish in another order', async () => {
    const { plan, stepId } = inProgressPlan();
    const finished: string[] = [];
    const wait = defineTool({
      name: 'wait',
      description: 'Waits, then answers.',
      input: z.object({ id: z.string(), ms: z.number() }),
      execute: async ({ id, ms }) => {
        await sleep(ms);
        finished.push(id);
        return `waited ${id}`;
      },
    });
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: 'slow', name: 'wait', arguments: { id: 'slow', ms: 60 } },
            { id: 'mid', name: 'wait', arguments: { id: 'mid', ms: 30 } },
            { id: 'fast', name: 'wait', arguments: { id: 'fast', ms: 1 } },
          ],
        },
        textTurn('done'),
      ],
    });
    const result = await executeStep(plan, stepId, { model, tools: [wait], parallelTools: 3 });
    expect(finished).toEqual(['fast', 'mid', 'slow']);
    expect(toolMessages(result.messages).map((message) => [message.toolCallId, message.content])).toEqual([
      ['slow', 'waited slow'],
      ['mid', 'waited mid'],
      ['fast', 'waited fast'],
    ]);
    expect(plan.step(stepId).ledger.map((call) => call.callId)).toEqual(['slow', 'mid', 'fast']);
  });
});

describe('executeStep: secrets', () => {
  it('keeps an environment secret out of results, the ledger, events, progress, denials and errors', async () => {
    const canary = 'canary-executor-secret-5f3a9c1e';
    process.env.CLOSEDLOOP_EXECUTOR_TEST_TOKEN = canary;
    try {
      await ws.write('.env', `CLOSEDLOOP_EXECUTOR_TEST_TOKEN=${canary}\n`);
      const leaky = defineTool({
        name: 'leaky',
        description: 'Leaks the secret every way it can.',
        input: z.object({ mode: z.enum(['result', 'throw', 'progress']) }),
        execute: ({ mode }, context) => {
          if (mode === 'throw') throw new Error(`login failed for ${canary}`);
          context.onProgress?.({ message: `using ${canary}` });
          return { token: canary };
        },
      });
      const guard: ToolCallGuard = {
        check: async ({ tool }): Promise<GuardDecision> =>
          tool.name === 'delete_file'
            ? { action: 'deny', reason: `deleting needs ${canary}` }
            : { action: 'allow' },
      };
      const model = new ScriptedModel({
        turns: [
          {
            toolCalls: [
              { id: 'r', name: 'read_file', arguments: { path: '.env' } },
              { id: 'c', name: 'run_command', arguments: { argv: ['cat', '.env'] } },
              { id: 'l', name: 'leaky', arguments: { mode: 'result' } },
              { id: 't', name: 'leaky', arguments: { mode: 'throw' } },
              { id: 'd', name: 'delete_file', arguments: { path: '.env' } },
            ],
          },
          toolCallTurn('mark_step', { status: 'fail', notes: 'could not finish' }),
        ],
      });
      const executorEvents: ExecutorEvent[] = [];
      const { plan, stepId, events } = inProgressPlan();
      const result = await executeStep(plan, stepId, {
        model,
        tools: [...workspaceTools({ root: ws.root }), leaky],
        guard,
        onEvent: (event) => executorEvents.push(event),
      });
      // The secret was really there to leak: the tools read it.
      expect(await ws.read('.env')).toContain(canary);
      const ledger = plan.step(stepId).ledger;
      expect(ledger.map((call) => `${call.callId}:${call.status}`)).toEqual([
        'r:success',
        'c:success',
        'l:success',
        't:error',
        'd:error',
        expect.stringMatching(/:success$/),
      ]);
      expect(ledger[0]!.result).toContain('[REDACTED:CLOSEDLOOP_EXECUTOR_TEST_TOKEN]');
      expect(executorEvents.some((event) => event.type === 'tool-call-progress')).toBe(true);
      for (const [what, value] of Object.entries({
        result,
        ledger,
        planEvents: events,
        executorEvents,
        snapshot: plan.toJSON(),
      })) {
        expect(JSON.stringify(value), what).not.toContain(canary);
      }
    } finally {
      delete process.env.CLOSEDLOOP_EXECUTOR_TEST_TOKEN;
    }
  });
});
