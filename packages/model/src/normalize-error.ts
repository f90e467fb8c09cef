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
 * The error code for an HTTP status, the shared fallback every adapter uses after its own
 * provider-specific mapping (e.g. OpenAI's `context_length_exceeded` error code).
 */
export function codeForStatus(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408) return 'timeout';
  if (status === 413) return 'context-length';
  if (status === 429) return 'rate-limited';
  if (status === 504) return 'timeout';
  if (status >= 500) return 'overloaded';
  return 'bad-request';
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
 * objects with an HTTP `status` → by status (429 rate-limited, 5xx overloaded, 401/403 auth, …)
 * with `Retry-After` read from `headers`. Anything else becomes a non-retryable
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
      code: codeForStatus(status),
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
