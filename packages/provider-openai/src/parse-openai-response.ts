import type { FinishReason, ReasoningPart, Usage } from '@closedloop/model';
import type { ChatCompletionTokenLogprob } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';

/**
 * Finish reasons compatible servers and gateways send, by the OpenAI reason they mean (keys lower
 * case): TGI's `eos_token`, Anthropic/Bedrock reasons passed through by gateways (`end_turn`,
 * `stop_sequence`, `max_tokens`, `tool_use`), Mistral's `model_length`, Gemini's upper-case
 * reasons (`STOP`, `MAX_TOKENS`, `SAFETY`), the deprecated `function_call`.
 */
const finishReasonAliases: Readonly<Record<string, string>> = {
  eos: 'stop',
  eos_token: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  max_tokens: 'length',
  model_length: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  tool_call: 'tool_calls',
  function_call: 'tool_calls',
  safety: 'content_filter',
  recitation: 'content_filter',
  prohibited_content: 'content_filter',
  blocklist: 'content_filter',
  spii: 'content_filter',
};

/**
 * The OpenAI finish reason a server's `finish_reason` means (`stop`, `length`, `tool_calls`,
 * `content_filter`, or the value itself lower-cased when it has no alias); `undefined` for none
 * (`null`, `""`: Ollama and SGLang send `""` on chunks that do not finish).
 */
export function canonicalFinishReason(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  const lower = raw.toLowerCase();
  return finishReasonAliases[lower] ?? lower;
}

/**
 * Maps an OpenAI `finish_reason` (and the aliases compatible servers send, see
 * {@link canonicalFinishReason}). A response that carries tool calls is `tool-calls` even when
 * OpenAI says `stop` (it does when `tool_choice` forces a function) or sends no reason; a refusal
 * is `refusal`. Anything unrecognised is `unknown` (the raw value stays in `rawFinishReason`).
 */
export function mapOpenAIFinishReason(
  raw: string | null | undefined,
  options: { hasToolCalls?: boolean; refused?: boolean } = {},
): FinishReason {
  const reason = canonicalFinishReason(raw);
  switch (reason) {
    case 'stop':
      if (options.hasToolCalls) return 'tool-calls';
      return options.refused ? 'refusal' : 'stop';
    case 'tool_calls':
      return 'tool-calls';
    case 'length':
      return 'length';
    case 'error':
      return 'error';
    case 'content_filter':
      return 'content-filter';
    case undefined:
      return options.hasToolCalls ? 'tool-calls' : 'unknown';
    default:
      return 'unknown';
  }
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Maps Chat Completions usage, including reasoning and cached prompt tokens when reported, in
 * the shapes OpenAI-compatible servers use: `prompt_tokens_details.cached_tokens` (OpenAI, Azure,
 * xAI, OpenRouter), `prompt_cache_hit_tokens` (DeepSeek), `cache_read_input_tokens` /
 * `cache_creation_input_tokens` (Anthropic-backed gateways), `reasoning_tokens` at the top level.
 */
export function mapOpenAIUsage(usage: CompletionUsage | null | undefined): Usage {
  const raw = (usage ?? {}) as Record<string, unknown>;
  const inputTokens = count(raw.prompt_tokens) ?? count(raw.input_tokens) ?? 0;
  const outputTokens = count(raw.completion_tokens) ?? count(raw.output_tokens) ?? 0;
  const mapped: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: count(raw.total_tokens) ?? inputTokens + outputTokens,
  };
  const completionDetails = raw.completion_tokens_details as Record<string, unknown> | null | undefined;
  const reasoning = count(completionDetails?.reasoning_tokens) ?? count(raw.reasoning_tokens);
  if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
  const promptDetails = raw.prompt_tokens_details as Record<string, unknown> | null | undefined;
  const cached =
    count(promptDetails?.cached_tokens) ??
    count(raw.prompt_cache_hit_tokens) ??
    count(raw.cache_read_input_tokens);
  if (cached !== undefined) mapped.cachedInputTokens = cached;
  const written = count(promptDetails?.cache_write_tokens) ?? count(raw.cache_creation_input_tokens);
  if (written !== undefined && written > 0) mapped.cacheWriteInputTokens = written;
  return mapped;
}

/**
 * The usage object of a chunk or response in the places servers put it: `usage` (OpenAI),
 * `x_groq.usage` (Groq streams), `choices[0].usage` (some gateways).
 */
export function findUsage(payload: unknown): CompletionUsage | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const record = payload as Record<string, unknown>;
  const candidates = [
    record.usage,
    (record.x_groq as Record<string, unknown> | undefined)?.usage,
    (Array.isArray(record.choices) ? (record.choices[0] as Record<string, unknown> | undefined) : undefined)
      ?.usage,
  ];
  for (const candidate of candidates) {
    if (typeof candidate === 'object' && candidate !== null) return candidate as CompletionUsage;
  }
  return undefined;
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

/** Reasoning text and the field it came in. */
export interface CompatReasoning {
  text: string;
  field: string;
}

/**
 * Reasoning text OpenAI-compatible servers return next to `content`, from the first of `fields`
 * that holds a non-empty string (`reasoning_content` for DeepSeek, vLLM, xAI; `reasoning` for
 * Ollama, Groq, OpenRouter).
 */
export function compatReasoning(
  message: unknown,
  fields: readonly string[] = ['reasoning_content', 'reasoning'],
): CompatReasoning | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const record = message as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return { text: value, field };
  }
  return undefined;
}

/**
 * Reasoning text some OpenAI-compatible servers (vLLM, Ollama, DeepSeek) return as
 * `reasoning_content` or `reasoning` next to `content`.
 */
export function compatReasoningText(message: unknown): string | undefined {
  return compatReasoning(message)?.text;
}

/** Text of a nested content value: a string, `{ text }`, or an array of those. */
function nestedText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(nestedText).join('');
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.text === 'string') return record.text;
    if (record.thinking !== undefined) return nestedText(record.thinking);
    if (record.content !== undefined) return nestedText(record.content);
  }
  return '';
}

const reasoningPartTypes = new Set(['thinking', 'reasoning', 'reasoning_text', 'thought']);
const textPartTypes = new Set(['text', 'output_text']);

/**
 * Splits a `content` value into answer text and reasoning. A string is all text. An array of
 * parts (Mistral's magistral: `{ type: 'thinking', thinking: [{ type: 'text', text }] }` then
 * `{ type: 'text', text }`) gives the text parts as text and thinking/reasoning parts as
 * reasoning; other part types (references, images) are skipped.
 */
export function splitContent(content: unknown): { text: string; reasoning: string } {
  if (typeof content === 'string') return { text: content, reasoning: '' };
  if (!Array.isArray(content)) return { text: '', reasoning: '' };
  let text = '';
  let reasoning = '';
  for (const part of content) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    if (typeof part !== 'object' || part === null) continue;
    const record = part as Record<string, unknown>;
    const type = typeof record.type === 'string' ? record.type : 'text';
    if (reasoningPartTypes.has(type)) {
      reasoning += nestedText(record.thinking ?? record.reasoning ?? record.text ?? record.content);
    } else if (textPartTypes.has(type) && typeof record.text === 'string') {
      text += record.text;
    }
  }
  return { text, reasoning };
}

/** `[{ text }]` (with the wire field it came in) or `undefined`. */
export function reasoningParts(text: string | undefined, field?: string): ReasoningPart[] | undefined {
  if (text === undefined || text === '') return undefined;
  return [field ? { text, providerData: { field } } : { text }];
}

/**
 * The error a chunk or a 200 response body carries instead of a completion: `{ error: {…} }`
 * (a non-streamed 200 with an error body; in streams the SDK throws these itself), `{ error: '…' }`
 * or `{ detail: '…' }` without `choices` (LM Studio's 200 for a path it does not serve is a 404),
 * `{ object: 'error', … }` (vLLM, some gateways), or a body with no `choices` but an error
 * `message` and `code`/`type`. `undefined` for a completion.
 */
export function errorPayload(chunk: unknown): Record<string, unknown> | undefined {
  if (typeof chunk !== 'object' || chunk === null) return undefined;
  const record = chunk as Record<string, unknown>;
  if (record.choices === undefined && typeof record.error === 'object' && record.error !== null) {
    return record.error as Record<string, unknown>;
  }
  if (record.object === 'error') return record;
  if (record.choices === undefined) {
    // `{ "error": "…" }` (LM Studio, Ollama-style servers) or FastAPI's `{ "detail": "…" }` with 200.
    const text = nonEmptyString(record.error) ?? nonEmptyString(record.detail);
    if (text !== undefined) {
      // LM Studio answers a path it does not serve with 200 and this text: a wrong baseURL, a 404.
      return /^Unexpected endpoint or method/i.test(text)
        ? { message: text, code: 404, type: 'not_found_error' }
        : { message: text };
    }
  }
  if (record.choices !== undefined || (record.code === undefined && record.type === undefined))
    return undefined;
  if (typeof record.message === 'string') return record;
  // `event: error` + `{ "code": 400, "details": "…" }` (vLLM/TGIS behind an orchestrator).
  return typeof record.details === 'string' ? { ...record, message: record.details } : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

type Detail = Record<string, unknown>;

/**
 * Merges streamed `reasoning_details` items (OpenRouter) into the list so far: an item continues
 * the one with the same `index` (or, without one, the last item of its type) — its `text`,
 * `summary` and `data` strings are appended, other fields (`id`, `format`, `signature`) taken.
 */
export function mergeReasoningDetails(into: Detail[], incoming: unknown): Detail[] {
  if (!Array.isArray(incoming)) return into;
  for (const raw of incoming) {
    if (typeof raw !== 'object' || raw === null) continue;
    const item = raw as Detail;
    const existing =
      typeof item.index === 'number'
        ? into.find((detail) => detail.index === item.index)
        : into.findLast((detail) => detail.type === item.type);
    if (!existing) {
      into.push({ ...item });
      continue;
    }
    for (const [key, value] of Object.entries(item)) {
      if ((key === 'text' || key === 'summary' || key === 'data') && typeof value === 'string') {
        existing[key] = `${typeof existing[key] === 'string' ? existing[key] : ''}${value}`;
      } else if (value !== null && value !== undefined) existing[key] = value;
    }
  }
  return into;
}
