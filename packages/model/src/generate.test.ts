import { describe, expect, it } from 'vitest';
import type { ChatModel, GenerateRequest, StreamPart } from './chat-model';
import { generate } from './generate';
import { ModelError } from './model-error';
import { ScriptedModel, textTurn } from './testing';

const request: GenerateRequest = { messages: [{ role: 'user', content: 'hi' }] };
const instant = { sleep: async () => {}, random: () => 0.5 };

describe('generate', () => {
  it('returns the model result', async () => {
    const model = new ScriptedModel({ turns: [textTurn('hello')] });
    const result = await generate(model, request);
    expect(result.text).toBe('hello');
    expect(model.requests[0]).toEqual(request);
  });

  it('retries retryable errors through the retry policy', async () => {
    const model = new ScriptedModel({
      turns: [{ error: new ModelError({ code: 'overloaded', message: 'busy' }) }, textTurn('ok')],
    });
    const retries: number[] = [];
    const result = await generate(model, request, {
      retry: { ...instant, onRetry: (event) => retries.push(event.attempt) },
    });
    expect(result.text).toBe('ok');
    expect(retries).toEqual([1]);
  });

  it('does not retry with retry: false', async () => {
    const model = new ScriptedModel({
      turns: [{ error: new ModelError({ code: 'overloaded', message: 'busy' }) }, textTurn('ok')],
    });
    await expect(generate(model, request, { retry: false })).rejects.toMatchObject({ code: 'overloaded' });
    expect(model.requests).toHaveLength(1);
  });

  it('normalizes unknown errors into ModelError', async () => {
    const model = new ScriptedModel({ turns: [{ error: new TypeError('fetch failed') }, textTurn('ok')] });
    const result = await generate(model, request, { retry: instant });
    expect(result.text).toBe('ok');
    const failing = new ScriptedModel({ turns: [{ error: new Error('boom') }] });
    const error = await generate(failing, request).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid-response', isRetryable: false, provider: 'scripted' });
  });

  it('rejects an empty message list with bad-request', async () => {
    const model = new ScriptedModel({ turns: [textTurn('x')] });
    await expect(generate(model, { messages: [] })).rejects.toMatchObject({ code: 'bad-request' });
  });

  it('streams parts through onPart and resolves with the final result', async () => {
    const model = new ScriptedModel({ streamChunkSize: 2, turns: [textTurn('abcdef')] });
    const parts: StreamPart[] = [];
    const result = await generate(model, request, { onPart: (part) => parts.push(part) });
    expect(result.text).toBe('abcdef');
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'text-delta', 'text-delta', 'finish']);
  });

  it('retries a stream that fails before any part, but not after output began', async () => {
    const before = new ScriptedModel({
      turns: [{ error: new ModelError({ code: 'network', message: 'reset' }) }, textTurn('ok')],
    });
    const result = await generate(before, request, { onPart: () => {}, retry: instant });
    expect(result.text).toBe('ok');

    let calls = 0;
    const midStream: ChatModel = {
      specificationVersion: 'v1',
      provider: 'test',
      modelId: 'm',
      capabilities: before.capabilities,
      doGenerate: () => Promise.reject(new Error('unused')),
      async *doStream() {
        calls++;
        yield { type: 'text-delta', delta: 'partial' };
        throw new ModelError({ code: 'network', message: 'socket closed' });
      },
    };
    const error = await generate(midStream, request, { onPart: () => {}, retry: instant }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'network', isRetryable: false });
    expect(calls).toBe(1);
  });

  it('rejects with aborted when the signal aborts during the call', async () => {
    const model = new ScriptedModel({ latencyMs: 5_000, turns: [textTurn('late')] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const started = performance.now();
    await expect(generate(model, request, { signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(performance.now() - started).toBeLessThan(200);
  });
});
