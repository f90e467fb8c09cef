import { ModelError } from './model-error';

/** Whether a tool call's argument text is a complete JSON value (`''` is not: nothing arrived). */
export function isCompleteToolArguments(rawArguments: string): boolean {
  if (rawArguments.trim() === '') return false;
  try {
    JSON.parse(rawArguments);
    return true;
  } catch {
    return false;
  }
}

/** Options for {@link truncatedToolCallError}. */
export interface TruncatedToolCallErrorOptions {
  provider: string;
  /** The call that was being written when the answer stopped. */
  call: { id: string | undefined; name: string; rawArguments: string };
  /** The provider's finish/stop reason (`length`, `max_tokens`, `model_context_window_exceeded`). */
  rawFinishReason: string;
  requestId?: string | undefined;
  /** `context-length` when the context window (not the output limit) ran out. Default `invalid-response`. */
  code?: 'invalid-response' | 'context-length';
}

/**
 * The error for an answer that stopped (output token limit, context window, content filter)
 * while a tool call's arguments were still being written. Adapters throw it instead of returning
 * the call: its arguments are incomplete — unparsable text, or (Anthropic) a server-side parse of
 * the part that arrived — so nothing may run with them, and dropping the call silently would hide
 * that the model meant to act. Not retryable: the same request stops at the same limit.
 *
 * @example
 * if (finishReason === 'length' && !isCompleteToolArguments(call.rawArguments))
 *   throw truncatedToolCallError({ provider, call, rawFinishReason: 'length' });
 */
export function truncatedToolCallError(options: TruncatedToolCallErrorOptions): ModelError {
  const { provider, call, rawFinishReason, requestId, code = 'invalid-response' } = options;
  const remedy =
    code === 'context-length'
      ? 'Shorten the conversation or lower maxOutputTokens.'
      : 'Raise maxOutputTokens or ask for smaller tool inputs.';
  return new ModelError({
    code,
    message: `${provider}: the answer stopped (finish reason ${JSON.stringify(rawFinishReason)}) inside tool call ${JSON.stringify(call.name)}${
      call.id ? ` (${call.id})` : ''
    } after ${call.rawArguments.length} characters of arguments; the call is incomplete and was not returned, so nothing ran${
      requestId ? ` (request ${requestId})` : ''
    }. ${remedy}`,
    isRetryable: false,
    provider,
    rawOutput: call.rawArguments,
    ...(requestId ? { requestId } : {}),
  });
}
