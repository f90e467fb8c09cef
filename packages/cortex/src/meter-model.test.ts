import { type ChatModel, type GenerateResult, ModelError } from '@closedloop/model';
import { errorTurn, ScriptedModel } from '@closedloop/model/testing';
import { describe, expect, it } from 'vitest';
import { createModelMeter } from './meter-model';

const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

/** A model that ignores its abort signal and answers after `ms`. */
function stubbornModel(ms: number): ChatModel {
  return {
    specificationVersion: 'v1',
    provider: 'stubborn',
    modelId: 'stubborn-1',
    capabilities: new ScriptedModel().capabilities,
    doGenerate: () =>
      new Promise<GenerateResult>((resolve) =>
        setTimeout(
          () =>
            resolve({
              text: 'late',
              toolCalls: [],
              finishReason: 'stop',
              usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
            }),
          ms,
        ),
      ),
    async *doStream() {},
  };
}

describe('createModelMeter', () => {
  it('sums usage and cost per call and reports each call', async () => {
    const controller = new AbortController();
    const records: unknown[] = [];
    const meter = createModelMeter({
      signal: controller.signal,
      prices: { 'scripted-model': { inputPerMTok: 1_000_000, outputPerMTok: 0 } },
      onUsage: (record) => records.push(record),
    });
    const model = meter.wrap(
      new ScriptedModel({ turns: [{ text: 'a', usage: { inputTokens: 3, outputTokens: 2 } }] }),
      'planner',
    );
    await model.doGenerate(request);
    expect(meter.totals()).toEqual({
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
      costUsd: 3,
      calls: 1,
    });
    expect(records).toEqual([
      {
        purpose: 'planner',
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
        costUsd: 3,
        provider: 'scripted',
        modelId: 'scripted-model',
        finishReason: 'stop',
        responseModelId: 'scripted-model',
        responseId: 'scripted-1',
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('reports every failed call, generated or streamed, with its code and message', async () => {
    const controller = new AbortController();
    const failures: unknown[] = [];
    const meter = createModelMeter({
      signal: controller.signal,
      onFailure: (record) => failures.push(record),
    });
    const limited = new ModelError({
      code: 'rate-limited',
      message: 'scripted: slow down',
      provider: 'scripted',
    });
    const model = meter.wrap(
      new ScriptedModel({ turns: [errorTurn(limited), errorTurn(limited)] }),
      'step',
      's1',
    );
    await expect(model.doGenerate(request)).rejects.toBe(limited);
    await expect(
      (async () => {
        for await (const _part of model.doStream(request)) {
          // drain
        }
      })(),
    ).rejects.toBe(limited);
    const failure = {
      purpose: 'step',
      stepId: 's1',
      provider: 'scripted',
      modelId: 'scripted-model',
      durationMs: expect.any(Number),
      error: { code: 'rate-limited', message: 'scripted: slow down' },
    };
    expect(failures).toEqual([failure, failure]);
    expect(meter.totals().calls).toBe(0);
  });

  it('calls onExhausted once when the token budget is reached; starts count what was spent before', async () => {
    const controller = new AbortController();
    const messages: string[] = [];
    const meter = createModelMeter({
      signal: controller.signal,
      budget: { maxTokens: 10 },
      initial: { usage: { inputTokens: 4, outputTokens: 4, totalTokens: 8 }, costUsd: 0, calls: 2 },
      onExhausted: (message) => messages.push(message),
    });
    const model = meter.wrap(
      new ScriptedModel({
        turns: [
          { text: 'a', usage: { inputTokens: 1, outputTokens: 1 } },
          { text: 'b', usage: { inputTokens: 5, outputTokens: 5 } },
        ],
      }),
      'step',
      's1',
    );
    await model.doGenerate(request);
    expect(messages).toEqual(['token budget used up: 10 of 10 tokens']);
    await model.doGenerate(request);
    expect(messages).toHaveLength(1);
    expect(meter.exhausted).toBe(true);
  });

  it('refuses to start after abort, and rejects a running call within 100 ms even if the model ignores the signal', async () => {
    const controller = new AbortController();
    const meter = createModelMeter({ signal: controller.signal });
    const model = meter.wrap(stubbornModel(2_000), 'step');
    const running = model.doGenerate(request);
    setTimeout(() => controller.abort(), 10);
    const t0 = performance.now();
    await expect(running).rejects.toMatchObject({ code: 'aborted' });
    expect(performance.now() - t0).toBeLessThan(100);
    await expect(model.doGenerate(request)).rejects.toMatchObject({ code: 'aborted' });
    expect(meter.totals().calls).toBe(0);
  });

  it('meters streams from their finish part and stops them on abort', async () => {
    const controller = new AbortController();
    const meter = createModelMeter({ signal: controller.signal });
    const model = meter.wrap(
      new ScriptedModel({ turns: [{ text: 'streamed text', usage: { inputTokens: 2, outputTokens: 3 } }] }),
      'aggregate',
    );
    const parts: string[] = [];
    for await (const part of model.doStream(request)) parts.push(part.type);
    expect(parts.at(-1)).toBe('finish');
    expect(meter.totals().usage.totalTokens).toBe(5);
    controller.abort();
    const stream = model.doStream(request)[Symbol.asyncIterator]();
    await expect(stream.next()).rejects.toMatchObject({ code: 'aborted' });
  });
});
