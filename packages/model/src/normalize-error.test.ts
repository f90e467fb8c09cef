import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error';
import { codeForStatus, normalizeError, parseRetryAfter } from './normalize-error';

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
  it('maps statuses to codes', () => {
    expect(
      [400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529].map((status) =>
        codeForStatus(status),
      ),
    ).toEqual([
      'bad-request',
      'auth',
      'auth',
      'bad-request',
      'timeout',
      'context-length',
      'bad-request',
      'rate-limited',
      'overloaded',
      'overloaded',
      'overloaded',
      'timeout',
      'overloaded',
    ]);
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
