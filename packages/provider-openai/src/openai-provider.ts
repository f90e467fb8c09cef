import {
  checkModelId,
  checkProviderOptions,
  environmentVariable,
  ModelError,
  registerSecret,
  resolveCapabilities,
} from '@closedloop/model';
import OpenAI from 'openai';
import type { OpenAIChatSettings } from './build-openai-request';
import { OpenAIChatModel } from './openai-chat-model';

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
   * Provider id reported by the models and their errors. Default `openai`, or
   * `openai-compatible` when `baseURL` is given.
   */
  name?: string;
  /** Per-request timeout in ms (until the response headers arrive). Default 600 000. */
  timeoutMs?: number;
}

/** A configured OpenAI provider: call it with a model id to get a `ChatModel`. */
export interface OpenAIProvider {
  (modelId: OpenAIChatModelId, settings?: OpenAIChatSettings): OpenAIChatModel;
  /** Same as calling the provider. */
  chat(modelId: OpenAIChatModelId, settings?: OpenAIChatSettings): OpenAIChatModel;
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
  const provider = options.name ?? (options.baseURL !== undefined ? 'openai-compatible' : 'openai');
  checkProviderOptions({
    factory: 'createOpenAI',
    provider,
    baseURL: options.baseURL,
    baseURLExample: 'http://localhost:11434/v1',
    timeoutMs: options.timeoutMs,
  });
  const usesOpenAIKey = provider === 'openai';
  let client: OpenAI | undefined;
  let apiKey: string | undefined = options.apiKey;
  // Every redactor of the process removes the configured key from tool output, events and logs.
  registerSecret(apiKey);

  const getClient = (): OpenAI => {
    if (client) return client;
    apiKey = options.apiKey ?? (usesOpenAIKey ? environmentVariable('OPENAI_API_KEY') : undefined);
    registerSecret(apiKey);
    if (!apiKey && usesOpenAIKey) {
      throw new ModelError({
        code: 'auth',
        message:
          'openai: no API key. Set the OPENAI_API_KEY environment variable or pass createOpenAI({ apiKey }).',
        isRetryable: false,
        provider,
      });
    }
    client = new OpenAI({
      // Local OpenAI-compatible servers usually need no key; the SDK insists on one.
      apiKey: apiKey ?? 'no-key',
      baseURL: options.baseURL ?? defaultBaseURL,
      // Explicit nulls keep OPENAI_ORG_ID / OPENAI_PROJECT_ID away from third-party servers.
      organization: options.organization ?? (usesOpenAIKey ? undefined : null),
      project: options.project ?? (usesOpenAIKey ? undefined : null),
      maxRetries: 0,
      timeout: options.timeoutMs ?? 600_000,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
    return client;
  };

  const config = {
    provider,
    client: getClient,
    secrets: (): readonly string[] => (apiKey ? [apiKey] : []),
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
  const providerFunction = (modelId: OpenAIChatModelId, settings?: OpenAIChatSettings) =>
    create(modelId, settings);
  return Object.assign(providerFunction, { chat: create, provider });
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
