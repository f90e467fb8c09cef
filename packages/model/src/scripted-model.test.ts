import { describe, expect, it } from 'vitest';
import type { GenerateRequest, StreamPart } from './chat-model';
import { ModelError } from './model-error';
import { streamToResult } from './stream-to-result';
import { errorTurn, ScriptedModel, textTurn, toolCallTurn } from './testing';

const ask = (content: string): GenerateRequest => ({ messages: [{ role: 'user', content }] });

describe('ScriptedModel', () => {
  it('estimates usage from everything the request and the answer say (one token per 4 characters)', async () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } } };
    const request: GenerateRequest = {
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Read a.ts' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'read_file', arguments: { path: 'a.ts' }, rawArguments: '{"path":"a.ts"}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'export const a = 1;' },
      ],
      tools: [{ name: 'read_file', description: 'Reads a file.', inputSchema: schema }],
      responseFormat: { type: 'json', schema },
    };
    const answer = {
      text: 'done',
      reasoning: [{ type: 'reasoning' as const, text: 'think' }],
      toolCalls: [{ name: 'write_file', arguments: { path: 'b.ts' } }],
    };
    const model = new ScriptedModel({ turns: [answer] });
    const result = await model.doGenerate(request);
    const input =
      'You are terse.' +
      'Read a.ts' +
      'read_file{"path":"a.ts"}' +
      'export const a = 1;' +
      'read_fileReads a file.' +
      JSON.stringify(schema) +
      JSON.stringify(schema);
    const output = 'done' + 'think' + 'write_file{"path":"b.ts"}';
    expect(result.usage.inputTokens).toBe(Math.ceil(input.length / 4));
    expect(result.usage.outputTokens).toBe(Math.ceil(output.length / 4));
  });

  it('implements the ChatModel identity fields', () => {
    const model = new ScriptedModel({ modelId: 'm1', capabilities: { logprobs: true } });
    expect(model.specificationVersion).toBe('v1');
    expect(model.provider).toBe('scripted');
    expect(model.modelId).toBe('m1');
    expect(model.capabilities.logprobs).toBe(true);
    expect(model.capabilities.toolCalling).toBe(true);
  });

  it('answers turns in order and records deep copies of requests', async () => {
    const model = new ScriptedModel({
      turns: [toolCallTurn('read_file', { path: 'a.ts' }), textTurn('done')],
    });
    const request = ask('go');
    const first = await model.doGenerate(request);
    request.messages.push({ role: 'user', content: 'mutated later' });
    const second = await model.doGenerate(ask('again'));

    expect(first.toolCalls).toEqual([
      { id: 'call_1', name: 'read_file', arguments: { path: 'a.ts' }, rawArguments: '{"path":"a.ts"}' },
    ]);
    expect(first.finishReason).toBe('tool-calls');
    expect(first.text).toBe('');
    expect(second.text).toBe('done');
    expect(second.finishReason).toBe('stop');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.messages).toHaveLength(1);
    expect(model.remainingTurns).toBe(0);
  });

  it('keeps explicit ids and parses rawArguments when arguments are not given', async () => {
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('x', { a: 1 }, 'my-id'),
        {
          toolCalls: [
            { name: 'y', rawArguments: '{"b":2}' },
            { name: 'z', rawArguments: '{oops' },
          ],
        },
      ],
    });
    expect((await model.doGenerate(ask('1'))).toolCalls[0]?.id).toBe('my-id');
    const second = await model.doGenerate(ask('2'));
    expect(second.toolCalls.map((call) => call.arguments)).toEqual([{ b: 2 }, '{oops']);
    expect(second.toolCalls.map((call) => call.id)).toEqual(['call_1', 'call_2']);
  });

  it('computes usage deterministically (about chars/4) unless given', async () => {
    const model = new ScriptedModel({
      turns: [textTurn('12345678'), { text: 'x', usage: { inputTokens: 100, outputTokens: 7 } }],
    });
    const first = await model.doGenerate(ask('abcdefghijkl'));
    expect(first.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
    const second = await model.doGenerate(ask('abc'));
    expect(second.usage).toEqual({ inputTokens: 100, outputTokens: 7, totalTokens: 107 });
  });

  it('checks matchers first, honouring times, then falls back to turns', async () => {
    const model = new ScriptedModel({
      matchers: [
        {
          match: (request) => request.messages.some((m) => m.content.includes('weather')),
          respond: textTurn('sunny'),
          times: 1,
        },
      ],
      turns: [textTurn('fallback 1'), textTurn('fallback 2')],
    });
    expect((await model.doGenerate(ask('weather?'))).text).toBe('sunny');
    expect((await model.doGenerate(ask('weather again?'))).text).toBe('fallback 1');
    expect((await model.doGenerate(ask('other'))).text).toBe('fallback 2');
  });

  it('supports function turns that see the request', async () => {
    const model = new ScriptedModel({
      turns: [(request, { callIndex }) => textTurn(`echo ${request.messages[0]?.content} #${callIndex}`)],
    });
    expect((await model.doGenerate(ask('hi'))).text).toBe('echo hi #0');
  });

  it('throws scripted errors and records them', async () => {
    const error = new ModelError({ code: 'rate-limited', message: 'slow down', retryAfterMs: 5 });
    const model = new ScriptedModel({ turns: [errorTurn(error), { error }] });
    await expect(model.doGenerate(ask('a'))).rejects.toBe(error);
    await expect(model.doGenerate(ask('b'))).rejects.toBe(error);
    expect(model.calls[0]?.error).toBe(error);
  });

  it('throws a clear error naming the request when the script runs out', async () => {
    const model = new ScriptedModel({ modelId: 'planner', turns: [] });
    const promise = model.doGenerate({
      messages: [{ role: 'user', content: 'plan the refactor' }],
      tools: [{ name: 'read_file', description: 'read', inputSchema: { type: 'object' } }],
    });
    await expect(promise).rejects.toMatchObject({ code: 'invalid-response', isRetryable: false });
    await expect(promise).rejects.toThrow(/planner.*call #1.*plan the refactor.*read_file/);
  });

  it('waits for latency and rejects within a few ms when aborted during it', async () => {
    const model = new ScriptedModel({ latencyMs: 5_000, turns: [textTurn('late')] });
    const controller = new AbortController();
    const started = performance.now();
    const promise = model.doGenerate(ask('x'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(promise).rejects.toMatchObject({ code: 'aborted' });
    // Far sooner than the 5 s latency (a loaded machine can stall timers for a second).
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('applies per-request latency', async () => {
    const model = new ScriptedModel({ latencyMs: () => 30, turns: [textTurn('ok')] });
    const started = performance.now();
    await model.doGenerate(ask('x'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects at once with an already-aborted signal', async () => {
    const model = new ScriptedModel({ turns: [textTurn('ok')] });
    await expect(model.doGenerate(ask('x'), { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'aborted',
    });
  });

  it('streams text deltas, tool-call deltas and one finish part', async () => {
    const model = new ScriptedModel({
      streamChunkSize: 4,
      turns: [
        {
          text: 'hello world',
          toolCalls: [{ name: 'write_file', arguments: { path: 'a.ts', content: 'x' } }],
        },
      ],
    });
    const parts: StreamPart[] = [];
    for await (const part of model.doStream(ask('x'))) parts.push(part);
    const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');
    const args = parts.flatMap((p) => (p.type === 'tool-call-delta' ? [p.argumentsDelta] : [])).join('');
    expect(text).toBe('hello world');
    expect(parts.filter((p) => p.type === 'text-delta').length).toBe(3);
    expect(JSON.parse(args)).toEqual({ path: 'a.ts', content: 'x' });
    const firstDelta = parts.find((p) => p.type === 'tool-call-delta');
    expect(firstDelta).toMatchObject({ index: 0, id: 'call_1', name: 'write_file' });
    expect(parts.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(parts.at(-1)?.type).toBe('finish');
    const complete = parts.find((p) => p.type === 'tool-call');
    expect(complete).toMatchObject({ toolCall: { name: 'write_file', id: 'call_1' } });
  });

  it('stream consumed through streamToResult equals doGenerate', async () => {
    const turn = { text: 'abc', toolCalls: [{ name: 't', arguments: { n: 1 }, id: 'c1' }] };
    const a = new ScriptedModel({ turns: [turn] });
    const b = new ScriptedModel({ turns: [turn] });
    expect(await streamToResult(a.doStream(ask('q')))).toEqual(await b.doGenerate(ask('q')));
  });

  it('stops a stream when aborted between parts', async () => {
    const model = new ScriptedModel({ streamChunkSize: 1, turns: [textTurn('abcdefgh')] });
    const controller = new AbortController();
    const seen: string[] = [];
    const consume = async () => {
      for await (const part of model.doStream(ask('x'), { signal: controller.signal })) {
        if (part.type === 'text-delta') seen.push(part.delta);
        if (seen.length === 2) controller.abort();
      }
    };
    await expect(consume()).rejects.toMatchObject({ code: 'aborted' });
    expect(seen).toEqual(['a', 'b']);
  });

  it('rejects on abort while an async function turn is pending', async () => {
    const model = new ScriptedModel({ turns: [() => new Promise<never>(() => {})] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    await expect(model.doGenerate(ask('x'), { signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
  });

  it('accepts more turns later', async () => {
    const model = new ScriptedModel();
    model.addTurns(textTurn('late turn'));
    expect(model.remainingTurns).toBe(1);
    expect((await model.doGenerate(ask('x'))).text).toBe('late turn');
  });
});

describe('ScriptedModel recordRequests: false', () => {
  it('answers without keeping copies of the requests', async () => {
    const model = new ScriptedModel({ recordRequests: false, turns: [textTurn('a'), textTurn('b')] });
    const request = { messages: [{ role: 'user' as const, content: 'hi' }] };
    expect((await model.doGenerate(request)).text).toBe('a');
    expect((await model.doGenerate(request)).text).toBe('b');
    expect(model.requests).toEqual([]);
    expect(model.calls).toEqual([]);
  });
});
