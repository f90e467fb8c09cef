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
import OpenAI from 'openai';
import type { OpenAIChatSettings } from './build-openai-request';
import type { OpenAIResponsesSettings } from './build-responses-request';
import { OpenAIChatModel } from './openai-chat-model';
import {
  genericCompatibleProfile,
  type OpenAICompatibleProfile,
  type OpenAICompatibleProfileName,
  openAICompatibleProfiles,
  profileForBaseURL,
} from './openai-compatible-profiles';
import { OpenAIResponsesModel } from './openai-responses-model';
import { withOpenAIErrorBodies } from './with-openai-error-bodies';
import { withoutEmptyEvents } from './without-empty-events';

/** Model ids with known capabilities (autocompleted); any other string is accepted too. */
export type OpenAIChatModelId =
  | 'gpt-4.1'
  | 'gpt-4.1-mini'
  | 'gpt-4.1-nano'
  | 'gpt-4o'
  | 'gpt-4o-mini'
  | 'gpt-5'
  | 'gpt-5-mini'
  | 'gpt-5-nano'
  | 'o1'
  | 'o3'
  | 'o3-mini'
  | 'o4-mini'
  | (string & {});

/** Options of {@link createOpenAI}. Every field is optional. */
export interface OpenAIProviderOptions {
  /**
   * API key. Default: the `OPENAI_API_KEY` environment variable, read at the first request (never
   * at import) — but only for the provider named `openai`: an OpenAI-compatible server never
   * receives your OpenAI key unless you pass it here.
   */
  apiKey?: string;
  /**
   * Base URL of the API, including the version path. Default `https://api.openai.com/v1`.
   * Set it for OpenAI-compatible servers: Ollama `http://localhost:11434/v1`, vLLM
   * `http://localhost:8000/v1`, LM Studio `http://localhost:1234/v1`.
   */
  baseURL?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** A `fetch` implementation (proxies, tests, instrumentation). Default: the global `fetch`. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** `OpenAI-Organization` header. */
  organization?: string;
  /** `OpenAI-Project` header. */
  project?: string;
  /**
   * Provider id reported by the models and their errors. Default `openai`; with a `baseURL`, the
   * hosted provider it points at (`deepseek`, `mistral`, `groq`, `xai`, `openrouter`, `together`,
   * `fireworks`, `gemini`, `azure`), else `openai-compatible`; with a `profile`, its name.
   */
  name?: string;
  /**
   * The server's quirks (reasoning fields and how reasoning goes back, content arrays, token and
   * seed field names, tool-call id rules, strict tools, service tiers). Default: chosen from the
   * `baseURL` (hostname, or the usual port of a local server: 11434 Ollama, 8000 vLLM, 1234 LM
   * Studio), else from `name` when it is a profile name, else the generic profile. A name also
   * gives the default `baseURL` and API-key variable (`createOpenAI({ profile: 'deepseek' })`
   * reads `DEEPSEEK_API_KEY`).
   */
  profile?: OpenAICompatibleProfileName | OpenAICompatibleProfile;
  /** Per-request timeout in ms (until the response headers arrive). Default 600 000. */
  timeoutMs?: number;
  /**
   * Bytes of one response body, streamed or whole, past which it is cut with a non-retryable
   * `invalid-response` (a server that never stops sending would otherwise fill the memory).
   * Default 128 MiB.
   */
  maxResponseBytes?: number;
  /**
   * Longest silence of a stream (Chat Completions or Responses) between two events, in ms
   * (keep-alive comments do not count): a longer one cancels the request with a retryable
   * `network` error. Default 120 000; `0` turns it off. Once the `finish_reason` (or
   * `response.completed`) arrived, the stream ends as the answer after 1 s of silence even when
   * the server never sends `[DONE]` nor closes it.
   */
  streamIdleTimeoutMs?: number;
}

/** A configured OpenAI provider: call it with a model id to get a `ChatModel`. */
export interface OpenAIProvider {
  (modelId: OpenAIChatModelId, settings?: OpenAIChatSettings): OpenAIChatModel;
  /** Same as calling the provider. */
  chat(modelId: OpenAIChatModelId, settings?: OpenAIChatSettings): OpenAIChatModel;
  /**
   * A model over the Responses API (`/responses`): reasoning items carried statelessly across
   * tool steps (`store: false`, encrypted reasoning content), reasoning summaries, structured
   * output, function tools, usage with reasoning and cached tokens.
   */
  responses(modelId: OpenAIChatModelId, settings?: OpenAIResponsesSettings): OpenAIResponsesModel;
  /** The provider id its models report (`openai`, `openai-compatible`, or the `name` option). */
  readonly provider: string;
}

const defaultBaseURL = 'https://api.openai.com/v1';

/**
 * Creates an OpenAI provider over the official `openai` SDK. The SDK client is created at the
 * first request with `maxRetries: 0`: retries belong to closedloop's one policy (`withRetry`,
 * `generate`), so attempts never multiply.
 *
 * @example
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const model = openai('gpt-4.1');
 *
 * @example
 * // A local OpenAI-compatible server (provider id `openai-compatible`).
 * const ollama = createOpenAI({ baseURL: 'http://localhost:11434/v1' });
 * const model = ollama('llama3.1');
 */
export function createOpenAI(options: OpenAIProviderOptions = {}): OpenAIProvider {
  const { profile, provider } = resolveProfile(options);
  const baseURL = options.baseURL ?? profile.defaultBaseURL ?? defaultBaseURL;
  checkProviderOptions({
    factory: 'createOpenAI',
    provider,
    baseURL: options.baseURL,
    baseURLExample: 'http://localhost:11434/v1',
    timeoutMs: options.timeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
  });
  const usesOpenAIKey = provider === 'openai';
  // Only the provider's own key variable: an OpenAI key never goes to another server.
  const keyVariable = usesOpenAIKey
    ? 'OPENAI_API_KEY'
    : profile.name === provider || options.profile !== undefined
      ? profile.apiKeyEnvironmentVariable
      : undefined;
  const needsKey = usesOpenAIKey || (keyVariable !== undefined && profile.localPorts === undefined);
  let client: OpenAI | undefined;
  let apiKey: string | undefined = options.apiKey;
  // Every redactor of the process removes the configured key from tool output, events and logs.
  registerSecret(apiKey);

  const getClient = (): OpenAI => {
    if (client) return client;
    apiKey = options.apiKey ?? (keyVariable ? environmentVariable(keyVariable) : undefined);
    registerSecret(apiKey);
    if (!apiKey && needsKey) {
      throw new ModelError({
        code: 'auth',
        message: `${provider}: no API key. Set the ${keyVariable} environment variable or pass createOpenAI({ apiKey }).`,
        isRetryable: false,
        provider,
      });
    }
    const baseFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const boundedFetch = withBoundedResponses(baseFetch, {
      maxBytes: options.maxResponseBytes ?? defaultMaxResponseBytes,
      provider,
    });
    // Every stream gets the shared repair (line endings, the last event, empty `data:` lines,
    // data-less events, nothing after `[DONE]`); compatible servers' streams also get
    // `withoutEmptyEvents` (one JSON value sent as a stream, whether `[DONE]` came).
    client = new OpenAI({
      // Local OpenAI-compatible servers usually need no key; the SDK insists on one.
      apiKey: apiKey ?? 'no-key',
      baseURL,
      // Explicit nulls keep OPENAI_ORG_ID / OPENAI_PROJECT_ID away from third-party servers.
      organization: options.organization ?? (usesOpenAIKey ? undefined : null),
      project: options.project ?? (usesOpenAIKey ? undefined : null),
      maxRetries: 0,
      timeout: options.timeoutMs ?? 600_000,
      fetch: withOpenAIErrorBodies(
        usesOpenAIKey
          ? withRepairedEventStreams(boundedFetch)
          : withoutEmptyEvents(withRepairedEventStreams(boundedFetch)),
      ),
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
    return client;
  };

  const config = {
    provider,
    client: getClient,
    secrets: (): readonly string[] => (apiKey ? [apiKey] : []),
    profile,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? defaultStreamIdleTimeoutMs,
  };

  const create = (modelId: OpenAIChatModelId, settings: OpenAIChatSettings = {}): OpenAIChatModel => {
    checkModelId({ factory: 'createOpenAI', provider, modelId });
    return new OpenAIChatModel({
      modelId,
      settings,
      capabilities: resolveCapabilities({
        provider,
        modelId,
        ...(settings.capabilities ? { overrides: settings.capabilities } : {}),
      }),
      config,
    });
  };
  const responses = (
    modelId: OpenAIChatModelId,
    settings: OpenAIResponsesSettings = {},
  ): OpenAIResponsesModel => {
    checkModelId({ factory: 'createOpenAI', provider, modelId });
    return new OpenAIResponsesModel({
      modelId,
      settings,
      capabilities: resolveCapabilities({
        provider,
        modelId,
        ...(settings.capabilities ? { overrides: settings.capabilities } : {}),
      }),
      config,
    });
  };
  const providerFunction = (modelId: OpenAIChatModelId, settings?: OpenAIChatSettings) =>
    create(modelId, settings);
  return Object.assign(providerFunction, { chat: create, responses, provider });
}

/**
 * The profile and provider id for the options: an explicit `profile`, else the `baseURL`'s
 * (hostname or local port), else the profile named by `name`, else `openai` (no `baseURL`) or the
 * generic one. The provider id is `name`, else the profile's name when the profile was chosen
 * explicitly or by hostname, else `openai-compatible` (local servers found by port keep it).
 */
function resolveProfile(options: OpenAIProviderOptions): {
  profile: OpenAICompatibleProfile;
  provider: string;
} {
  const explicit =
    typeof options.profile === 'string' ? openAICompatibleProfiles[options.profile] : options.profile;
  if (options.profile !== undefined && explicit === undefined) {
    throw new ModelError({
      code: 'bad-request',
      message: `createOpenAI: unknown profile ${JSON.stringify(options.profile)}; expected one of ${Object.keys(openAICompatibleProfiles).join(', ')} or a profile object`,
      provider: options.name ?? 'openai-compatible',
    });
  }
  if (explicit) return { profile: explicit, provider: options.name ?? explicit.name };
  const byURL = options.baseURL !== undefined ? profileForBaseURL(options.baseURL) : undefined;
  if (byURL) {
    return {
      profile: byURL.profile,
      provider: options.name ?? (byURL.byHost ? byURL.profile.name : 'openai-compatible'),
    };
  }
  const byName =
    options.name !== undefined
      ? openAICompatibleProfiles[options.name as OpenAICompatibleProfileName]
      : undefined;
  if (byName) return { profile: byName, provider: options.name as string };
  if (options.baseURL === undefined)
    return { profile: openAICompatibleProfiles.openai, provider: options.name ?? 'openai' };
  return { profile: genericCompatibleProfile, provider: options.name ?? 'openai-compatible' };
}

/**
 * The default OpenAI provider. Reads `OPENAI_API_KEY` at its first request (not at import);
 * without it, calls fail with `ModelError` code `auth`.
 *
 * @example
 * import { openai } from '@closedloop/provider-openai';
 * const result = await generate(openai('gpt-4.1'), { messages: [{ role: 'user', content: 'Hi' }] });
 */
export const openai: OpenAIProvider = createOpenAI();
