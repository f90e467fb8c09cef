import type { ModelCapabilities } from './capabilities';

/** One row of the capability table: a provider and a model-id pattern. */
export interface CapabilityEntry {
  /** Provider name as `ChatModel.provider` reports it, or `*` for any provider. */
  provider: string;
  /** Glob (`gpt-4.1*`, `?` for one character; case-insensitive, whole id) or a RegExp. */
  pattern: string | RegExp;
  capabilities: ModelCapabilities;
  /** Shown in the README table. */
  note?: string;
}

/** A user registration: partial capabilities merged over the built-in row (or the defaults). */
export interface CapabilityRegistration {
  provider: string;
  pattern: string | RegExp;
  capabilities: Partial<ModelCapabilities>;
}

/**
 * Used for models the table does not know (OpenAI-compatible servers, new model ids): tools yes,
 * everything optional off, a small context.
 */
export const conservativeCapabilities: Readonly<ModelCapabilities> = Object.freeze({
  toolCalling: true,
  parallelToolCalls: false,
  streaming: true,
  structuredOutput: false,
  logprobs: false,
  reasoning: false,
  vision: false,
  contextWindow: 8_192,
  maxOutputTokens: 4_096,
});

const openAIBase = {
  toolCalling: true,
  parallelToolCalls: true,
  streaming: true,
  structuredOutput: true,
  logprobs: true,
  reasoning: false,
  vision: true,
  supportsTemperature: true,
  maxTokensParameter: 'max_completion_tokens',
} as const satisfies Partial<ModelCapabilities>;

const openAIReasoning = {
  ...openAIBase,
  logprobs: false,
  reasoning: true,
  supportsTemperature: false,
} as const satisfies Partial<ModelCapabilities>;

// structuredOutput: @closedloop/provider-anthropic answers `responseFormat` with a schema through a
// forced tool whose input_schema is the schema (documented in both READMEs).
const anthropicBase = {
  toolCalling: true,
  parallelToolCalls: true,
  streaming: true,
  structuredOutput: true,
  logprobs: false,
  reasoning: false,
  vision: true,
  supportsTemperature: true,
} as const satisfies Partial<ModelCapabilities>;

function openai(
  pattern: string,
  base: typeof openAIBase | typeof openAIReasoning,
  extra: Partial<ModelCapabilities> & Pick<ModelCapabilities, 'contextWindow' | 'maxOutputTokens'>,
  note?: string,
): CapabilityEntry {
  return { provider: 'openai', pattern, capabilities: { ...base, ...extra }, ...(note ? { note } : {}) };
}

function anthropic(
  pattern: string,
  extra: Partial<ModelCapabilities> & Pick<ModelCapabilities, 'contextWindow' | 'maxOutputTokens'>,
  note?: string,
): CapabilityEntry {
  return {
    provider: 'anthropic',
    pattern,
    capabilities: { ...anthropicBase, ...extra },
    ...(note ? { note } : {}),
  };
}

/**
 * The built-in capability table, most specific pattern first (the first match wins).
 * Documented in the package README.
 */
export const builtInCapabilities: readonly CapabilityEntry[] = Object.freeze([
  openai(
    'gpt-5-chat*',
    openAIBase,
    { contextWindow: 128_000, maxOutputTokens: 16_384, logprobs: false },
    'non-reasoning chat variant',
  ),
  openai(
    'gpt-5*',
    openAIReasoning,
    { contextWindow: 400_000, maxOutputTokens: 128_000 },
    'reasoning: no temperature, no logprobs',
  ),
  openai('gpt-4.1*', openAIBase, { contextWindow: 1_047_576, maxOutputTokens: 32_768 }),
  openai(
    'gpt-4o-2024-05-13',
    openAIBase,
    { contextWindow: 128_000, maxOutputTokens: 4_096, structuredOutput: false },
    'first gpt-4o snapshot: no json_schema',
  ),
  openai('gpt-4o*', openAIBase, { contextWindow: 128_000, maxOutputTokens: 16_384 }, 'includes gpt-4o-mini'),
  openai(
    'o1-mini*',
    openAIReasoning,
    {
      contextWindow: 128_000,
      maxOutputTokens: 65_536,
      toolCalling: false,
      parallelToolCalls: false,
      structuredOutput: false,
      vision: false,
    },
    'no tools',
  ),
  openai(
    'o1-preview*',
    openAIReasoning,
    {
      contextWindow: 128_000,
      maxOutputTokens: 32_768,
      toolCalling: false,
      parallelToolCalls: false,
      structuredOutput: false,
      vision: false,
    },
    'no tools',
  ),
  openai(
    'o1*',
    openAIReasoning,
    { contextWindow: 200_000, maxOutputTokens: 100_000, parallelToolCalls: false },
    'reasoning',
  ),
  openai(
    'o3-mini*',
    openAIReasoning,
    { contextWindow: 200_000, maxOutputTokens: 100_000, parallelToolCalls: false, vision: false },
    'reasoning',
  ),
  openai(
    'o3*',
    openAIReasoning,
    { contextWindow: 200_000, maxOutputTokens: 100_000 },
    'reasoning; includes o3-pro',
  ),
  openai('o4-mini*', openAIReasoning, { contextWindow: 200_000, maxOutputTokens: 100_000 }, 'reasoning'),
  openai('gpt-4-turbo*', openAIBase, {
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
    structuredOutput: false,
  }),
  openai(
    'gpt-4*',
    openAIBase,
    { contextWindow: 8_192, maxOutputTokens: 8_192, structuredOutput: false, vision: false },
    'legacy gpt-4',
  ),
  openai('gpt-3.5-turbo*', openAIBase, {
    contextWindow: 16_385,
    maxOutputTokens: 4_096,
    structuredOutput: false,
    vision: false,
  }),
  anthropic(
    'claude-opus-4-5*',
    { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true },
    'extended thinking',
  ),
  anthropic(
    'claude-opus-4*',
    { contextWindow: 200_000, maxOutputTokens: 32_000, reasoning: true },
    'extended thinking; 4 and 4.1',
  ),
  anthropic(
    'claude-sonnet-4*',
    { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true },
    'extended thinking; 4 and 4.5',
  ),
  anthropic(
    'claude-haiku-4*',
    { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true },
    'extended thinking',
  ),
  anthropic(
    'claude-3-7-sonnet*',
    { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true },
    'extended thinking',
  ),
  anthropic('claude-3-5-sonnet*', { contextWindow: 200_000, maxOutputTokens: 8_192 }),
  anthropic('claude-3-5-haiku*', { contextWindow: 200_000, maxOutputTokens: 8_192, vision: false }),
  anthropic('claude-3-opus*', { contextWindow: 200_000, maxOutputTokens: 4_096 }),
  anthropic('claude-3-haiku*', { contextWindow: 200_000, maxOutputTokens: 4_096 }),
]);

const registrations: CapabilityRegistration[] = [];
const warned = new Set<string>();
const patternCache = new Map<string, RegExp>();

function toRegExp(pattern: string | RegExp): RegExp {
  if (typeof pattern !== 'string') return pattern;
  let regex = patternCache.get(pattern);
  if (!regex) {
    const source = pattern
      .split('')
      .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`, 'i');
    patternCache.set(pattern, regex);
  }
  return regex;
}

/** Whether a model id matches a glob (`gpt-4.1*`) or RegExp pattern. */
export function matchesModelPattern(pattern: string | RegExp, modelId: string): boolean {
  const regex = toRegExp(pattern);
  regex.lastIndex = 0;
  return regex.test(modelId);
}

function providerMatches(entryProvider: string, provider: string): boolean {
  return entryProvider === '*' || entryProvider.toLowerCase() === provider.toLowerCase();
}

/**
 * Adds a user override to the registry: partial capabilities merged over the built-in row for
 * matching models (or over the conservative defaults for unknown ones, which then no longer
 * warn). Later registrations win over earlier ones. Returns a function that removes it.
 *
 * @example
 * registerCapabilities({ provider: 'openai-compatible', pattern: 'llama3.1*', capabilities: { contextWindow: 131_072 } });
 */
export function registerCapabilities(registration: CapabilityRegistration): () => void {
  const entry = { ...registration, capabilities: { ...registration.capabilities } };
  registrations.push(entry);
  return () => {
    const index = registrations.indexOf(entry);
    if (index !== -1) registrations.splice(index, 1);
  };
}

/** Removes every registration and forgets which models were warned about (for tests). */
export function resetCapabilityRegistry(): void {
  registrations.length = 0;
  warned.clear();
}

/** Options for {@link resolveCapabilities}. */
export interface ResolveCapabilitiesOptions {
  provider: string;
  modelId: string;
  /** Applied last, over the table and registrations. */
  overrides?: Partial<ModelCapabilities>;
  /** Receives the once-per-model warning for unknown models. Default `console.warn`. */
  onWarning?: (message: string) => void;
}

/** Where resolved capabilities came from. */
export type CapabilitySource = 'built-in' | 'registered' | 'default';

/** Like {@link resolveCapabilities}, but also says where the answer came from. */
export function lookupCapabilities(options: ResolveCapabilitiesOptions): {
  capabilities: ModelCapabilities;
  source: CapabilitySource;
} {
  const { provider, modelId, overrides } = options;
  const builtIn = builtInCapabilities.find(
    (entry) => providerMatches(entry.provider, provider) && matchesModelPattern(entry.pattern, modelId),
  );
  const registered = registrations.filter(
    (entry) => providerMatches(entry.provider, provider) && matchesModelPattern(entry.pattern, modelId),
  );
  let capabilities: ModelCapabilities = { ...(builtIn?.capabilities ?? conservativeCapabilities) };
  for (const entry of registered) capabilities = { ...capabilities, ...entry.capabilities };
  if (overrides) capabilities = { ...capabilities, ...overrides };
  const source: CapabilitySource = registered.length > 0 ? 'registered' : builtIn ? 'built-in' : 'default';
  return { capabilities, source };
}

/**
 * The capabilities of `provider` + `modelId`: the first matching built-in row, then matching
 * registrations, then `overrides`. Unknown models get {@link conservativeCapabilities} and one
 * warning per provider+model id (to `onWarning`, else `console.warn`) — never an error.
 *
 * @example
 * resolveCapabilities({ provider: 'openai', modelId: 'o4-mini' }).supportsTemperature // false
 */
export function resolveCapabilities(options: ResolveCapabilitiesOptions): ModelCapabilities {
  const { capabilities, source } = lookupCapabilities(options);
  if (source === 'default' && !options.overrides) {
    const key = `${options.provider}\u0000${options.modelId}`;
    if (!warned.has(key)) {
      warned.add(key);
      const message =
        `closedloop: unknown model ${options.provider}:${options.modelId}; using conservative capabilities ` +
        '(no parallel tool calls, no native structured output, no logprobs, 8k context). ' +
        'Pass overrides, call registerCapabilities(...), or probeCapabilities(model) to refine.';
      (options.onWarning ?? console.warn)(message);
    }
  }
  return capabilities;
}

function yesNo(value: boolean | undefined): string {
  return value === false ? 'no' : 'yes';
}

function tokens(value: number): string {
  return value.toLocaleString('en-US');
}

/** The built-in table as Markdown (the README embeds this output; a test keeps them in sync). */
export function formatCapabilityTable(entries: readonly CapabilityEntry[] = builtInCapabilities): string {
  const header =
    '| provider | model id | tools | parallel | structured output | logprobs | reasoning | vision | temperature | context | max output | note |';
  const rule = '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |';
  const rows = entries.map((entry) => {
    const c = entry.capabilities;
    const pattern = typeof entry.pattern === 'string' ? entry.pattern : entry.pattern.source;
    return `| ${entry.provider} | \`${pattern}\` | ${yesNo(c.toolCalling)} | ${yesNo(c.parallelToolCalls)} | ${yesNo(
      c.structuredOutput,
    )} | ${yesNo(c.logprobs)} | ${yesNo(c.reasoning)} | ${yesNo(c.vision)} | ${yesNo(c.supportsTemperature)} | ${tokens(
      c.contextWindow,
    )} | ${tokens(c.maxOutputTokens)} | ${entry.note ?? ''} |`;
  });
  const c = conservativeCapabilities;
  rows.push(
    `| any other | \`*\` | ${yesNo(c.toolCalling)} | ${yesNo(c.parallelToolCalls)} | ${yesNo(c.structuredOutput)} | ${yesNo(
      c.logprobs,
    )} | ${yesNo(c.reasoning)} | ${yesNo(c.vision)} | ${yesNo(c.supportsTemperature)} | ${tokens(c.contextWindow)} | ${tokens(
      c.maxOutputTokens,
    )} | conservative defaults, warns once |`,
  );
  return [header, rule, ...rows].join('\n');
}
