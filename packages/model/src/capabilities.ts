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
}
