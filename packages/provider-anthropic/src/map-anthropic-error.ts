import {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import type { ModelError } from '@closedloop/model';
import { type MapSdkErrorOptions, mapSdkError, type SdkErrorClasses } from '@closedloop/model/provider';

/** Context for {@link mapAnthropicError}. */
export type MapErrorContext = Pick<MapSdkErrorOptions, 'provider' | 'signal' | 'secrets'>;

const classes: SdkErrorClasses = {
  base: AnthropicError,
  apiError: APIError,
  connectionError: APIConnectionError,
  connectionTimeoutError: APIConnectionTimeoutError,
  userAbortError: APIUserAbortError,
};

const hints: MapSdkErrorOptions['hints'] = {
  auth: 'Check the API key (the ANTHROPIC_API_KEY environment variable or the apiKey option) and its permissions.',
  'rate-limited': 'Slow down or retry later (closedloop retries with backoff through withRetry/generate).',
  overloaded: 'Anthropic is overloaded; retry with backoff.',
  'context-length': 'Shorten the conversation or lower maxOutputTokens.',
};

/**
 * Maps anything the Anthropic SDK (or fetch underneath it) throws to a `ModelError`, through the
 * error mapping every adapter shares (`mapSdkError` from `@closedloop/model`): status, error
 * type, `request-id` and Retry-After are kept; the API key never is (messages are redacted and
 * `cause` is a sanitised copy without headers or bodies). Anthropic-specific: a 429 for an
 * enforced spend limit (`details.error_code: enforced_spend_limit_reached`) is not retryable.
 */
export function mapAnthropicError(error: unknown, context: MapErrorContext): ModelError {
  return mapSdkError(error, {
    ...context,
    classes,
    hints,
    refine: ({ body }) => {
      const details = body.details as { error_code?: unknown } | undefined;
      // A monthly spend cap does not lift by retrying.
      return details?.error_code === 'enforced_spend_limit_reached'
        ? { isRetryable: false, hint: 'The spend limit is reached; retrying will not help.' }
        : undefined;
    },
  });
}
