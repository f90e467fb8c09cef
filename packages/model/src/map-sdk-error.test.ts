import { describe, expect, it } from 'vitest';
import { type MapSdkErrorOptions, mapSdkError } from './map-sdk-error';
import { ModelError } from './model-error';
import { expectNoSecretLeak } from './run-conformance-suite';

// A stand-in for a Stainless-generated SDK's error hierarchy (openai, @anthropic-ai/sdk).
class FakeSdkError extends Error {}
class FakeAPIError extends FakeSdkError {
  constructor(
    readonly status: number | undefined,
    readonly error: object | undefined,
    message: string,
    readonly headers: Headers | undefined,
    readonly requestID: string | null = headers?.get('x-request-id') ?? null,
  ) {
    super(status === undefined ? message : `${status} ${message}`);
  }
}
class FakeUserAbortError extends FakeAPIError {
  constructor() {
    super(undefined, undefined, 'Request was aborted.', undefined);
  }
}
class FakeConnectionError extends FakeAPIError {
  constructor(options: { cause?: Error } = {}) {
    super(undefined, undefined, 'Connection error.', undefined);
    if (options.cause) this.cause = options.cause;
  }
}
class FakeConnectionTimeoutError extends FakeConnectionError {}

const canary = 'canary-unit-Mx83Tq52Vw';
const options: MapSdkErrorOptions = {
  provider: 'acme',
  secrets: [canary],
  classes: {
    base: FakeSdkError,
    apiError: FakeAPIError,
    connectionError: FakeConnectionError,
    connectionTimeoutError: FakeConnectionTimeoutError,
    userAbortError: FakeUserAbortError,
  },
  hints: { auth: 'Set ACME_API_KEY.' },
};

const apiError = (
  status: number | undefined,
  body: object | undefined,
  headers: Record<string, string> = {},
) => new FakeAPIError(status, body, JSON.stringify(body ?? 'no body'), new Headers(headers));

describe('mapSdkError', () => {
  it('maps an HTTP error with status, type, code, request id and Retry-After', () => {
    const error = mapSdkError(
      apiError(
        429,
        { error: { type: 'requests', code: 'rate_limit_exceeded', message: 'slow down' } },
        { 'x-request-id': 'req_1', 'retry-after': '3' },
      ),
      options,
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      code: 'rate-limited',
      status: 429,
      requestId: 'req_1',
      retryAfterMs: 3000,
      isRetryable: true,
      provider: 'acme',
      message: 'acme: HTTP 429 rate_limit_exceeded: slow down (request req_1)',
    });
    expect(error.cause).toMatchObject({ name: 'FakeAPIError', status: 429 });
    expect(error.cause).not.toHaveProperty('headers');
  });

  it('reads nested (Anthropic-style) bodies, request-id headers and body request ids', () => {
    const nested = mapSdkError(
      new FakeAPIError(
        529,
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        'Overloaded',
        new Headers({ 'request-id': 'req_h' }),
        null,
      ),
      options,
    );
    expect(nested).toMatchObject({ code: 'overloaded', requestId: 'req_h', isRetryable: true });
    const fromBody = mapSdkError(
      new FakeAPIError(
        500,
        { type: 'error', error: { type: 'api_error', message: 'Internal' }, request_id: 'req_b' },
        'Internal',
        new Headers(),
        null,
      ),
      options,
    );
    expect(fromBody).toMatchObject({ code: 'network', requestId: 'req_b', status: 500 });
  });

  it('classifies an error event in a 200 stream by its type and says where it came from', () => {
    const error = mapSdkError(
      new FakeAPIError(
        undefined,
        { type: 'overloaded_error', message: 'Overloaded' },
        'Overloaded',
        undefined,
      ),
      options,
    );
    expect(error).toMatchObject({ code: 'overloaded', status: undefined, isRetryable: true });
    expect(error.message).toBe('acme: error event in stream overloaded_error: Overloaded');
  });

  it('describes a non-JSON error body and recognises context-length 400s by message', () => {
    const html = mapSdkError(
      new FakeAPIError(502, undefined, '<html><body>Bad   Gateway</body></html>', new Headers()),
      options,
    );
    expect(html).toMatchObject({ code: 'network', status: 502 });
    expect(html.message).toContain('non-JSON error body: "Bad Gateway"');
    const tooLong = mapSdkError(
      apiError(400, { error: { type: 'invalid_request_error', message: 'prompt is too long: 9 > 8' } }),
      options,
    );
    expect(tooLong).toMatchObject({ code: 'context-length', isRetryable: false });
  });

  it('applies hints and provider refinements', () => {
    const auth = mapSdkError(
      apiError(401, { error: { type: 'authentication_error', message: 'no' } }),
      options,
    );
    expect(auth.message).toMatch(/\. Set ACME_API_KEY\.$/);
    const quota = mapSdkError(apiError(429, { error: { type: 'insufficient_quota', message: 'quota' } }), {
      ...options,
      refine: (details) =>
        details.type === 'insufficient_quota' ? { isRetryable: false, hint: 'Add credit.' } : undefined,
    });
    expect(quota).toMatchObject({ code: 'rate-limited', isRetryable: false });
    expect(quota.message).toMatch(/\. Add credit\.$/);
  });

  it('maps transport failures', () => {
    expect(mapSdkError(new FakeUserAbortError(), options)).toMatchObject({
      code: 'aborted',
      isRetryable: false,
    });
    expect(mapSdkError(new FakeConnectionTimeoutError(), options)).toMatchObject({
      code: 'timeout',
      isRetryable: true,
    });
    const refused = mapSdkError(
      new FakeConnectionError({
        cause: Object.assign(new TypeError('fetch failed'), {
          cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
        }),
      }),
      options,
    );
    expect(refused).toMatchObject({ code: 'network', isRetryable: true });
    expect(refused.message).toContain('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9');
    expect(mapSdkError(new SyntaxError('Unexpected token < in JSON'), options)).toMatchObject({
      code: 'invalid-response',
      isRetryable: false,
    });
    expect(mapSdkError(new FakeSdkError('stream ended oddly'), options)).toMatchObject({
      code: 'invalid-response',
      isRetryable: false,
    });
    const cut = mapSdkError(
      new TypeError('terminated', {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      }),
      options,
    );
    expect(cut).toMatchObject({ code: 'network', isRetryable: true });
    expect(cut.message).toContain('UND_ERR_SOCKET: other side closed');
    expect(mapSdkError(new Error('weird'), options)).toMatchObject({
      code: 'invalid-response',
      provider: 'acme',
    });
  });

  it('returns a ModelError unchanged, and anything becomes aborted once the signal aborted', () => {
    const existing = new ModelError({ code: 'auth', message: 'x' });
    expect(mapSdkError(existing, options)).toBe(existing);
    const signal = AbortSignal.abort();
    expect(mapSdkError(existing, { ...options, signal }).code).toBe('aborted');
    expect(mapSdkError(apiError(500, {}), { ...options, signal })).toMatchObject({ code: 'aborted' });
  });

  it('never carries the configured key: message, JSON, stack, inspect and cause', () => {
    const source = apiError(
      401,
      {
        error: {
          type: 'invalid_request_error',
          code: 'invalid_api_key',
          message: `Incorrect API key: ${canary}`,
        },
      },
      { 'x-echo': canary },
    );
    expect(source.message).toContain(canary);
    const error = mapSdkError(source, options);
    expect(error.code).toBe('auth');
    expectNoSecretLeak(error, canary);
    expect(error.message).toContain('[redacted]');
  });
});
