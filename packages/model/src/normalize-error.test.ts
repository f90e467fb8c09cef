import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error';
import { classifyHttpError, codeForStatus, normalizeError, parseRetryAfter } from './normalize-error';

/** A port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('normalizeError', () => {
  it('returns a ModelError unchanged', () => {
    const error = new ModelError({ code: 'auth', message: 'no' });
    expect(normalizeError(error)).toBe(error);
  });

  it('maps a real fetch AbortError to aborted', async () => {
    const caught = await fetch('http://127.0.0.1:9/', { signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect(normalizeError(caught, { provider: 'openai' })).toMatchObject({
      code: 'aborted',
      provider: 'openai',
      isRetryable: false,
    });
  });

  it('maps a real AbortSignal.timeout to timeout', async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(normalizeError(signal.reason)).toMatchObject({ code: 'timeout', isRetryable: true });
  });

  it('maps a real connection-refused fetch failure to a retryable network error', async () => {
    const port = await closedPort();
    const caught = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    const error = normalizeError(caught, { provider: 'openai-compatible' });
    expect(error).toMatchObject({ code: 'network', isRetryable: true, provider: 'openai-compatible' });
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.cause).toBe(caught);
  });

  it('maps socket error codes', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(normalizeError(reset).code).toBe('network');
    const timedOut = Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
    expect(normalizeError(timedOut).code).toBe('timeout');
  });

  it('maps any error to aborted once the signal aborted', () => {
    expect(normalizeError(new Error('whatever'), { signal: AbortSignal.abort() }).code).toBe('aborted');
  });

  it('maps HTTP-status-shaped errors (SDK APIError) with Retry-After and request id', () => {
    const apiError = Object.assign(new Error('Rate limit reached'), {
      status: 429,
      headers: new Headers({ 'retry-after': '2', 'x-request-id': 'req_123' }),
    });
    expect(normalizeError(apiError, { provider: 'openai' })).toMatchObject({
      code: 'rate-limited',
      status: 429,
      retryAfterMs: 2000,
      requestId: 'req_123',
      isRetryable: true,
    });
    const overloaded = Object.assign(new Error('Overloaded'), {
      status: 529,
      headers: { 'retry-after-ms': '150' },
    });
    expect(normalizeError(overloaded)).toMatchObject({ code: 'overloaded', retryAfterMs: 150 });
    expect(normalizeError(Object.assign(new Error('nope'), { status: 401 })).code).toBe('auth');
    const tooLong = Object.assign(new Error('400 prompt is too long: 210000 tokens > 200000 maximum'), {
      status: 400,
    });
    expect(normalizeError(tooLong)).toMatchObject({ code: 'context-length', isRetryable: false });
  });

  it('falls back to a non-retryable invalid-response for unknown errors, with secrets redacted', () => {
    const error = normalizeError(new Error('bad key sk-proj-abcdefghijklmnop1234'), { provider: 'openai' });
    expect(error.code).toBe('invalid-response');
    expect(error.isRetryable).toBe(false);
    expect(error.message).not.toContain('abcdefghijklmnop');
    expect(error.message).toContain('[redacted]');
    expect(normalizeError('string failure').message).toContain('string failure');
  });
});

describe('codeForStatus', () => {
  it('maps statuses to codes: 500/502 network (retry soon), 503/529/409 overloaded (back off)', () => {
    expect(
      [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 520, 529].map((status) =>
        codeForStatus(status),
      ),
    ).toEqual([
      'bad-request',
      'auth',
      'auth',
      'bad-request',
      'timeout',
      'overloaded',
      'context-length',
      'bad-request',
      'rate-limited',
      'network',
      'network',
      'overloaded',
      'timeout',
      'network',
      'overloaded',
    ]);
  });
});

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
    [undefined, 'api_error', 'network'],
    [undefined, 'rate_limit_error', 'rate-limited'],
    [undefined, 'tokens', 'rate-limited'],
    [undefined, 'authentication_error', 'auth'],
    [undefined, 'permission_error', 'auth'],
    [undefined, 'invalid_request_error', 'bad-request'],
    [undefined, 'not_found_error', 'bad-request'],
    [undefined, 'timeout_error', 'timeout'],
    [undefined, undefined, 'network'],
  ] as const)('%s %s → %s', (status, type, expected) => {
    expect(classifyHttpError({ status, type })).toBe(expected);
  });

  it('detects context-length 4xx errors by code or message, but not 5xx', () => {
    expect(classifyHttpError({ status: 400, code: 'context_length_exceeded' })).toBe('context-length');
    expect(classifyHttpError({ status: 400, code: 'string_above_max_length' })).toBe('context-length');
    expect(
      classifyHttpError({ status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' }),
    ).toBe('context-length');
    expect(
      classifyHttpError({
        status: 400,
        message: 'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000',
      }),
    ).toBe('context-length');
    expect(
      classifyHttpError({
        status: 400,
        message:
          "This model's maximum context length is 128000 tokens. Please reduce the length of the messages.",
      }),
    ).toBe('context-length');
    expect(classifyHttpError({ status: 400, message: 'temperature out of range' })).toBe('bad-request');
    expect(classifyHttpError({ status: 500, message: 'context window crashed' })).toBe('network');
    expect(classifyHttpError({ type: 'invalid_request_error', message: 'prompt is too long' })).toBe(
      'context-length',
    );
    expect(classifyHttpError({ code: 'rate_limit_exceeded' })).toBe('rate-limited');
    // llama.cpp's server: the type, or the message alone.
    expect(
      classifyHttpError({
        status: 400,
        type: 'exceed_context_size_error',
        message: 'the request exceeds the available context size, try increasing it',
      }),
    ).toBe('context-length');
    expect(classifyHttpError({ code: 400, message: 'the request exceeds the available context size' })).toBe(
      'context-length',
    );
  });

  it('lets a code that says what went wrong win over a type that only says "error" (gateways)', () => {
    expect(classifyHttpError({ type: 'new_api_error', code: 'model_not_found' })).toBe('bad-request');
    expect(classifyHttpError({ type: 'one_api_error', code: 'rate_limit_exceeded' })).toBe('rate-limited');
    expect(classifyHttpError({ type: 'api_error', code: 'internal' })).toBe('network');
    expect(classifyHttpError({ type: 'new_api_error' })).toBe('network');
    expect(classifyHttpError({ type: 'overloaded_error', code: 'invalid' })).toBe('overloaded');
  });

  it('classifies stream error events (no HTTP status) by numeric code, code, type and message', () => {
    // vLLM / Gemini-style: an HTTP-like status in the body's code.
    expect(classifyHttpError({ code: 400, message: 'tools[0].function.parameters is invalid' })).toBe(
      'bad-request',
    );
    expect(classifyHttpError({ code: '400', type: 'BadRequestError', message: 'bad' })).toBe('bad-request');
    expect(classifyHttpError({ code: 429, message: 'slow down' })).toBe('rate-limited');
    expect(classifyHttpError({ code: 503 })).toBe('overloaded');
    expect(classifyHttpError({ code: 500, message: 'boom' })).toBe('network');
    // Context length, recognised without any HTTP status.
    expect(classifyHttpError({ code: 'CONTEXT_LENGTH_EXCEEDED', message: 'too long' })).toBe(
      'context-length',
    );
    expect(classifyHttpError({ code: 'context_length_exceeded' })).toBe('context-length');
    expect(classifyHttpError({ type: 'ContextWindowExceededError' })).toBe('context-length');
    expect(
      classifyHttpError({ code: 400, message: "This model's maximum context length is 65536 tokens." }),
    ).toBe('context-length');
    expect(
      classifyHttpError({
        message: 'The input token count (1200000) exceeds the maximum number of tokens allowed',
      }),
    ).toBe('context-length');
    // Google-style status words.
    expect(classifyHttpError({ type: 'INVALID_ARGUMENT' })).toBe('bad-request');
    expect(classifyHttpError({ type: 'RESOURCE_EXHAUSTED' })).toBe('rate-limited');
    expect(classifyHttpError({ type: 'UNAVAILABLE' })).toBe('overloaded');
    expect(classifyHttpError({ type: 'UNAUTHENTICATED' })).toBe('auth');
    expect(classifyHttpError({ type: 'DEADLINE_EXCEEDED' })).toBe('timeout');
    expect(classifyHttpError({ type: 'INTERNAL' })).toBe('network');
    expect(classifyHttpError({ code: 'invalid_prompt' })).toBe('bad-request');
    expect(classifyHttpError({ code: 'insufficient_quota' })).toBe('rate-limited');
  });
});

describe('parseRetryAfter', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(parseRetryAfter(new Headers({ 'Retry-After': '1.5' }))).toBe(1500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': 'garbage' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-1' })).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('normalizeError with SDK-shaped errors', () => {
  it('follows the cause chain of connection errors (OpenAI/Anthropic APIConnectionError shape)', () => {
    class APIConnectionError extends Error {
      override name = 'APIConnectionError';
    }
    const wrapped = new APIConnectionError('Connection error.', { cause: new TypeError('fetch failed') });
    expect(normalizeError(wrapped, { provider: 'openai' })).toMatchObject({
      code: 'network',
      isRetryable: true,
    });
    class APIConnectionTimeoutError extends Error {
      override name = 'APIConnectionTimeoutError';
    }
    expect(normalizeError(new APIConnectionTimeoutError('Request timed out.')).code).toBe('timeout');
    class APIUserAbortError extends Error {
      override name = 'APIUserAbortError';
    }
    expect(normalizeError(new APIUserAbortError('Request was aborted.')).code).toBe('aborted');
    const deep = new Error('outer', {
      cause: new Error('middle', { cause: Object.assign(new Error('x'), { code: 'EPIPE' }) }),
    });
    expect(normalizeError(deep).code).toBe('network');
  });
});
