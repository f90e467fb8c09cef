import { ModelError } from '@closedloop/model';
import { expectNoSecretLeak } from '@closedloop/model/conformance';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  RateLimitError,
} from 'openai';
import { describe, expect, it } from 'vitest';
import { mapOpenAIError } from './map-openai-error';

const canary = 'canary-unit-Hk29Pq71Rz';
const context = { provider: 'openai', secrets: [canary] };

function apiError(
  status: number | undefined,
  body: object | undefined,
  headers: Record<string, string> = {},
) {
  return APIError.generate(status, body, undefined, new Headers(headers));
}

describe('mapOpenAIError', () => {
  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [408, 'timeout'],
    [409, 'overloaded'],
    [413, 'context-length'],
    [422, 'bad-request'],
    [404, 'bad-request'],
    [429, 'rate-limited'],
    [500, 'network'],
    [502, 'network'],
    [503, 'overloaded'],
    [504, 'timeout'],
    [529, 'overloaded'],
  ] as const)('classifies the SDK error for HTTP %s as %s', (status, expected) => {
    const error = mapOpenAIError(apiError(status, { error: { message: 'x' } }), context);
    expect(error).toMatchObject({ code: expected, status });
  });

  it('classifies an error inside a 200 stream by its type, and context-length 400s by code', () => {
    // What the SDK throws for `{"error": …}` inside a stream: an APIError without a status.
    const inStream = (type: string) =>
      mapOpenAIError(new APIError(undefined, { type, message: 'x' }, undefined, new Headers()), context);
    expect(inStream('server_error')).toMatchObject({ code: 'network', status: undefined });
    expect(inStream('server_error').message).toContain('error event in stream server_error');
    expect(inStream('rate_limit_error').code).toBe('rate-limited');
    expect(inStream('invalid_request_error').code).toBe('bad-request');
    expect(
      mapOpenAIError(
        apiError(400, { error: { message: 'too long', code: 'context_length_exceeded' } }),
        context,
      ).code,
    ).toBe('context-length');
  });

  it('keeps status, request id and retry-after of a 429', () => {
    const error = mapOpenAIError(
      apiError(
        429,
        { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } },
        {
          'x-request-id': 'req_1',
          'retry-after': '3',
        },
      ),
      context,
    );
    expect(error).toMatchObject({
      code: 'rate-limited',
      status: 429,
      requestId: 'req_1',
      retryAfterMs: 3000,
    });
    expect(error.isRetryable).toBe(true);
    expect(error).toBeInstanceOf(ModelError);
  });

  it('does not retry an exhausted quota', () => {
    const error = mapOpenAIError(
      new RateLimitError(
        429,
        { message: 'quota', type: 'insufficient_quota', code: 'insufficient_quota' },
        undefined,
        new Headers(),
      ),
      context,
    );
    expect(error.code).toBe('rate-limited');
    expect(error.isRetryable).toBe(false);
    // Not the rate limit's "retry later" advice: retrying cannot help.
    expect(error.message).toMatch(/quota is used up: retrying cannot help/);
    expect(error.message).not.toMatch(/retry later/);
  });

  it('maps transport errors', () => {
    expect(mapOpenAIError(new APIUserAbortError(), context).code).toBe('aborted');
    expect(mapOpenAIError(new APIConnectionTimeoutError(), context).code).toBe('timeout');
    const reset = mapOpenAIError(
      new APIConnectionError({
        cause: Object.assign(new TypeError('fetch failed'), {
          cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
        }),
      }),
      context,
    );
    expect(reset.code).toBe('network');
    expect(reset.message).toContain('UND_ERR_SOCKET: other side closed');
    expect(mapOpenAIError(new SyntaxError('Unexpected end of JSON input'), context).code).toBe(
      'invalid-response',
    );
  });

  it('turns any failure into aborted once the caller aborted', () => {
    const controller = new AbortController();
    controller.abort();
    const error = mapOpenAIError(apiError(500, {}), { ...context, signal: controller.signal });
    expect(error.code).toBe('aborted');
    expect(error.isRetryable).toBe(false);
  });

  it('never carries the API key: message, JSON, inspect and cause are redacted', () => {
    const source = apiError(
      401,
      {
        error: {
          message: `Incorrect API key provided: ${canary}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
      { 'x-echo': `Bearer ${canary}` },
    );
    expect(source.message).toContain(canary);
    const error = mapOpenAIError(source, context);
    expect(error.code).toBe('auth');
    expectNoSecretLeak(error, canary);
    expect(error.message).toContain('[redacted]');
  });

  it('redacts key-shaped strings that are not the configured key', () => {
    const error = mapOpenAIError(
      apiError(400, { error: { message: 'key sk-proj-abcdefghijklmnop and Bearer abcdefghijklmnop' } }),
      { provider: 'openai' },
    );
    expect(error.message).toContain('key [redacted] and Bearer [redacted]');
  });
});
