import { describe, expect, it } from 'vitest';
import { mapAnthropicStopReason, mapAnthropicUsage, mergeAnthropicUsage } from './parse-anthropic-response';

describe('mapAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool-calls'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
    ['brand_new_reason', 'unknown'],
    [null, 'unknown'],
  ] as const)('%s → %s', (raw, expected) => {
    expect(mapAnthropicStopReason(raw)).toBe(expected);
  });
});

describe('mapAnthropicUsage', () => {
  it('counts cache writes and reads as input tokens and reports reads and writes separately', () => {
    expect(
      mapAnthropicUsage({
        input_tokens: 10,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 1000,
        output_tokens: 50,
        output_tokens_details: { thinking_tokens: 20 },
      }),
    ).toEqual({
      inputTokens: 1110,
      outputTokens: 50,
      totalTokens: 1160,
      cachedInputTokens: 1000,
      cacheWriteInputTokens: 100,
      reasoningTokens: 20,
    });
  });
  it('is zeros without usage', () => {
    expect(mapAnthropicUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
  it('merges message_delta counts over message_start, ignoring nulls', () => {
    expect(
      mergeAnthropicUsage(
        { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 4 },
        { output_tokens: 40, input_tokens: null, cache_read_input_tokens: null },
      ),
    ).toEqual({ input_tokens: 12, output_tokens: 40, cache_read_input_tokens: 4 });
  });
});
