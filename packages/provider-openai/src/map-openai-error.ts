import type { ModelError } from '@closedloop/model';
import { type MapSdkErrorOptions, mapSdkError, type SdkErrorClasses } from '@closedloop/model/provider';
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
 * `insufficient_quota` 429 is not retryable (a used-up quota does not come back by retrying).
 */
export function mapOpenAIError(error: unknown, context: MapErrorContext): ModelError {
  return mapSdkError(error, {
    ...context,
    classes,
    hints,
    refine: ({ code, type }) =>
      code === 'insufficient_quota' || type === 'insufficient_quota' ? { isRetryable: false } : undefined,
  });
}
