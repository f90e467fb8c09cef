import {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import {
  ModelError,
  type ModelErrorCode,
  normalizeError,
  parseRetryAfter,
  redactSecrets,
} from '@closedloop/model';

/** Context for {@link mapAnthropicError}. */
export interface MapErrorContext {
  /** Provider id recorded on the error (`anthropic` or the `name` option). */
  provider: string;
  /** The caller's signal: once it aborted, every failure is `aborted`. */
  signal?: AbortSignal | undefined;
  /** Literal secrets (the API key) to strip from every message, whatever their shape. */
  secrets?: readonly string[];
}

/** Removes the configured secrets (literally) and anything key-shaped from a text. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.replaceAll(secret, '[redacted]');
  }
  return redactSecrets(out);
}

/**
 * A copy of a thrown value that is safe to keep as `cause`: same name and message (redacted),
 * primitive `code`/`status`/`type` kept, no response headers or bodies.
 */
export function sanitizeCause(error: unknown, secrets: readonly string[] = []): Error {
  if (!(error instanceof Error)) return new Error(redact(String(error), secrets));
  const copy = new Error(redact(error.message, secrets));
  copy.name =
    error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : error.name;
  copy.stack = redact(error.stack ?? '', secrets);
  const fields = copy as unknown as Record<string, unknown>;
  const source = error as unknown as Record<string, unknown>;
  for (const key of ['code', 'status', 'type', 'errno', 'syscall']) {
    const value = source[key];
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  const inner = source.cause;
  if (inner instanceof Error) {
    const innerCode = (inner as unknown as Record<string, unknown>).code;
    fields.cause = Object.assign(new Error(redact(inner.message, secrets)), {
      name: inner.name,
      ...(typeof innerCode === 'string' ? { code: innerCode } : {}),
    });
  }
  return copy;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function oneLine(value: string, max = 300): string {
  const collapsed = value
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return collapsed.length > max ? `${collapsed.slice(0, max)}…` : collapsed;
}

function describeCauseChain(error: unknown): string {
  let code: string | undefined;
  let message: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const record = current as Record<string, unknown>;
    code = text(record.code) ?? code;
    message = text(record.message) ?? message;
    current = record.cause;
  }
  return [code, message].filter(Boolean).join(': ');
}

const contextLengthPattern =
  /prompt is too long|context limit|context window|context[_ ]length|maximum context|too many (input )?tokens/i;

/**
 * The error code for an Anthropic failure. By HTTP status first: 401/403 auth, 408/504
 * timeout, 409 overloaded, 413 context-length, 429 rate-limited, 503/529 overloaded, 500/502 and
 * other 5xx network, other 4xx bad-request (context-length when the message says the prompt is
 * too long). An `error` event inside a 200 stream has no status and is classified by its type
 * (`overloaded_error` → overloaded, `api_error` → network, …).
 */
export function classifyAnthropicError(options: {
  status: number | undefined;
  type?: string | undefined;
  message?: string | undefined;
}): ModelErrorCode {
  const { status, type, message = '' } = options;
  const contextLength = contextLengthPattern.test(message);
  if (status === undefined) {
    if (type === 'overloaded_error') return 'overloaded';
    if (type === 'rate_limit_error') return 'rate-limited';
    if (type === 'authentication_error' || type === 'permission_error') return 'auth';
    if (type === 'invalid_request_error' || type === 'not_found_error' || type === 'request_too_large')
      return contextLength ? 'context-length' : 'bad-request';
    if (type === 'timeout_error') return 'timeout';
    return 'network';
  }
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 409) return 'overloaded';
  if (status === 413) return 'context-length';
  if (status === 429) return 'rate-limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'network';
  return contextLength ? 'context-length' : 'bad-request';
}

const hints: Partial<Record<ModelErrorCode, string>> = {
  auth: 'Check the API key (the ANTHROPIC_API_KEY environment variable or the apiKey option) and its permissions.',
  'rate-limited': 'Slow down or retry later (closedloop retries with backoff through withRetry/generate).',
  overloaded: 'Anthropic is overloaded; retry with backoff.',
  'context-length': 'Shorten the conversation or lower maxOutputTokens.',
};

/**
 * Maps anything the Anthropic SDK (or fetch underneath it) throws to a `ModelError`: status,
 * error type, `request-id` and Retry-After are kept; the API key never is (messages are redacted
 * and `cause` is a sanitised copy without headers or bodies).
 */
export function mapAnthropicError(error: unknown, context: MapErrorContext): ModelError {
  const { provider, signal, secrets = [] } = context;
  if (ModelError.isInstance(error) && (!signal?.aborted || error.code === 'aborted')) return error;
  const cause = sanitizeCause(error, secrets);
  if (signal?.aborted || error instanceof APIUserAbortError) {
    return new ModelError({
      code: 'aborted',
      message: `${provider}: request aborted by the caller`,
      provider,
      cause,
    });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError({
      code: 'timeout',
      message: `${provider}: no response within the request timeout (timeoutMs). The request was not retried.`,
      provider,
      cause,
    });
  }
  if (error instanceof APIConnectionError) {
    const detail = describeCauseChain(error.cause);
    return new ModelError({
      code: 'network',
      message: redact(
        `${provider}: connection failed${detail ? ` (${detail})` : ''}. Check baseURL and the network; the request was not retried.`,
        secrets,
      ),
      provider,
      cause,
    });
  }
  if (error instanceof APIError) {
    const body = (error.error ?? {}) as Record<string, unknown>;
    const inner = (typeof body.error === 'object' && body.error !== null ? body.error : body) as Record<
      string,
      unknown
    >;
    const status = typeof error.status === 'number' ? error.status : undefined;
    const type = text(inner.type) ?? text(error.type ?? undefined);
    const nonJsonBody = error.error === undefined && status !== undefined;
    const providerMessage =
      text(inner.message) ??
      (nonJsonBody
        ? `non-JSON error body: "${oneLine(error.message.replace(/^\d{3}\s*/, ''), 120)}"`
        : oneLine(error.message.replace(/^\d{3}\s*/, '')));
    const code = classifyAnthropicError({ status, type, message: providerMessage });
    const requestId =
      error.requestID ?? error.headers?.get('request-id') ?? text(body.request_id) ?? undefined;
    const retryAfterMs = error.headers ? parseRetryAfter(error.headers) : undefined;
    const details = inner.details as { error_code?: unknown } | undefined;
    // A monthly spend cap does not lift by retrying.
    const spendLimit = details?.error_code === 'enforced_spend_limit_reached';
    const label = [status !== undefined ? `HTTP ${status}` : 'error event in stream', type]
      .filter(Boolean)
      .join(' ');
    const hint = spendLimit ? 'The spend limit is reached; retrying will not help.' : hints[code];
    const message = redact(
      `${provider}: ${label}: ${oneLine(providerMessage || 'no error message')}${
        requestId ? ` (request ${requestId})` : ''
      }${hint ? `. ${hint}` : ''}`,
      secrets,
    );
    return new ModelError({
      code,
      message,
      ...(spendLimit ? { isRetryable: false } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(requestId ? { requestId } : {}),
      provider,
      cause,
    });
  }
  if (error instanceof SyntaxError) {
    return new ModelError({
      code: 'invalid-response',
      message: redact(`${provider}: the response is not valid JSON (${error.message})`, secrets),
      provider,
      cause,
    });
  }
  if (error instanceof AnthropicError) {
    return new ModelError({
      code: 'invalid-response',
      message: redact(`${provider}: ${error.message}`, secrets),
      isRetryable: false,
      provider,
      cause,
    });
  }
  if (error instanceof TypeError && error.message === 'terminated') {
    const detail = describeCauseChain(error.cause);
    return new ModelError({
      code: 'network',
      message: redact(
        `${provider}: the connection closed while the response was being read${detail ? ` (${detail})` : ''}`,
        secrets,
      ),
      provider,
      cause,
    });
  }
  const normalized = normalizeError(error, { provider });
  return new ModelError({
    code: normalized.code,
    message: redact(normalized.message, secrets),
    isRetryable: normalized.isRetryable,
    ...(normalized.status !== undefined ? { status: normalized.status } : {}),
    provider,
    cause,
  });
}
