import { ModelError } from '@closedloop/model';
import {
  classifyHttpError,
  normalizeError,
  parseRateLimitReset,
  parseRetryAfter,
  redactSecrets,
  sanitizeErrorCause,
} from '@closedloop/model/provider';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** The provider's error object inside a body: `{ error: {…} }`, `{ type: 'error', error: {…} }`, or the body itself. */
function innerError(body: unknown): Json {
  if (!isRecord(body)) return {};
  if (isRecord(body.error)) return body.error;
  return body;
}

/**
 * The error a 2xx body holds instead of a response — `{ error: '…' }`, `{ error: { message } }`,
 * `{ detail: '…' }` without `choices`/`candidates`/`content` — else `undefined`.
 */
function errorInBody(
  body: unknown,
): { message: string; type: string | undefined; code: string | number | undefined } | undefined {
  if (!isRecord(body) || 'choices' in body || 'candidates' in body || 'content' in body) return undefined;
  const inner = isRecord(body.error) ? body.error : undefined;
  const message = text(body.error) ?? text(inner?.message) ?? text(body.detail);
  if (message === undefined) return undefined;
  const code = typeof inner?.code === 'number' ? inner.code : text(inner?.code);
  return { message, type: text(inner?.type), code };
}

function header(headers: unknown, name: string): string | undefined {
  if (!isRecord(headers)) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * OpenAI's `insufficient_quota` (a 429, or an error event): the account's quota or credit is
 * used up, and retrying cannot bring it back — not retryable, as the OpenAI adapter maps it.
 */
function usedUpQuota(type: string | undefined, code: string | number | undefined): boolean {
  return type === 'insufficient_quota' || code === 'insufficient_quota';
}

/** Options of {@link mapAISDKError}. */
export interface MapAISDKErrorOptions {
  provider: string;
  signal?: AbortSignal | undefined;
  /** The bridge's own timeout fired (no response within `timeoutMs`). */
  timedOut?: boolean;
  /** Literal secrets (API keys) removed from messages and the cause. */
  secrets?: readonly string[];
  /** The response's request id, for an error that carries none (a stream's `error` part). */
  requestId?: string | undefined;
}

/**
 * Maps what an AI SDK language model throws (or sends as a stream `error` part) to a
 * `ModelError`: `APICallError`s by their HTTP status and the provider's error type/code/message
 * (`classifyHttpError`, so a context-length 400 is `context-length`), with `Retry-After` and the
 * request id from the response headers; a 2xx that could not be parsed → `invalid-response`;
 * errors without a status (stream error parts, `{ code: 400 }` bodies) by their code, type and
 * message; JSON/validation errors → `invalid-response`; aborts → `aborted`; the bridge's timeout
 * → `timeout`; connection failures → `network`; a used-up quota (`insufficient_quota`) is not
 * retryable. Messages are redacted with `secrets`.
 */
export function mapAISDKError(error: unknown, options: MapAISDKErrorOptions): ModelError {
  const { provider, signal, timedOut, secrets = [] } = options;
  const redact = (value: string) => redactSecrets(value, { secrets });
  const cause = error instanceof Error ? sanitizeErrorCause(error, { secrets }) : undefined;
  if (timedOut) {
    return new ModelError({
      code: 'timeout',
      message: `${provider}: no response within the request timeout (timeoutMs)`,
      provider,
      cause,
    });
  }
  if (ModelError.isInstance(error) && !signal?.aborted) return error;
  if (signal?.aborted) {
    return new ModelError({
      code: 'aborted',
      message: `${provider}: request aborted by the caller`,
      provider,
      cause,
    });
  }
  const name = error instanceof Error ? error.name : undefined;
  const fields = isRecord(error) ? error : {};
  const isApiCallError =
    name === 'AI_APICallError' || (fields.url !== undefined && 'requestBodyValues' in fields);
  const status = typeof fields.statusCode === 'number' ? fields.statusCode : undefined;
  if (isApiCallError && status !== undefined) {
    const headers = fields.responseHeaders;
    const requestId = header(headers, 'x-request-id') ?? header(headers, 'request-id');
    if (status < 400) {
      // A 2xx whose body broke off (socket reset while reading) is a network failure, not bad data.
      const underlying = fields.cause !== undefined ? normalizeError(fields.cause, { provider }) : undefined;
      if (underlying?.code === 'network' || underlying?.code === 'timeout') {
        return new ModelError({
          code: underlying.code,
          message: redact(
            `${provider}: the connection closed while the response was being read (${underlying.message})`,
          ),
          status,
          ...(requestId ? { requestId } : {}),
          provider,
          cause,
        });
      }
      const failure = errorInBody(parseJson(fields.responseBody));
      if (failure) {
        // A 2xx whose body is an error, not a response (LM Studio, gateways): that error.
        const endpoint = /^Unexpected endpoint or method/i.test(failure.message);
        return new ModelError({
          code: endpoint
            ? 'bad-request'
            : classifyHttpError({ type: failure.type, code: failure.code, message: failure.message }),
          message: redact(
            `${provider}: HTTP ${status} with an error body: ${failure.message}${
              endpoint ? ' (the server does not serve this path: check the baseURL)' : ''
            }${requestId ? ` (request ${requestId})` : ''}`,
          ),
          status,
          ...(requestId ? { requestId } : {}),
          provider,
          cause,
        });
      }
      return new ModelError({
        code: 'invalid-response',
        message: redact(`${provider}: the response could not be read (${(error as Error).message})`),
        isRetryable: false,
        status,
        ...(requestId ? { requestId } : {}),
        provider,
        cause,
      });
    }
    const inner = innerError(fields.data ?? parseJson(fields.responseBody));
    const type = text(inner.type) ?? text(inner.status);
    const code = typeof inner.code === 'number' ? inner.code : text(inner.code);
    const message = text(inner.message) ?? (error as Error).message;
    const modelErrorCode = classifyHttpError({ status, type, code, message });
    if (code === 'tool_use_failed' || code === 'json_validate_failed') {
      // Groq's 400 for a tool call or JSON answer its parser could not read: the model's output
      // was bad, not the request; sampling again usually works (as the OpenAI adapter maps it).
      return new ModelError({
        code: 'invalid-response',
        message: redact(
          `${provider}: HTTP ${status} ${code}: ${message}. The server could not parse the model's ${
            code === 'tool_use_failed' ? 'tool call' : 'JSON'
          }; a retry samples again${requestId ? ` (request ${requestId})` : ''}`,
        ),
        isRetryable: true,
        status,
        ...(requestId ? { requestId } : {}),
        ...(typeof inner.failed_generation === 'string'
          ? { rawOutput: redact(inner.failed_generation) }
          : {}),
        provider,
        cause,
      });
    }
    const metadata = isRecord(inner.metadata) ? inner.metadata : undefined;
    const retryAfterMs =
      parseRetryAfter(headers ?? {}) ??
      (modelErrorCode === 'rate-limited'
        ? parseRateLimitReset({ headers, bodyHeaders: metadata?.headers, message })
        : undefined);
    return new ModelError({
      code: modelErrorCode,
      message: redact(
        `${provider}: HTTP ${status}${code !== undefined ? ` ${code}` : type ? ` ${type}` : ''}: ${message}${
          requestId ? ` (request ${requestId})` : ''
        }`,
      ),
      status,
      ...(usedUpQuota(type, code) ? { isRetryable: false } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(requestId ? { requestId } : {}),
      provider,
      cause,
    });
  }
  if (isApiCallError) {
    // No status: the request never got a response (connection refused or reset).
    const normalized = normalizeError(fields.cause ?? error, { provider });
    const code = normalized.code === 'invalid-response' ? 'network' : normalized.code;
    return new ModelError({
      code,
      message: redact(`${provider}: ${(error as Error).message}`),
      provider,
      cause,
    });
  }
  if (
    name !== undefined &&
    /JSONParse|TypeValidation|InvalidResponseData|EmptyResponseBody|NoContentGenerated/.test(name)
  ) {
    return new ModelError({
      code: 'invalid-response',
      message: redact(`${provider}: ${(error as Error).message}`),
      isRetryable: false,
      provider,
      cause,
    });
  }
  if (!(error instanceof Error) && isRecord(error)) {
    // A stream `error` part carrying the provider's error object.
    const inner = innerError(error);
    const type = text(inner.type) ?? text(inner.status);
    const code = typeof inner.code === 'number' ? inner.code : text(inner.code);
    const message = text(inner.message) ?? JSON.stringify(inner).slice(0, 300);
    const { requestId } = options;
    return new ModelError({
      code: classifyHttpError({ type, code, message }),
      message: redact(
        `${provider}: error event in stream${code !== undefined ? ` ${code}` : type ? ` ${type}` : ''}: ${message}${
          requestId ? ` (request ${requestId})` : ''
        }`,
      ),
      ...(requestId ? { requestId } : {}),
      ...(usedUpQuota(type, code) ? { isRetryable: false } : {}),
      provider,
    });
  }
  const normalized = normalizeError(error, { provider });
  return new ModelError({
    code: normalized.code,
    message: redact(normalized.message),
    isRetryable: normalized.isRetryable,
    provider,
    cause,
  });
}
