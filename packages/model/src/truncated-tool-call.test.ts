import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error';
import { isCompleteToolArguments, truncatedToolCallError } from './truncated-tool-call';

describe('isCompleteToolArguments', () => {
  it('is true for complete JSON only; nothing at all is not complete', () => {
    expect(isCompleteToolArguments('{"path":"a.txt"}')).toBe(true);
    expect(isCompleteToolArguments('{}')).toBe(true);
    expect(isCompleteToolArguments('{"path":"a.txt","content":"hel')).toBe(false);
    expect(isCompleteToolArguments('{"n": 12')).toBe(false);
    expect(isCompleteToolArguments('')).toBe(false);
    expect(isCompleteToolArguments('  ')).toBe(false);
  });
});

describe('truncatedToolCallError', () => {
  it('is a non-retryable typed error naming the call, the finish reason and the remedy', () => {
    const error = truncatedToolCallError({
      provider: 'openai',
      call: { id: 'call_1', name: 'write_file', rawArguments: '{"path":"a' },
      rawFinishReason: 'length',
      requestId: 'req_1',
    });
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error.code).toBe('invalid-response');
    expect(error.isRetryable).toBe(false);
    expect(error.rawOutput).toBe('{"path":"a');
    expect(error.requestId).toBe('req_1');
    expect(error.message).toBe(
      'openai: the answer stopped (finish reason "length") inside tool call "write_file" (call_1) after 10 characters of arguments; the call is incomplete and was not returned, so nothing ran (request req_1). Raise maxOutputTokens or ask for smaller tool inputs.',
    );
    const context = truncatedToolCallError({
      provider: 'anthropic',
      call: { id: undefined, name: 'f', rawArguments: '' },
      rawFinishReason: 'model_context_window_exceeded',
      code: 'context-length',
    });
    expect(context.code).toBe('context-length');
    expect(context.isRetryable).toBe(false);
    expect(context.message).toMatch(/Shorten the conversation/);
  });
});
