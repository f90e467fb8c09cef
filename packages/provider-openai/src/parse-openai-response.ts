import type { FinishReason, ReasoningPart, Usage } from '@closedloop/model';
import type { ChatCompletionTokenLogprob } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';

/**
 * Maps an OpenAI `finish_reason`. A response that carries tool calls is `tool-calls` even when
 * OpenAI says `stop` (it does when `tool_choice` forces a function); a refusal is `refusal`.
 * Anything unrecognised is `unknown` (the raw value stays in `rawFinishReason`).
 */
export function mapOpenAIFinishReason(
  raw: string | null | undefined,
  options: { hasToolCalls?: boolean; refused?: boolean } = {},
): FinishReason {
  switch (raw) {
    case 'stop':
      if (options.hasToolCalls) return 'tool-calls';
      return options.refused ? 'refusal' : 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'unknown';
  }
}

/** Maps Chat Completions usage, including reasoning and cached prompt tokens when reported. */
export function mapOpenAIUsage(usage: CompletionUsage | null | undefined): Usage {
  const inputTokens = usage?.prompt_tokens ?? 0;
  const outputTokens = usage?.completion_tokens ?? 0;
  const mapped: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: usage?.total_tokens ?? inputTokens + outputTokens,
  };
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') mapped.reasoningTokens = reasoning;
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number') mapped.cachedInputTokens = cached;
  return mapped;
}

/**
 * Mean token probability from token logprobs: `exp(mean(logprob))`, in [0, 1]; `undefined`
 * when there are no tokens.
 */
export function confidenceFromLogprobs(
  tokens: ReadonlyArray<Pick<ChatCompletionTokenLogprob, 'logprob'>> | null | undefined,
): number | undefined {
  if (!tokens || tokens.length === 0) return undefined;
  let sum = 0;
  for (const token of tokens) sum += token.logprob;
  const value = Math.exp(sum / tokens.length);
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : undefined;
}

/**
 * Reasoning text some OpenAI-compatible servers (vLLM, Ollama, DeepSeek) return as
 * `reasoning_content` or `reasoning` next to `content`.
 */
export function compatReasoningText(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const record = message as Record<string, unknown>;
  const value = record.reasoning_content ?? record.reasoning;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `[{ text }]` or `undefined`. */
export function reasoningParts(text: string | undefined): ReasoningPart[] | undefined {
  return text === undefined || text === '' ? undefined : [{ text }];
}
