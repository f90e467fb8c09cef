import { ModelError } from './model-error';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The default of {@link withBoundedResponses}' `maxBytes`: 128 MiB. */
export const defaultMaxResponseBytes = 128 * 1024 * 1024;

/** Options of {@link withBoundedResponses}. */
export interface BoundedResponsesOptions {
  /** Bytes of one response body (after content decoding) past which it is cut. */
  maxBytes: number;
  /** The provider id the error names. */
  provider: string;
}

/**
 * Wraps `fetch` so no response body is read past `maxBytes`: past it the body errors with a
 * non-retryable `ModelError('invalid-response')` and the connection is cancelled. A model that
 * never stops talking (a local model stuck repeating itself with `max_tokens` ignored, a hostile
 * endpoint) would otherwise grow the answer in memory until the process dies: the request
 * timeout ends at the headers, and a stall timeout never fires on a stream that keeps sending.
 * For streamed and whole bodies alike.
 *
 * @example
 * ```ts
 * const client = new OpenAI({ fetch: withBoundedResponses(fetch, { maxBytes: 64 << 20, provider: 'openai' }) });
 * ```
 */
export function withBoundedResponses(fetchImpl: Fetch, options: BoundedResponsesOptions): Fetch {
  const { maxBytes, provider } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new ModelError({
      code: 'bad-request',
      message: `${provider}: maxResponseBytes must be a positive integer, got ${JSON.stringify(maxBytes)}.`,
      isRetryable: false,
      provider,
    });
  }
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.body === null) return response;
    const reader = response.body.getReader();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        seen += value.byteLength;
        if (seen > maxBytes) {
          const error = new ModelError({
            code: 'invalid-response',
            message: `${provider}: the response passed ${maxBytes} bytes (maxResponseBytes), far more than any answer needs (a model that does not stop?); the request was cancelled.`,
            isRetryable: false,
            provider,
          });
          controller.error(error);
          await reader.cancel(error).catch(() => {});
          return;
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
