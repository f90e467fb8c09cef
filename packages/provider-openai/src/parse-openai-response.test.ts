import { describe, expect, it } from 'vitest';
import { confidenceFromLogprobs, mapOpenAIFinishReason, mapOpenAIUsage } from './parse-openai-response';

describe('mapOpenAIFinishReason', () => {
  it.each([
    ['stop', {}, 'stop'],
    ['stop', { hasToolCalls: true }, 'tool-calls'],
    ['stop', { refused: true }, 'refusal'],
    ['tool_calls', {}, 'tool-calls'],
    ['function_call', {}, 'tool-calls'],
    ['length', {}, 'length'],
    ['content_filter', {}, 'content-filter'],
    ['brand_new_reason', {}, 'unknown'],
    [null, {}, 'unknown'],
    [null, { hasToolCalls: true }, 'tool-calls'],
    ['', {}, 'unknown'],
    ['eos_token', {}, 'stop'],
    ['end_turn', { hasToolCalls: true }, 'tool-calls'],
    ['STOP', {}, 'stop'],
    ['MAX_TOKENS', {}, 'length'],
    ['max_tokens', {}, 'length'],
    ['tool_use', {}, 'tool-calls'],
    ['SAFETY', {}, 'content-filter'],
  ] as const)('%s %o → %s', (raw, options, expected) => {
    expect(mapOpenAIFinishReason(raw, options)).toBe(expected);
  });
});

describe('mapOpenAIUsage', () => {
  it('keeps reasoning and cached tokens when reported', () => {
    expect(
      mapOpenAIUsage({
        prompt_tokens: 30,
        completion_tokens: 210,
        total_tokens: 240,
        completion_tokens_details: { reasoning_tokens: 192 },
        prompt_tokens_details: { cached_tokens: 16 },
      }),
    ).toEqual({
      inputTokens: 30,
      outputTokens: 210,
      totalTokens: 240,
      reasoningTokens: 192,
      cachedInputTokens: 16,
    });
  });
  it('is all zeros when a server sends no usage', () => {
    expect(mapOpenAIUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});

describe('confidenceFromLogprobs', () => {
  it('is exp(mean logprob)', () => {
    expect(confidenceFromLogprobs([{ logprob: -0.01 }, { logprob: -0.2 }])).toBeCloseTo(Math.exp(-0.105), 12);
    expect(confidenceFromLogprobs([{ logprob: 0 }])).toBe(1);
  });
  it('is undefined without tokens and clamps to [0, 1]', () => {
    expect(confidenceFromLogprobs([])).toBeUndefined();
    expect(confidenceFromLogprobs(null)).toBeUndefined();
    expect(confidenceFromLogprobs([{ logprob: -1e6 }])).toBe(0);
  });
});
