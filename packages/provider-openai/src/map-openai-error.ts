import { ModelError } from '@closedloop/model';
import {
  type MapSdkErrorOptions,
  mapSdkError,
  redactSecrets,
  type SdkErrorClasses,
} from '@closedloop/model/provider';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from 'openai';

/** Context for {@link mapOpenAIError}. */
export type MapErrorContext = Pick<MapSdkErrorOptions, 'provider' | 'signal' | 'secrets'>;

const classes: SdkErrorClasses = {
  base: OpenAIError,
  apiError: APIError,
  connectionError: APIConnectionError,
  connectionTimeoutError: APIConnectionTimeoutError,
  userAbortError: APIUserAbortError,
};

const hints: MapSdkErrorOptions['hints'] = {
  auth: 'Check the API key (the OPENAI_API_KEY environment variable or the apiKey option) and its permissions.',
  'rate-limited': 'Slow down or retry later (closedloop retries with backoff through withRetry/generate).',
  'context-length': 'Shorten the conversation or lower maxOutputTokens.',
};

/**
 * Maps anything the OpenAI SDK (or fetch underneath it) throws to a `ModelError`, through the
 * error mapping every adapter shares (`mapSdkError` from `@closedloop/model`): status, provider
 * error type/code, request id and Retry-After are kept; the API key never is (messages are
 * redacted and `cause` is a sanitised copy without headers or bodies). OpenAI-specific: an
 * `insufficient_quota` 429 is not retryable (a used-up quota does not come back by retrying);
 * Groq's `tool_use_failed` / `json_validate_failed` 400 is a retryable `invalid-response` whose
 * `rawOutput` is the `failed_generation` (the model's output was bad, not the request).
 */
export function mapOpenAIError(error: unknown, context: MapErrorContext): ModelError {
  const mapped = mapSdkError(error, {
    ...context,
    classes,
    hints,
    refine: ({ code, type }) =>
      code === 'insufficient_quota' || type === 'insufficient_quota'
        ? {
            isRetryable: false,
            hint: 'The quota is used up: retrying cannot help; check the plan and billing details',
          }
        : undefined,
  });
  const body = error instanceof APIError && isRecord(error.error) ? error.error : undefined;
  if (body && typeof body.code === 'string' && failedGenerationCodes.has(body.code)) {
    // Groq's 400 for a tool call or JSON answer its parser could not read: the model's output was
    // bad, not the request; sampling again usually works.
    return new ModelError({
      code: 'invalid-response',
      message: `${mapped.message}. The server could not parse the model's ${body.code === 'tool_use_failed' ? 'tool call' : 'JSON'}; a retry samples again`,
      isRetryable: true,
      ...(mapped.status !== undefined ? { status: mapped.status } : {}),
      ...(mapped.requestId !== undefined ? { requestId: mapped.requestId } : {}),
      ...(mapped.provider !== undefined ? { provider: mapped.provider } : {}),
      ...(typeof body.failed_generation === 'string'
        ? { rawOutput: redactSecrets(body.failed_generation, { secrets: context.secrets ?? [] }) }
        : {}),
      cause: mapped.cause,
    });
  }
  return mapped;
}

/** Error codes for model output the server could not parse (Groq). */
const failedGenerationCodes: ReadonlySet<string> = new Set(['tool_use_failed', 'json_validate_failed']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
