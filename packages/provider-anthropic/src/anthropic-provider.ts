import Anthropic from '@anthropic-ai/sdk';
import { ModelError, registerSecret, resolveCapabilities } from '@closedloop/model';
import {
  checkModelId,
  checkProviderOptions,
  defaultMaxResponseBytes,
  defaultStreamIdleTimeoutMs,
  environmentVariable,
  withBoundedResponses,
  withRepairedEventStreams,
} from '@closedloop/model/provider';
import { AnthropicChatModel } from './anthropic-chat-model';
import type { AnthropicChatSettings } from './build-anthropic-request';
import { withAnthropicEventNames } from './with-anthropic-event-names';

/** Model ids with known capabilities (autocompleted); any other string is accepted too. */
export type AnthropicChatModelId =
  | 'claude-sonnet-4-6'
  | 'claude-opus-4-6'
  | 'claude-sonnet-4-5'
  | 'claude-opus-4-5'
  | 'claude-haiku-4-5'
  | 'claude-opus-4-1'
  | 'claude-sonnet-4-0'
  | 'claude-opus-4-0'
  | (string & {});

/** Options of {@link createAnthropic}. Every field is optional. */
export interface AnthropicProviderOptions {
  /** API key. Default: the `ANTHROPIC_API_KEY` environment variable, read at the first request. */
  apiKey?: string;
  /** Base URL without the `/v1` path. Default `https://api.anthropic.com`. */
  baseURL?: string;
  /** Extra headers sent with every request (e.g. `anthropic-beta`). */
  headers?: Record<string, string>;
  /** A `fetch` implementation (proxies, tests, instrumentation). Default: the global `fetch`. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Provider id reported by the models and their errors. Default `anthropic`. */
  name?: string;
  /** Per-request timeout in ms (until the response headers arrive). Default 600 000. */
  timeoutMs?: number;
  /**
   * Bytes of one response body, streamed or whole, past which it is cut with a non-retryable
   * `invalid-response` (a server that never stops sending would otherwise fill the memory).
   * Default 128 MiB.
   */
  maxResponseBytes?: number;
  /**
   * Longest silence of a stream between two events, in ms (pings do not count): a longer one
   * cancels the request with a retryable `network` error. Default 120 000; `0` turns it off.
   * Once the final `message_delta` arrived, the stream ends as the answer after 1 s of silence
   * even when the server never closes it.
   */
  streamIdleTimeoutMs?: number;
}

/** A configured Anthropic provider: call it with a model id to get a `ChatModel`. */
export interface AnthropicProvider {
  (modelId: AnthropicChatModelId, settings?: AnthropicChatSettings): AnthropicChatModel;
  /** Same as calling the provider. */
  chat(modelId: AnthropicChatModelId, settings?: AnthropicChatSettings): AnthropicChatModel;
  /** The provider id its models report. */
  readonly provider: string;
}

const defaultBaseURL = 'https://api.anthropic.com';

/**
 * Creates an Anthropic provider over the official `@anthropic-ai/sdk`. The SDK client is created
 * at the first request with `maxRetries: 0`: retries belong to closedloop's one policy
 * (`withRetry`, `generate`), so attempts never multiply.
 *
 * Capabilities are exactly what `resolveCapabilities` says for the model id (the table in
 * `@closedloop/model` is the one source of truth; per-model `capabilities` overrides apply on
 * top). Known Claude models have `structuredOutput: true`, which this adapter implements with a
 * forced tool; turn it off per model to use `generateObject`'s JSON-in-text path.
 *
 * @example
 * const anthropic = createAnthropic({ apiKey: process.env.ANTHROPIC_API_KEY });
 * const model = anthropic('claude-sonnet-4-5');
 */
export function createAnthropic(options: AnthropicProviderOptions = {}): AnthropicProvider {
  const provider = options.name ?? 'anthropic';
  checkProviderOptions({
    factory: 'createAnthropic',
    provider,
    baseURL: options.baseURL,
    baseURLExample: 'https://api.anthropic.com',
    timeoutMs: options.timeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
  });
  let client: Anthropic | undefined;
  let apiKey: string | undefined = options.apiKey;
  // Every redactor of the process removes the configured key from tool output, events and logs.
  registerSecret(apiKey);

  const getClient = (): Anthropic => {
    if (client) return client;
    apiKey = options.apiKey ?? environmentVariable('ANTHROPIC_API_KEY');
    registerSecret(apiKey);
    if (!apiKey) {
      throw new ModelError({
        code: 'auth',
        message: `${provider}: no API key. Set the ANTHROPIC_API_KEY environment variable or pass createAnthropic({ apiKey }).`,
        isRetryable: false,
        provider,
      });
    }
    const gateway = new URL(options.baseURL ?? defaultBaseURL).host !== new URL(defaultBaseURL).host;
    const boundedFetch = withBoundedResponses(
      options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      { maxBytes: options.maxResponseBytes ?? defaultMaxResponseBytes, provider },
    );
    client = new Anthropic({
      apiKey,
      // Only the API key authenticates: no ANTHROPIC_AUTH_TOKEN bearer, no config-file profile.
      authToken: null,
      baseURL: options.baseURL ?? defaultBaseURL,
      maxRetries: 0,
      // Always explicit: the SDK otherwise refuses non-streaming requests with a large max_tokens.
      timeout: options.timeoutMs ?? 600_000,
      // Event streams without `event:` lines (some compatible gateways) get Anthropic's names;
      // Anthropic's own API always names them, so its streams skip the (≈ 0.15 ms) rewrite.
      // Every body is bounded (an answer that never ends would fill the memory), and every event
      // stream repaired (any line ending; a last event without its closing blank line kept).
      fetch: gateway
        ? withAnthropicEventNames(withRepairedEventStreams(boundedFetch))
        : withRepairedEventStreams(boundedFetch),
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
    return client;
  };

  const config = {
    provider,
    client: getClient,
    secrets: (): readonly string[] => (apiKey ? [apiKey] : []),
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? defaultStreamIdleTimeoutMs,
  };

  const create = (
    modelId: AnthropicChatModelId,
    settings: AnthropicChatSettings = {},
  ): AnthropicChatModel => {
    checkModelId({ factory: 'createAnthropic', provider, modelId });
    return new AnthropicChatModel({
      modelId,
      settings,
      capabilities: resolveCapabilities({
        // The capability table knows Anthropic models under `anthropic`, whatever this provider is named.
        provider: 'anthropic',
        modelId,
        ...(settings.capabilities ? { overrides: settings.capabilities } : {}),
      }),
      config,
    });
  };
  const providerFunction = (modelId: AnthropicChatModelId, settings?: AnthropicChatSettings) =>
    create(modelId, settings);
  return Object.assign(providerFunction, { chat: create, provider });
}

/**
 * The default Anthropic provider. Reads `ANTHROPIC_API_KEY` at its first request (not at
 * import); without it, calls fail with `ModelError` code `auth`.
 *
 * @example
 * import { anthropic } from '@closedloop/provider-anthropic';
 * const result = await generate(anthropic('claude-sonnet-4-5'), { messages: [{ role: 'user', content: 'Hi' }] });
 */
export const anthropic: AnthropicProvider = createAnthropic();
