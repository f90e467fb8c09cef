import { describe, expect, it } from 'vitest';
import type { StreamPart } from './chat-model';
import { ScriptedModel } from './testing';
import { addUsage, emptyUsage } from './usage';
import { computeCost, createUsageTracker, findPrice, splitInputTokens } from './usage-tracker';

const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
});

describe('addUsage', () => {
  it('sums counts and keeps optional counts when either side has them', () => {
    expect(addUsage(usage(1, 2), usage(3, 4))).toEqual(usage(4, 6));
    expect(
      addUsage({ ...usage(1, 2), reasoningTokens: 5 }, { ...usage(1, 1), cachedInputTokens: 1 }),
    ).toEqual({
      ...usage(2, 3),
      reasoningTokens: 5,
      cachedInputTokens: 1,
    });
    expect(addUsage(emptyUsage(), usage(0, 0))).toEqual(emptyUsage());
  });
});

describe('prices', () => {
  const prices = {
    'gpt-4.1*': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
    'gpt-4.1-mini*': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
    'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  };

  it('prefers an exact id, then the longest glob', () => {
    expect(findPrice(prices, 'claude-sonnet-4-5')?.inputPerMTok).toBe(3);
    expect(findPrice(prices, 'gpt-4.1-mini-2025-04-14')?.inputPerMTok).toBe(0.4);
    expect(findPrice(prices, 'gpt-4.1')?.inputPerMTok).toBe(2);
    expect(findPrice(prices, 'claude-sonnet-4-5-20250929')).toBeUndefined();
  });

  it('bills cached input at the cached rate', () => {
    const cost = computeCost(
      { ...usage(1_000_000, 500_000), cachedInputTokens: 400_000 },
      prices['gpt-4.1*'],
    );
    expect(cost).toBeCloseTo(600_000 * 2e-6 + 400_000 * 0.5e-6 + 500_000 * 8e-6, 10);
  });

  it('bills cache reads and cache writes at their own rates', () => {
    const price = {
      inputPerMTok: 3,
      outputPerMTok: 15,
      cachedInputPerMTok: 0.3,
      cacheWriteInputPerMTok: 3.75,
    };
    const value = { ...usage(1_000_000, 0), cachedInputTokens: 600_000, cacheWriteInputTokens: 300_000 };
    expect(splitInputTokens(value)).toEqual({ fullRate: 100_000, cacheRead: 600_000, cacheWrite: 300_000 });
    expect(computeCost(value, price)).toBeCloseTo(100_000 * 3e-6 + 600_000 * 0.3e-6 + 300_000 * 3.75e-6, 10);
    // Without a cache-write price, writes cost the input price.
    expect(computeCost(value, { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 })).toBeCloseTo(
      400_000 * 3e-6 + 600_000 * 0.3e-6,
      10,
    );
  });
});

describe('createUsageTracker', () => {
  it('sums per call, per run and per model with costs', () => {
    const tracker = createUsageTracker({
      prices: { 'gpt-4.1*': { inputPerMTok: 2, outputPerMTok: 8 } },
      now: () => 123,
    });
    const first = tracker.record({
      modelId: 'gpt-4.1',
      usage: usage(1000, 500),
      runId: 'r1',
      label: 'planner',
    });
    expect(first).toMatchObject({ costUsd: 0.006, at: 123, label: 'planner' });
    tracker.record({ modelId: 'gpt-4.1', usage: usage(2000, 0), runId: 'r2' });
    tracker.record({ modelId: 'local-llama', usage: usage(10, 10), runId: 'r1' });

    expect(tracker.forRun('r1')).toEqual({
      calls: 2,
      usage: usage(1010, 510),
      costUsd: 0.006,
      unpricedModels: ['local-llama'],
    });
    const total = tracker.total();
    expect(total.calls).toBe(3);
    expect(total.costUsd).toBeCloseTo(0.01, 10);
    expect(Object.keys(tracker.byModel())).toEqual(['gpt-4.1', 'local-llama']);
    expect(tracker.byModel()['gpt-4.1']?.usage).toEqual(usage(3000, 500));
    expect(tracker.costOf('nothing', usage(1, 1))).toBeUndefined();
    tracker.reset();
    expect(tracker.total().calls).toBe(0);
  });

  it('wraps a model and records generate and stream calls', async () => {
    const tracker = createUsageTracker();
    const scripted = new ScriptedModel({
      turns: [
        { text: 'a', usage: { inputTokens: 10, outputTokens: 2 } },
        { text: 'b', usage: { inputTokens: 5, outputTokens: 1 } },
      ],
    });
    const model = tracker.wrap(scripted, { runId: 'run-9', label: 'executor' });
    expect(model.capabilities).toBe(scripted.capabilities);
    await model.doGenerate({ messages: [{ role: 'user', content: 'x' }] });
    const parts: StreamPart[] = [];
    for await (const part of model.doStream({ messages: [{ role: 'user', content: 'y' }] })) parts.push(part);
    expect(parts.at(-1)?.type).toBe('finish');
    expect(tracker.forRun('run-9')).toMatchObject({ calls: 2, usage: usage(15, 3) });
    expect(tracker.records.map((r) => [r.provider, r.label])).toEqual([
      ['scripted', 'executor'],
      ['scripted', 'executor'],
    ]);
  });
});
