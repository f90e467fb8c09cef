import { ModelError, type ModelErrorCode } from './model-error';
import { redactSecrets } from './redact-secrets';

/** Options for {@link normalizeError}. */
export interface NormalizeErrorOptions {
  /** Provider name recorded on the error (`openai`, `anthropic`, …). */
  provider?: string;
  /** Set when the caller's signal aborted: any error then becomes `aborted`. */
  signal?: AbortSignal;
}

const networkCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const timeoutCodes = new Set(['ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const getter = field(headers, 'get');
  if (typeof getter === 'function') {
    const value = (getter as (key: string) => unknown).call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * Reads `retry-after-ms` / `retry-after` (seconds or an HTTP date) from a headers object
 * (a `Headers` instance or a plain record). Returns milliseconds, or `undefined`.
 */
export function parseRetryAfter(headers: unknown, now: number = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) {
    return Number(ms);
  }
  const value = headerValue(headers, 'retry-after');
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The error code for an HTTP status — the one status table every adapter shares:
 *
 * | status | code |
 * | --- | --- |
 * | 401, 403 | `auth` |
 * | 408, 504 | `timeout` |
 * | 409 (lock conflict) | `overloaded` |
 * | 413 | `context-length` |
 * | 429 | `rate-limited` |
 * | 503, 529 | `overloaded` (the provider sheds load: back off) |
 * | 500, 502, other 5xx | `network` (a crashed request or a broken hop: retry soon) |
 * | other 4xx | `bad-request` |
 *
 * {@link classifyHttpError} adds what the status alone cannot say (context-length 400s, errors
 * sent inside a 200 stream).
 */
export function codeForStatus(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 409) return 'overloaded';
  if (status === 413) return 'context-length';
  if (status === 429) return 'rate-limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'network';
  return 'bad-request';
}

/** What {@link classifyHttpError} looks at. Every field is optional. */
export interface HttpErrorInfo {
  /** HTTP status; `undefined` for an error event sent inside a 200 stream. */
  status?: number | undefined;
  /** The provider's error type (`rate_limit_error`, `overloaded_error`, `server_error`, `INVALID_ARGUMENT`, …). */
  type?: string | undefined;
  /**
   * The provider's error code: a string (`context_length_exceeded`, `CONTEXT_LENGTH_EXCEEDED`,
   * `rate_limit_exceeded`) or a number — an HTTP-like status some servers put in the body of a
   * stream error (`{"error": {"code": 400, …}}`).
   */
  code?: string | number | undefined;
  /** The provider's error message (used to recognise context-length errors). */
  message?: string | undefined;
}

const contextLengthPattern =
  /context[_ ]length|context limit|maximum context|context window|available context size|prompt is too long|prompt length|input is too long|input length exceeds|too many (input )?tokens|input token count|exceeds the maximum number of tokens|reduce the length of the messages/i;
const contextLengthCodePattern =
  /context_?(length|window|size)|prompt_too_long|input_too_long|string_above_max_length|too_many_tokens|tokens_limit_reached/;

/** `CONTEXT_LENGTH_EXCEEDED`, `context-length-exceeded`, `ContextLengthExceeded` → `context_length_exceeded`. */
function normalizeToken(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

/** Error types and codes by what they say, checked in order (first match wins). */
const tokenRules: ReadonlyArray<readonly [RegExp, ModelErrorCode]> = [
  [contextLengthCodePattern, 'context-length'],
  [/overloaded|unavailable|capacity|engine_overloaded/, 'overloaded'],
  [/rate_?limit|resource_exhausted|too_many_requests|quota|^tokens$|^requests$/, 'rate-limited'],
  [/authentication|unauthenticated|unauthorized|permission|forbidden|invalid_api_key|auth_error/, 'auth'],
  [/timeout|timed_out|deadline_exceeded/, 'timeout'],
  [
    /invalid|bad_?request|not_found|unprocessable|unsupported|validation|request_too_large|too_large|failed_precondition|out_of_range/,
    'bad-request',
  ],
  [/server_error|api_error|internal|service_error|unknown/, 'network'],
];

function codeForToken(value: string | undefined): ModelErrorCode | undefined {
  if (value === undefined || value === '') return undefined;
  const token = normalizeToken(value);
  return tokenRules.find(([pattern]) => pattern.test(token))?.[1];
}

/** An HTTP-like status carried in an error body's `code` (`400`, `"429"`). */
function statusFromCode(code: string | number | undefined): number | undefined {
  const value =
    typeof code === 'number' ? code : typeof code === 'string' && /^\d{3}$/.test(code) ? Number(code) : NaN;
  return Number.isInteger(value) && value >= 400 && value <= 599 ? value : undefined;
}

/**
 * The error code for a provider's error — with or without an HTTP status:
 *
 * 1. A context-length error is `context-length` whatever else it says: recognised by its code
 *    (`context_length_exceeded`, `CONTEXT_LENGTH_EXCEEDED`, …) or its message ("maximum context
 *    length", "prompt is too long", …), with or without a status.
 * 2. With an HTTP status: {@link codeForStatus}.
 * 3. Without one (an `error` event inside a 200 stream): a numeric `code` in the body (`400`,
 *    `"429"`) is read as the status; otherwise the error's type, then its code, by what they say —
 *    `overloaded_error`/`UNAVAILABLE` → `overloaded`; `rate_limit_*`/`RESOURCE_EXHAUSTED`/quota →
 *    `rate-limited`; authentication/permission → `auth`; timeout/`DEADLINE_EXCEEDED` → `timeout`;
 *    `invalid_request_error`/`INVALID_ARGUMENT`/`BadRequestError`/not found → `bad-request`;
 *    `server_error`/`api_error`/`INTERNAL` and anything unrecognised → `network` (retryable); a
 *    type that maps to `network` yields to a code that says more (`new_api_error` +
 *    `model_not_found` → `bad-request`).
 *
 * @example
 * classifyHttpError({ status: 400, code: 'context_length_exceeded' }) // 'context-length'
 * classifyHttpError({ type: 'overloaded_error' }) // 'overloaded'
 * classifyHttpError({ code: 400, message: 'Invalid tool schema' }) // 'bad-request' (stream event)
 * classifyHttpError({ code: 'CONTEXT_LENGTH_EXCEEDED' }) // 'context-length' (no status)
 */
export function classifyHttpError(info: HttpErrorInfo): ModelErrorCode {
  const { status, type, code, message = '' } = info;
  const codeText = typeof code === 'string' ? code : undefined;
  const contextLength =
    contextLengthPattern.test(message) ||
    (codeText !== undefined && contextLengthCodePattern.test(normalizeToken(codeText))) ||
    (type !== undefined && contextLengthCodePattern.test(normalizeToken(type)));
  const effectiveStatus = status ?? statusFromCode(code);
  if (effectiveStatus !== undefined) {
    const byStatus = codeForStatus(effectiveStatus);
    return byStatus === 'bad-request' && contextLength ? 'context-length' : byStatus;
  }
  if (contextLength) return 'context-length';
  const byType = codeForToken(type);
  const byCode = codeForToken(codeText);
  // A type that only says "error" (`api_error`, a gateway's `new_api_error`) yields to a code that
  // says what went wrong (`model_not_found`, `rate_limit_exceeded`).
  if (byType === 'network' && byCode !== undefined) return byCode;
  return byType ?? byCode ?? 'network';
}

/** The error and its `cause`s (up to 5 deep). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 6 && !chain.includes(current)) {
    chain.push(current);
    current = field(current, 'cause');
  }
  return chain;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * Turns any thrown value into a `ModelError`. A `ModelError` is returned unchanged (unless the
 * signal aborted). Recognised: `AbortError` → `aborted`, `TimeoutError` and `ETIMEDOUT` →
 * `timeout`, `fetch failed` `TypeError`s and socket errors (`ECONNRESET`, …) → `network`,
 * objects with an HTTP `status` → {@link classifyHttpError} (status, plus the message for
 * context-length 400s) with `Retry-After` and the request id read from `headers`. Anything else becomes a non-retryable
 * `invalid-response`. Messages are passed through {@link redactSecrets}.
 */
export function normalizeError(error: unknown, options: NormalizeErrorOptions = {}): ModelError {
  const { provider, signal } = options;
  const prefix = provider ? `${provider}: ` : '';
  if (signal?.aborted) {
    if (ModelError.isInstance(error) && error.code === 'aborted') return error;
    return new ModelError({ code: 'aborted', message: `${prefix}request aborted`, provider, cause: error });
  }
  if (ModelError.isInstance(error)) return error;

  const chain = causeChain(error);
  const names = chain
    .map((item) => field(item, 'name'))
    .filter((item): item is string => typeof item === 'string');
  const codes = chain
    .map((item) => field(item, 'code'))
    .filter((item): item is string => typeof item === 'string');
  const message = redactSecrets(messageOf(error));

  if (names.some((name) => name === 'AbortError' || /UserAbort/.test(name)) || codes.includes('ABORT_ERR')) {
    return new ModelError({ code: 'aborted', message: `${prefix}request aborted`, provider, cause: error });
  }
  if (
    names.some((name) => name === 'TimeoutError' || /ConnectionTimeout/.test(name)) ||
    codes.some((c) => timeoutCodes.has(c))
  ) {
    return new ModelError({
      code: 'timeout',
      message: `${prefix}request timed out: ${message}`,
      provider,
      cause: error,
    });
  }
  const status = field(error, 'status');
  if (typeof status === 'number' && status >= 400 && status < 600) {
    const headers = field(error, 'headers');
    const requestId = headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id') ?? undefined;
    return new ModelError({
      code: classifyHttpError({ status, message }),
      message: `${prefix}HTTP ${status}: ${message}`,
      status,
      retryAfterMs: parseRetryAfter(headers),
      requestId,
      provider,
      cause: error,
    });
  }
  const networkCode = codes.find((c) => networkCodes.has(c));
  if (
    networkCode !== undefined ||
    names.some((name) => /ConnectionError$/.test(name)) ||
    chain.some(
      (item) => item instanceof TypeError && /fetch failed|network|socket|terminated/i.test(item.message),
    )
  ) {
    const detail = networkCode !== undefined && !message.includes(networkCode) ? ` (${networkCode})` : '';
    return new ModelError({
      code: 'network',
      message: `${prefix}network error: ${message}${detail}`,
      provider,
      cause: error,
    });
  }
  return new ModelError({
    code: 'invalid-response',
    message: `${prefix}unexpected error: ${message}`,
    isRetryable: false,
    provider,
    cause: error,
  });
}
