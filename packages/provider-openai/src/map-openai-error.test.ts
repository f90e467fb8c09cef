import { inspect } from 'node:util';
import { ModelError } from '@closedloop/model';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  RateLimitError,
} from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyHttpError, mapOpenAIError, redact } from './map-openai-error';

const canary = 'canary-unit-Hk29Pq71Rz';
const context = { provider: 'openai', secrets: [canary] };

function apiError(
  status: number | undefined,
  body: object | undefined,
  headers: Record<string, string> = {},
) {
  return APIError.generate(status, body, undefined, new Headers(headers));
}

describe('classifyHttpError', () => {
  it.each([
    [401, undefined, 'auth'],
    [403, undefined, 'auth'],
    [408, undefined, 'timeout'],
    [409, undefined, 'overloaded'],
    [413, undefined, 'context-length'],
    [422, undefined, 'bad-request'],
    [404, undefined, 'bad-request'],
    [429, undefined, 'rate-limited'],
    [500, undefined, 'network'],
    [502, undefined, 'network'],
    [503, undefined, 'overloaded'],
    [504, undefined, 'timeout'],
    [529, undefined, 'overloaded'],
    [undefined, 'overloaded_error', 'overloaded'],
    [undefined, 'server_error', 'network'],
    [undefined, 'rate_limit_error', 'rate-limited'],
  ] as const)('%s %s → %s', (status, type, expected) => {
    expect(classifyHttpError({ status, type })).toBe(expected);
  });
  it('detects context-length 400s by code or message', () => {
    expect(classifyHttpError({ status: 400, code: 'context_length_exceeded' })).toBe('context-length');
    expect(
      classifyHttpError({ status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' }),
    ).toBe('context-length');
    expect(classifyHttpError({ status: 400, message: 'temperature out of range' })).toBe('bad-request');
  });
});

describe('mapOpenAIError', () => {
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
    for (const rendering of [
      error.message,
      JSON.stringify(error),
      String(error.stack),
      inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    ]) {
      expect(rendering).not.toContain(canary);
    }
    expect(error.message).toContain('[redacted]');
  });

  it('redacts key-shaped strings that are not the configured key', () => {
    expect(redact('key sk-proj-abcdefghijklmnop and Bearer abcdefghijklmnop')).toBe(
      'key [redacted] and Bearer [redacted]',
    );
  });
});
