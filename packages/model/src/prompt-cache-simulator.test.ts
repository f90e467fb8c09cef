import { describe, expect, it } from 'vitest';
import { createPromptCacheSimulator, estimatePromptTokens } from './prompt-cache-simulator';

const big = (label: string) => `${label}:${'x'.repeat(4 * 1200)}`; // ≈ 1200 tokens

describe('createPromptCacheSimulator', () => {
  it('breakpoints (Anthropic): writes at breakpoints, reads the longest cached prefix next time', () => {
    const sim = createPromptCacheSimulator({ mode: 'breakpoints', minimumTokens: 1024 });
    const system = { text: big('system'), breakpoint: true };
    const first = sim.account([system, { text: 'step 1', breakpoint: true }]);
    expect(first.cacheReadTokens).toBe(0);
    expect(first.cacheWriteTokens).toBe(first.totalTokens);
    const second = sim.account([system, { text: 'step 1' }, { text: 'step 2', breakpoint: true }]);
    expect(second.cacheReadTokens).toBe(first.totalTokens);
    expect(second.cacheWriteTokens).toBe(estimatePromptTokens('step 2'));
    expect(second.uncachedTokens).toBe(0);
    // No breakpoints: nothing is cached or read.
    const none = sim.account([{ text: big('system') }, { text: 'step 1' }]);
    expect(none).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('breakpoints: prefixes below the minimum are not cached; a change early in the prompt misses', () => {
    const sim = createPromptCacheSimulator({ mode: 'breakpoints', minimumTokens: 1024 });
    expect(sim.account([{ text: 'short', breakpoint: true }]).cacheWriteTokens).toBe(0);
    sim.account([{ text: big('a'), breakpoint: true }]);
    expect(sim.account([{ text: big('b'), breakpoint: true }]).cacheReadTokens).toBe(0);
  });

  it('automatic (OpenAI): caches every long prompt, reads in 128-token steps, per route', () => {
    const sim = createPromptCacheSimulator({ mode: 'automatic', minimumTokens: 1024, granularity: 128 });
    const blocks = [{ text: big('system') }, { text: 'user 1' }];
    expect(sim.account(blocks, 'k').cacheReadTokens).toBe(0);
    const second = sim.account([...blocks, { text: 'assistant' }, { text: 'user 2' }], 'k');
    const prefix = estimatePromptTokens(big('system')) + estimatePromptTokens('user 1');
    expect(second.cacheReadTokens).toBe(Math.floor(prefix / 128) * 128);
    expect(second.cacheWriteTokens).toBe(0);
    expect(sim.account(blocks, 'other-route').cacheReadTokens).toBe(0);
  });
});
