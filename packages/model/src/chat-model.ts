import type { ModelCapabilities } from './capabilities';

/** A JSON Schema object (draft 2020-12 or 7), as produced by `z.toJSONSchema`. */
export type JsonSchema = Record<string, unknown>;

/** A tool call the model asked for. `arguments` is the parsed JSON (or the raw text when unparsable). */
export interface ToolCall {
  /** Provider's call id. Adapters generate one (`call_N`) when the provider sends none. */
  id: string;
  name: string;
  arguments: unknown;
  /** The raw argument text as the provider sent it. */
  rawArguments: string;
  /**
   * Opaque provider data the adapter that produced the call needs to send it back (e.g. a
   * Gemini thought signature through the AI SDK bridge). JSON-serialisable; others ignore it.
   */
  providerData?: Record<string, unknown>;
}

/**
 * Reasoning/thinking content of an assistant turn. Keep it on the assistant message when the
 * conversation goes on: adapters send it back where the provider needs it (Anthropic thinking
 * blocks, OpenAI Responses reasoning items, DeepSeek `reasoning_content` in tool loops).
 */
export interface ReasoningPart {
  text: string;
  /** Provider signature, encrypted content or redacted payload that must round-trip unchanged. */
  signature?: string;
  redacted?: boolean;
  /**
   * Opaque provider data the adapter that produced the part needs to send it back (the wire field
   * it came in, an item id). JSON-serialisable; other adapters ignore it.
   */
  providerData?: Record<string, unknown>;
}

/** Text inside a multi-part message. */
export interface TextContentPart {
  type: 'text';
  text: string;
}

/**
 * An image: base64 `data` (with `mediaType`, e.g. `image/png`) or a `url` (https or a `data:` URL).
 * Exactly one of `data` and `url`.
 */
export interface ImageContentPart {
  type: 'image';
  mediaType?: string;
  data?: string;
  url?: string;
  /** OpenAI's image detail level; other providers ignore it. */
  detail?: 'auto' | 'low' | 'high';
}

/**
 * A file, e.g. a PDF (`mediaType: 'application/pdf'`): base64 `data` or a `url`, exactly one of
 * them.
 */
export interface FileContentPart {
  type: 'file';
  mediaType: string;
  data?: string;
  url?: string;
  filename?: string;
}

/** A part of a multi-part user message. */
export type ContentPart = TextContentPart | ImageContentPart | FileContentPart;

export type ChatMessage =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      /** The message's text (may be `''` when `parts` carry everything). */
      content: string;
      /**
       * More content after `content`, in order: text, images, files (PDFs). Adapters send
       * `content` (when not empty) followed by these parts.
       */
      parts?: ContentPart[];
    }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; reasoning?: ReasoningPart[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /**
   * Strict schema adherence (OpenAI strict functions, Anthropic strict tool use). Default: on
   * whenever the schema allows it (every object closed and fully required, no unsupported
   * keywords), off otherwise; `false` never asks for it.
   */
  strict?: boolean;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

/** How hard a reasoning model thinks. Adapters map it to the provider's setting or reject it. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Processing tier. `auto`: the provider's default routing (may use priority/scale capacity);
 * `default`: standard capacity only; `flex`: cheaper, slower (OpenAI); `priority`: faster,
 * pricier (OpenAI).
 */
export type ServiceTier = 'auto' | 'default' | 'flex' | 'priority';

/**
 * Prompt caching. On by default: adapters mark the stable prefix (tools, system, the latest
 * turns) as cacheable where the provider needs it (Anthropic `cache_control`) and send a cache
 * routing key where it helps (OpenAI `prompt_cache_key`). `false` turns it off for the request.
 */
export type PromptCacheOptions =
  | false
  | {
      /** Routing key for providers that take one (OpenAI `prompt_cache_key`). Default: derived from the model, system prompt and tools. */
      key?: string;
      /** Cache lifetime where the provider offers a choice (Anthropic `5m` default, `1h`). */
      ttl?: '5m' | '1h';
    };

/** One request to a chat model. */
export interface GenerateRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  toolChoice?: ToolChoice;
  /** Ask for a JSON answer; with `schema` and a capable model, native strict structured output. */
  responseFormat?: { type: 'json'; schema?: JsonSchema; name?: string; description?: string };
  temperature?: number;
  maxOutputTokens?: number;
  /** Ask for token logprobs so the result carries a `confidence`. */
  logprobs?: boolean;
  /** Allow more than one tool call in one response (default: the model's capability). */
  parallelToolCalls?: boolean;
  /** Stop generating at any of these strings (up to 4 for OpenAI). */
  stopSequences?: string[];
  /** Sampling seed, for best-effort reproducibility (providers that support it). */
  seed?: number;
  /** Reasoning effort for reasoning models. */
  reasoningEffort?: ReasoningEffort;
  /** Processing tier (OpenAI `service_tier`, Anthropic `service_tier`). */
  serviceTier?: ServiceTier;
  /** Answer length/detail for models that support it (OpenAI gpt-5 `verbosity`). */
  verbosity?: 'low' | 'medium' | 'high';
  /** Prompt caching; on unless `false`. */
  promptCache?: PromptCacheOptions;
  /**
   * Provider-specific options, keyed by provider name: `{ openai: { user: 'u-1' } }`. Each adapter
   * validates its own key against its typed options and rejects unknown ones
   * (`ModelError('bad-request')`); options for other providers are ignored.
   */
  providerOptions?: Record<string, Record<string, unknown>>;
}

export type FinishReason =
  | 'stop'
  | 'tool-calls'
  | 'length'
  | 'content-filter'
  | 'refusal'
  | 'error'
  | 'other'
  | 'unknown';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  reasoningTokens?: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`). */
  cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (part of `inputTokens`; Anthropic bills them at a premium). */
  cacheWriteInputTokens?: number;
}

export interface GenerateResult {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** The provider's own finish/stop reason string, unmapped. */
  rawFinishReason?: string;
  usage: Usage;
  reasoning?: ReasoningPart[];
  /** 0..1 from token logprobs when the provider returned them. */
  confidence?: number;
  response?: { id?: string; modelId?: string; requestId?: string };
  /** Request settings the adapter could not honour for this model and left out (never fatal). */
  warnings?: string[];
}

/** Parts of a streamed response. A stream always ends with exactly one `finish` part or throws. */
export type StreamPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'tool-call'; toolCall: ToolCall }
  | { type: 'finish'; result: GenerateResult };

export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * The provider-neutral chat model contract. Adapters implement it; everything in closedloop
 * talks to models only through it. Implementations throw `ModelError` for every failure.
 */
export interface ChatModel {
  readonly specificationVersion: 'v1';
  /** `openai`, `anthropic`, `openai-compatible`, `scripted`… */
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  doGenerate(request: GenerateRequest, options?: CallOptions): Promise<GenerateResult>;
  doStream(request: GenerateRequest, options?: CallOptions): AsyncIterable<StreamPart>;
}
