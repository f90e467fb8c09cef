/** What a model can do. Drives structured-output strategy, the tool-call guard and streaming. */
export interface ModelCapabilities {
  toolCalling: boolean;
  parallelToolCalls: boolean;
  streaming: boolean;
  /** Native strict JSON-schema structured output. */
  structuredOutput: boolean;
  /** Token logprobs, turned into a confidence signal. */
  logprobs: boolean;
  reasoning: boolean;
  vision: boolean;
  contextWindow: number;
  maxOutputTokens: number;
  /**
   * Whether the model accepts `temperature` (OpenAI reasoning models reject it). Absent means
   * true: adapters drop `temperature` only when this is `false`.
   */
  supportsTemperature?: boolean;
  /**
   * The OpenAI-style request field for the output-token limit (`max_completion_tokens` for
   * OpenAI's current API, `max_tokens` for older OpenAI-compatible servers). Absent: the
   * adapter's default.
   */
  maxTokensParameter?: 'max_tokens' | 'max_completion_tokens';
}
