import type { FinishReason } from './chat-model';
import { ModelError } from './model-error';

/** Options for {@link emptyAnswerError}. */
export interface EmptyAnswerOptions {
  provider: string;
  /** The finish reason the adapter mapped. */
  finishReason: FinishReason;
  /** The provider's own finish/stop reason (shown in the message). */
  rawFinishReason: string | null | undefined;
  /** The answer's text (reasoning not counted: it is not an answer). */
  text: string;
  /** How many tool calls the answer holds. */
  toolCalls: number;
  requestId?: string | undefined;
}

/**
 * The error for an answer that finished with nothing usable — no text, no tool call — for a
 * reason that says neither "done" nor why it was cut: a finish reason mapped to `other` or
 * `unknown` (Ollama's `done_reason: "load"` through its /v1 endpoint, Gemini's `OTHER` or
 * `TOO_MANY_TOOL_CALLS` with a candidate without parts, a proxy's unknown stop). Returning it
 * would let a step end on an empty "answer"; `undefined` when the answer is usable or is a
 * truncation signal (`length`, `content-filter`, `refusal`) the caller sees in `finishReason`.
 * Retryable: the same request usually gets an answer the next time.
 *
 * @example
 * const empty = emptyAnswerError({ provider, finishReason, rawFinishReason: 'load', text: '', toolCalls: 0 });
 * if (empty) throw empty;
 */
export function emptyAnswerError(options: EmptyAnswerOptions): ModelError | undefined {
  const { provider, finishReason, rawFinishReason, text, toolCalls, requestId } = options;
  if (text !== '' || toolCalls > 0) return undefined;
  if (finishReason !== 'other' && finishReason !== 'unknown') return undefined;
  const reason = rawFinishReason ? `finish reason ${JSON.stringify(rawFinishReason)}` : 'no finish reason';
  return new ModelError({
    code: 'invalid-response',
    message: `${provider}: the model finished (${reason}) without any text or tool call${
      requestId ? ` (request ${requestId})` : ''
    }; an empty answer, not returned. Retry the request.`,
    isRetryable: true,
    provider,
    rawOutput: '',
    ...(requestId ? { requestId } : {}),
  });
}
