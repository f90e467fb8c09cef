import { APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { expectNoSecretLeak } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { mapAnthropicError } from './map-anthropic-error';

const canary = 'canary-unit-Yw62Ld09Tx';
const context = { provider: 'anthropic', secrets: [canary] };

function apiError(
  status: number | undefined,
  body: object | undefined,
  headers: Record<string, string> = {},
) {
  return APIError.generate(status, body, undefined, new Headers(headers));
}

describe('mapAnthropicError', () => {
  it.each([
    [529, 'overloaded'],
    [503, 'overloaded'],
    [500, 'network'],
    [502, 'network'],
    [504, 'timeout'],
    [429, 'rate-limited'],
    [413, 'context-length'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'bad-request'],
  ] as const)('classifies the SDK error for HTTP %s as %s', (status, expected) => {
    const error = mapAnthropicError(apiError(status, { type: 'error', error: { message: 'x' } }), context);
    expect(error).toMatchObject({ code: expected, status });
  });

  it.each([
    ['overloaded_error', 'overloaded'],
    ['api_error', 'network'],
    ['rate_limit_error', 'rate-limited'],
    ['invalid_request_error', 'bad-request'],
  ] as const)('classifies an error event of type %s in a 200 stream as %s', (type, expected) => {
    // What the SDK throws for an `event: error` in a stream: an APIError without a status.
    const event = new APIError(
      undefined,
      { type: 'error', error: { type, message: 'x' } },
      undefined,
      new Headers(),
    );
    const error = mapAnthropicError(event, context);
    expect(error).toMatchObject({ code: expected, status: undefined });
    expect(error.message).toContain(`error event in stream ${type}`);
  });

  it('recognises context-length 400s by message', () => {
    const tooLong = (message: string) =>
      mapAnthropicError(
        apiError(400, { type: 'error', error: { type: 'invalid_request_error', message } }),
        context,
      ).code;
    expect(tooLong('prompt is too long: 208310 tokens > 200000 maximum')).toBe('context-length');
    expect(tooLong('input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000')).toBe(
      'context-length',
    );
    expect(tooLong('temperature: range')).toBe('bad-request');
  });
});

describe('mapAnthropicError details', () => {
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
    expectNoSecretLeak(error, canary);
  });
});
