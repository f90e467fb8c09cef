import { z } from 'zod';

const effort = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);

/**
 * The typed options `request.providerOptions.openai` (or `providerOptions[<provider id>]`) may
 * carry for the Chat Completions and Responses adapters. Unknown keys are rejected with a
 * `ModelError('bad-request')` listing these; raw API fields the adapter does not type go in
 * `extraBody` (merged into the request body last, verbatim).
 */
export const openAIRequestOptionsSchema = z.strictObject({
  /** End-user id for abuse monitoring (`user`). */
  user: z.string().optional(),
  /** Stable id of the end user (`safety_identifier`). */
  safetyIdentifier: z.string().optional(),
  /** Request metadata (`metadata`, up to 16 string pairs). */
  metadata: z.record(z.string(), z.string()).optional(),
  /** Store the completion/response at the provider (`store`). The Responses adapter defaults to `false`. */
  store: z.boolean().optional(),
  topP: z.number().min(0).max(1).optional(),
  /** Top-k sampling (OpenAI-compatible servers such as vLLM, Ollama, Together; OpenAI rejects it). */
  topK: z.number().int().positive().optional(),
  frequencyPenalty: z.number().min(-2).max(2).optional(),
  presencePenalty: z.number().min(-2).max(2).optional(),
  logitBias: z.record(z.string(), z.number()).optional(),
  /** Same as the request's `reasoningEffort` (the request wins). */
  reasoningEffort: effort.optional(),
  /** Same as the request's `serviceTier` (the request wins). */
  serviceTier: z.enum(['auto', 'default', 'flex', 'priority']).optional(),
  /** Same as the request's `verbosity` (the request wins). */
  verbosity: z.enum(['low', 'medium', 'high']).optional(),
  /** Same as the request's `seed` (the request wins). */
  seed: z.number().int().optional(),
  /** Same as the request's `promptCache.key` (the request wins). */
  promptCacheKey: z.string().min(1).optional(),
  /** `prompt_cache_retention`: `in_memory` (default) or `24h` extended caching. */
  promptCacheRetention: z.enum(['in_memory', '24h']).optional(),
  /** Raw fields merged into the request body last, verbatim (for API fields not typed here). */
  extraBody: z.record(z.string(), z.unknown()).optional(),
});

/** What {@link openAIRequestOptionsSchema} accepts. */
export type OpenAIRequestOptions = z.infer<typeof openAIRequestOptionsSchema>;
