import { describe, expect, it } from 'vitest';
import { emptyAnswerError } from './empty-answer';
import { ModelError } from './model-error';

describe('emptyAnswerError', () => {
  const base = { provider: 'p', text: '', toolCalls: 0 };

  it('is a retryable invalid-response for nothing, finished for a reason that says nothing', () => {
    for (const finishReason of ['other', 'unknown'] as const) {
      const error = emptyAnswerError({ ...base, finishReason, rawFinishReason: 'load', requestId: 'req_1' });
      expect(ModelError.isInstance(error)).toBe(true);
      expect([error?.code, error?.isRetryable, error?.requestId]).toEqual([
        'invalid-response',
        true,
        'req_1',
      ]);
      expect(error?.message).toMatch(
        /finish reason "load"\) without any text or tool call \(request req_1\)/,
      );
    }
    expect(emptyAnswerError({ ...base, finishReason: 'unknown', rawFinishReason: null })?.message).toMatch(
      /no finish reason/,
    );
  });

  it('is undefined for text, a tool call, or a truncation signal the caller sees', () => {
    expect(
      emptyAnswerError({ ...base, text: 'x', finishReason: 'other', rawFinishReason: 'x' }),
    ).toBeUndefined();
    expect(
      emptyAnswerError({ ...base, toolCalls: 1, finishReason: 'unknown', rawFinishReason: 'x' }),
    ).toBeUndefined();
    for (const finishReason of ['length', 'content-filter', 'refusal', 'stop', 'tool-calls'] as const)
      expect(emptyAnswerError({ ...base, finishReason, rawFinishReason: 'x' })).toBeUndefined();
  });
});
