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
}

/** Reasoning/thinking content that must be sent back verbatim on later turns (Anthropic thinking). */
export interface ReasoningPart {
  text: string;
  /** Provider signature or redacted payload that must round-trip unchanged. */
  signature?: string;
  redacted?: boolean;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; reasoning?: ReasoningPart[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

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
  /** Provider-specific extras, keyed by provider name: `{ openai: {...} }`. */
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
  cachedInputTokens?: number;
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
