import type { ServiceTier } from '@closedloop/model';

/**
 * What differs between servers that speak the Chat Completions wire format: where reasoning comes
 * back and how it must be sent back, which request fields they take, how they name things.
 * Profiles are chosen from the base URL or by name (`createOpenAI({ profile: 'deepseek' })`).
 */
export interface OpenAICompatibleProfile {
  /** `openai`, `deepseek`, `mistral`, … — also the provider id when the base URL selected it. */
  name: string;
  /** Hostnames (or their suffixes after a dot) that select the profile. */
  hosts: readonly string[];
  /** Loopback ports that select the profile for a local server (`11434` → Ollama). */
  localPorts?: readonly number[];
  /** Base URL when only the profile is given. */
  defaultBaseURL?: string;
  /** Environment variable holding the API key (read lazily; never another provider's). */
  apiKeyEnvironmentVariable?: string;
  /** Message/delta fields that carry reasoning text, in order of preference. */
  reasoningFields: readonly string[];
  /**
   * How reasoning goes back on assistant messages of the current tool loop (after the last user
   * message): `none`; `field` — in the field it came in (DeepSeek documents that a tool-loop
   * request without `reasoning_content` fails); `content` — as a `thinking` content part before
   * the text (Mistral's content arrays).
   */
  reasoningEcho: 'none' | 'field' | 'content';
  /** Output-token field. */
  maxTokensParameter: 'max_tokens' | 'max_completion_tokens';
  /** Send `stream_options: { include_usage: true }` (servers that reject it get usage anyway). */
  streamUsageOption: boolean;
  /** Accepts `strict: true` on function tools. */
  strictTools: boolean;
  /** Accepts `prompt_cache_key`. */
  promptCacheKey: boolean;
  /** `seed` (default) or another name (`random_seed` for Mistral); `null`: not supported. */
  seedParameter: string | null;
  /** `tool_choice: 'required'` spelled another way (`any` for Mistral). */
  requiredToolChoice?: string;
  /** Tool-call ids the server accepts; others are rewritten consistently (Mistral: 9 letters/digits). */
  toolCallId?: { pattern: RegExp; length: number };
  /** Neutral service tiers → the server's `service_tier` values; absent: not supported. */
  serviceTiers?: Partial<Record<ServiceTier, string>>;
  /** Accepts `verbosity` (gpt-5). */
  verbosity: boolean;
  /** Accepts `reasoning_effort`. */
  reasoningEffort: boolean;
  /** Accepts `logprobs`. */
  logprobs: boolean;
  /** Inlines reasoning as `<think>…</think>` at the start of the answer (split off when true). */
  thinkTags: boolean;
}

const compatible = {
  hosts: [],
  reasoningFields: ['reasoning_content', 'reasoning'],
  reasoningEcho: 'field',
  maxTokensParameter: 'max_tokens',
  streamUsageOption: true,
  strictTools: false,
  promptCacheKey: false,
  seedParameter: 'seed',
  verbosity: false,
  reasoningEffort: true,
  logprobs: true,
  thinkTags: true,
} as const satisfies Omit<OpenAICompatibleProfile, 'name'>;

const openAITiers = { auto: 'auto', default: 'default', flex: 'flex', priority: 'priority' } as const;

/** A built-in profile name. */
export type OpenAICompatibleProfileName =
  | 'openai'
  | 'azure'
  | 'deepseek'
  | 'mistral'
  | 'groq'
  | 'xai'
  | 'openrouter'
  | 'together'
  | 'fireworks'
  | 'gemini'
  | 'ollama'
  | 'vllm'
  | 'lmstudio';

/** The built-in profiles. */
export const openAICompatibleProfiles: Readonly<
  Record<OpenAICompatibleProfileName, OpenAICompatibleProfile>
> = Object.freeze({
  openai: {
    ...compatible,
    name: 'openai',
    thinkTags: false,
    reasoningEcho: 'none',
    hosts: ['api.openai.com'],
    defaultBaseURL: 'https://api.openai.com/v1',
    apiKeyEnvironmentVariable: 'OPENAI_API_KEY',
    maxTokensParameter: 'max_completion_tokens',
    strictTools: true,
    promptCacheKey: true,
    serviceTiers: openAITiers,
    verbosity: true,
  },
  azure: {
    ...compatible,
    name: 'azure',
    reasoningEcho: 'none',
    hosts: ['openai.azure.com', 'services.ai.azure.com', 'cognitiveservices.azure.com'],
    apiKeyEnvironmentVariable: 'AZURE_OPENAI_API_KEY',
    maxTokensParameter: 'max_completion_tokens',
    strictTools: true,
    promptCacheKey: true,
    serviceTiers: openAITiers,
    verbosity: true,
  },
  deepseek: {
    ...compatible,
    name: 'deepseek',
    hosts: ['api.deepseek.com'],
    defaultBaseURL: 'https://api.deepseek.com/v1',
    apiKeyEnvironmentVariable: 'DEEPSEEK_API_KEY',
    reasoningFields: ['reasoning_content'],
    reasoningEcho: 'field',
    reasoningEffort: false,
  },
  mistral: {
    ...compatible,
    name: 'mistral',
    hosts: ['api.mistral.ai'],
    defaultBaseURL: 'https://api.mistral.ai/v1',
    apiKeyEnvironmentVariable: 'MISTRAL_API_KEY',
    reasoningFields: [],
    reasoningEcho: 'content',
    streamUsageOption: false,
    seedParameter: 'random_seed',
    requiredToolChoice: 'any',
    toolCallId: { pattern: /^[a-zA-Z0-9]{9}$/, length: 9 },
    reasoningEffort: false,
    logprobs: false,
  },
  groq: {
    ...compatible,
    name: 'groq',
    reasoningEcho: 'none',
    hosts: ['api.groq.com'],
    defaultBaseURL: 'https://api.groq.com/openai/v1',
    apiKeyEnvironmentVariable: 'GROQ_API_KEY',
    reasoningFields: ['reasoning'],
    maxTokensParameter: 'max_completion_tokens',
    serviceTiers: { auto: 'auto', default: 'on_demand', flex: 'flex' },
    logprobs: false,
  },
  xai: {
    ...compatible,
    name: 'xai',
    reasoningEcho: 'none',
    hosts: ['api.x.ai'],
    defaultBaseURL: 'https://api.x.ai/v1',
    apiKeyEnvironmentVariable: 'XAI_API_KEY',
    reasoningFields: ['reasoning_content'],
    strictTools: true,
  },
  openrouter: {
    ...compatible,
    name: 'openrouter',
    hosts: ['openrouter.ai'],
    defaultBaseURL: 'https://openrouter.ai/api/v1',
    apiKeyEnvironmentVariable: 'OPENROUTER_API_KEY',
    reasoningFields: ['reasoning', 'reasoning_content'],
    reasoningEcho: 'field',
    strictTools: true,
  },
  together: {
    ...compatible,
    name: 'together',
    hosts: ['api.together.xyz', 'api.together.ai'],
    defaultBaseURL: 'https://api.together.xyz/v1',
    apiKeyEnvironmentVariable: 'TOGETHER_API_KEY',
    reasoningFields: ['reasoning', 'reasoning_content'],
  },
  fireworks: {
    ...compatible,
    name: 'fireworks',
    hosts: ['api.fireworks.ai'],
    defaultBaseURL: 'https://api.fireworks.ai/inference/v1',
    apiKeyEnvironmentVariable: 'FIREWORKS_API_KEY',
    reasoningFields: ['reasoning_content', 'reasoning'],
  },
  gemini: {
    ...compatible,
    name: 'gemini',
    reasoningEcho: 'none',
    hosts: ['generativelanguage.googleapis.com'],
    defaultBaseURL: 'https://generativelanguage.googleapis.com/v1beta/openai',
    apiKeyEnvironmentVariable: 'GEMINI_API_KEY',
    reasoningFields: ['reasoning_content', 'reasoning'],
    logprobs: false,
  },
  ollama: {
    ...compatible,
    name: 'ollama',
    localPorts: [11434],
    defaultBaseURL: 'http://localhost:11434/v1',
    reasoningFields: ['reasoning', 'reasoning_content'],
    logprobs: false,
  },
  vllm: {
    ...compatible,
    name: 'vllm',
    localPorts: [8000],
    defaultBaseURL: 'http://localhost:8000/v1',
    reasoningFields: ['reasoning_content', 'reasoning'],
  },
  lmstudio: {
    ...compatible,
    name: 'lmstudio',
    localPorts: [1234],
    defaultBaseURL: 'http://localhost:1234/v1',
    reasoningFields: ['reasoning_content', 'reasoning'],
  },
});

/** The profile of an unknown OpenAI-compatible server: every common reasoning field, `max_tokens`. */
export const genericCompatibleProfile: OpenAICompatibleProfile = Object.freeze({
  ...compatible,
  name: 'openai-compatible',
});

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0']);

/**
 * The profile a base URL points at: a hosted provider by hostname (`api.deepseek.com` →
 * `deepseek`), a local server by its usual port on a loopback host (`:11434` → `ollama`), else
 * `undefined`. `byHost` tells whether the hostname decided (then it also names the provider).
 */
export function profileForBaseURL(
  baseURL: string,
): { profile: OpenAICompatibleProfile; byHost: boolean } | undefined {
  if (!URL.canParse(baseURL)) return undefined;
  const url = new URL(baseURL);
  const host = url.hostname.toLowerCase();
  for (const profile of Object.values(openAICompatibleProfiles)) {
    if (profile.hosts.some((known) => host === known || host.endsWith(`.${known}`))) {
      return { profile, byHost: true };
    }
  }
  if (loopbackHosts.has(host)) {
    const port = Number(url.port);
    for (const profile of Object.values(openAICompatibleProfiles)) {
      if (profile.localPorts?.includes(port)) return { profile, byHost: false };
    }
  }
  return undefined;
}
