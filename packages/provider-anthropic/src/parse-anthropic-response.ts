import type { FinishReason, Usage } from '@closedloop/model';

/**
 * Maps an Anthropic `stop_reason`: `end_turn`/`stop_sequence` → stop, `tool_use` → tool-calls,
 * `max_tokens` and `model_context_window_exceeded` → length, `refusal` → refusal, `pause_turn` →
 * other (the model continues a paused turn itself, so no result carries it); anything else (or
 * none) → unknown, with the raw value kept in `rawFinishReason`.
 */
export function mapAnthropicStopReason(raw: string | null | undefined): FinishReason {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'refusal';
    case 'pause_turn':
      return 'other';
    default:
      return 'unknown';
  }
}

/** The usage fields Anthropic reports (message or message_delta usage). */
export interface AnthropicUsageFields {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/**
 * Maps Anthropic usage. `inputTokens` counts every prompt token — uncached, written to and read
 * from the cache — like OpenAI's `prompt_tokens`; `cachedInputTokens` is the cache reads and
 * `cacheWriteInputTokens` the cache writes (billed at a premium).
 */
export function mapAnthropicUsage(usage: AnthropicUsageFields | null | undefined): Usage {
  const cacheRead = usage?.cache_read_input_tokens ?? undefined;
  const inputTokens =
    (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (cacheRead ?? 0);
  const outputTokens = usage?.output_tokens ?? 0;
  const mapped: Usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  if (typeof cacheRead === 'number') mapped.cachedInputTokens = cacheRead;
  const cacheWrite = usage?.cache_creation_input_tokens;
  if (typeof cacheWrite === 'number' && cacheWrite > 0) mapped.cacheWriteInputTokens = cacheWrite;
  const thinking = usage?.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') mapped.reasoningTokens = thinking;
  return mapped;
}

/** Merges a `message_delta` usage (cumulative counts) over the `message_start` usage. */
export function mergeAnthropicUsage(
  start: AnthropicUsageFields | null | undefined,
  delta: AnthropicUsageFields | null | undefined,
): AnthropicUsageFields {
  const merged: AnthropicUsageFields = { ...start };
  for (const [key, value] of Object.entries(delta ?? {}) as Array<[keyof AnthropicUsageFields, unknown]>) {
    if (value !== null && value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/**
 * Sums the usage of several requests (the responses of a turn continued after `pause_turn`: each
 * request is billed on its own).
 */
export function addAnthropicUsage(
  total: AnthropicUsageFields | null | undefined,
  more: AnthropicUsageFields | null | undefined,
): AnthropicUsageFields {
  if (!total) return { ...more };
  const sum = (a: number | null | undefined, b: number | null | undefined): number | null | undefined =>
    typeof a === 'number' || typeof b === 'number' ? (a ?? 0) + (b ?? 0) : (b ?? a);
  const summed: AnthropicUsageFields = {
    input_tokens: sum(total.input_tokens, more?.input_tokens),
    output_tokens: sum(total.output_tokens, more?.output_tokens),
    cache_creation_input_tokens: sum(total.cache_creation_input_tokens, more?.cache_creation_input_tokens),
    cache_read_input_tokens: sum(total.cache_read_input_tokens, more?.cache_read_input_tokens),
  };
  const thinking = sum(
    total.output_tokens_details?.thinking_tokens,
    more?.output_tokens_details?.thinking_tokens,
  );
  if (typeof thinking === 'number') summed.output_tokens_details = { thinking_tokens: thinking };
  return summed;
}
