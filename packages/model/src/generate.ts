import type { ChatModel, GenerateRequest, GenerateResult, StreamPart } from './chat-model';
import { ModelError } from './model-error';
import { normalizeError } from './normalize-error';
import { streamToResult } from './stream-to-result';
import { type RetryOptions, withRetry } from './with-retry';

/** Options for {@link generate}. */
export interface GenerateOptions {
  signal?: AbortSignal;
  /** Retry policy options, or `false` for a single attempt. Default: {@link withRetry}'s defaults. */
  retry?: Omit<RetryOptions, 'signal'> | false;
  /**
   * Stream: when set, the call goes through `doStream` and every part is passed here as it
   * arrives; the promise still resolves with the final result. A failure is retried only while no
   * part has been delivered yet.
   */
  onPart?: (part: StreamPart) => void;
}

function checkRequest(model: ChatModel, request: GenerateRequest): void {
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new ModelError({
      code: 'bad-request',
      message: `generate(${model.provider}:${model.modelId}): request.messages must be a non-empty array`,
      provider: model.provider,
    });
  }
}

/**
 * Calls `model` once through the retry policy and resolves with its `GenerateResult`.
 * Every failure is a `ModelError` (unknown errors go through {@link normalizeError}).
 *
 * @example
 * const result = await generate(model, { messages: [{ role: 'user', content: 'Hi' }] });
 */
export function generate(
  model: ChatModel,
  request: GenerateRequest,
  options: GenerateOptions = {},
): Promise<GenerateResult> {
  // Not an async function (its promise would wrap `withRetry`'s): a bad call still rejects.
  try {
    return attempts(model, request, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

function attempts(
  model: ChatModel,
  request: GenerateRequest,
  options: GenerateOptions,
): Promise<GenerateResult> {
  const { signal, retry, onPart } = options;
  checkRequest(model, request);
  // One options object per call: the caller's retry options with the call's signal.
  const retryOptions: RetryOptions = retry === false ? { maxAttempts: 1, signal } : { ...retry, signal };
  if (!onPart) {
    // Not streaming: one promise chain per attempt (no async wrapper), failures normalized.
    return withRetry(({ signal: attemptSignal }) => {
      let call: Promise<GenerateResult>;
      try {
        call = Promise.resolve(model.doGenerate(request, { signal: attemptSignal }));
      } catch (error) {
        call = Promise.reject(error);
      }
      return call.then(undefined, (error: unknown) => {
        throw normalizeError(error, { provider: model.provider, signal: attemptSignal });
      });
    }, retryOptions);
  }
  let delivered = false;
  return withRetry(async ({ signal: attemptSignal }) => {
    try {
      return await streamToResult(model.doStream(request, { signal: attemptSignal }), {
        provider: model.provider,
        onPart: (part) => {
          delivered = true;
          onPart(part);
        },
      });
    } catch (error) {
      const normalized = normalizeError(error, { provider: model.provider, signal: attemptSignal });
      if (delivered && normalized.isRetryable) {
        // Parts already reached the caller: a retry would duplicate them.
        throw new ModelError({
          code: normalized.code,
          message: `${normalized.message} (stream interrupted after output began; not retried)`,
          isRetryable: false,
          status: normalized.status,
          requestId: normalized.requestId,
          provider: normalized.provider,
          cause: normalized,
        });
      }
      throw normalized;
    }
  }, retryOptions);
}
