import { inspect } from 'node:util';
import { APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { classifyAnthropicError, mapAnthropicError } from './map-anthropic-error';

const canary = 'canary-unit-Yw62Ld09Tx';
const context = { provider: 'anthropic', secrets: [canary] };

function apiError(
  status: number | undefined,
  body: object | undefined,
  headers: Record<string, string> = {},
) {
  return APIError.generate(status, body, undefined, new Headers(headers));
}

describe('classifyAnthropicError', () => {
  it.each([
    [529, undefined, 'overloaded'],
    [503, undefined, 'overloaded'],
    [500, undefined, 'network'],
    [502, undefined, 'network'],
    [504, undefined, 'timeout'],
    [429, undefined, 'rate-limited'],
    [413, undefined, 'context-length'],
    [401, undefined, 'auth'],
    [403, undefined, 'auth'],
    [404, undefined, 'bad-request'],
    [undefined, 'overloaded_error', 'overloaded'],
    [undefined, 'api_error', 'network'],
    [undefined, 'rate_limit_error', 'rate-limited'],
    [undefined, 'invalid_request_error', 'bad-request'],
  ] as const)('%s %s → %s', (status, type, expected) => {
    expect(classifyAnthropicError({ status, type })).toBe(expected);
  });
  it('recognises context-length 400s by message', () => {
    expect(
      classifyAnthropicError({ status: 400, message: 'prompt is too long: 208310 tokens > 200000 maximum' }),
    ).toBe('context-length');
    expect(
      classifyAnthropicError({
        status: 400,
        message: 'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000',
      }),
    ).toBe('context-length');
  });
});

describe('mapAnthropicError', () => {
  it('529 overloaded_error is overloaded and retryable, with the request id', () => {
    const error = mapAnthropicError(
      apiError(
        529,
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        { 'request-id': 'req_9' },
      ),
      context,
    );
    expect(error).toMatchObject({ code: 'overloaded', status: 529, isRetryable: true, requestId: 'req_9' });
  });

  it('a spend-limit 429 is not retryable', () => {
    const error = mapAnthropicError(
      apiError(429, {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'monthly spend limit',
          details: { error_code: 'enforced_spend_limit_reached' },
        },
      }),
      context,
    );
    expect(error.code).toBe('rate-limited');
    expect(error.isRetryable).toBe(false);
    expect(error.message).toContain('retrying will not help');
  });

  it('maps transport errors and aborted signals', () => {
    expect(mapAnthropicError(new APIUserAbortError(), context).code).toBe('aborted');
    expect(mapAnthropicError(new APIConnectionTimeoutError(), context).code).toBe('timeout');
    expect(mapAnthropicError(new TypeError('terminated'), context).code).toBe('network');
    const controller = new AbortController();
    controller.abort();
    expect(mapAnthropicError(apiError(529, {}), { ...context, signal: controller.signal }).code).toBe(
      'aborted',
    );
  });

  it('never carries the API key', () => {
    const error = mapAnthropicError(
      apiError(401, {
        type: 'error',
        error: { type: 'authentication_error', message: `invalid x-api-key: ${canary}` },
      }),
      context,
    );
    expect(error.code).toBe('auth');
    for (const rendering of [
      error.message,
      JSON.stringify(error),
      String(error.stack),
      inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    ]) {
      expect(rendering).not.toContain(canary);
    }
  });
});
