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
  /**
   * The provider retired these models: requests to them fail. Resolving one warns once, naming
   * the replacement.
   */
  retired?: { since: string; replacement: string };
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
  retired?: CapabilityEntry['retired'],
): CapabilityEntry {
  return {
    provider: 'anthropic',
    pattern,
    capabilities: { ...anthropicBase, ...extra },
    ...(note ? { note } : {}),
    ...(retired ? { retired } : {}),
  };
}

function retiredOpenAI(
  pattern: string,
  capabilities: CapabilityEntry['capabilities'],
  retired: NonNullable<CapabilityEntry['retired']>,
): CapabilityEntry {
  return { provider: 'openai', pattern, capabilities, note: `retired ${retired.since}`, retired };
}

// DeepSeek's API (OpenAI-compatible): json_object only (no json_schema), `max_tokens`, thinking
// models return `reasoning_content`. Listed for any provider id: the same models are served through
// proxies and gateways under other provider names.
const deepseekBase = {
  toolCalling: true,
  parallelToolCalls: true,
  streaming: true,
  structuredOutput: false,
  vision: false,
  contextWindow: 128_000,
  maxTokensParameter: 'max_tokens',
} as const satisfies Partial<ModelCapabilities>;

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
    'reasoning: no temperature, no logprobs; 5.x too',
  ),
  retiredOpenAI(
    'gpt-4.5-preview*',
    { ...openAIBase, contextWindow: 128_000, maxOutputTokens: 16_384 },
    { since: '2025-07-14', replacement: 'gpt-4.1' },
  ),
  openai('gpt-4.1*', openAIBase, { contextWindow: 1_047_576, maxOutputTokens: 32_768 }),
  openai(
    'gpt-4o-2024-05-13',
    openAIBase,
    { contextWindow: 128_000, maxOutputTokens: 4_096, structuredOutput: false },
    'first gpt-4o snapshot: no json_schema',
  ),
  openai('gpt-4o*', openAIBase, { contextWindow: 128_000, maxOutputTokens: 16_384 }, 'includes gpt-4o-mini'),
  retiredOpenAI(
    'o1-mini*',
    {
      ...openAIReasoning,
      contextWindow: 128_000,
      maxOutputTokens: 65_536,
      toolCalling: false,
      parallelToolCalls: false,
      structuredOutput: false,
      vision: false,
    },
    { since: '2025-10-27', replacement: 'o4-mini' },
  ),
  retiredOpenAI(
    'o1-preview*',
    {
      ...openAIReasoning,
      contextWindow: 128_000,
      maxOutputTokens: 32_768,
      toolCalling: false,
      parallelToolCalls: false,
      structuredOutput: false,
      vision: false,
    },
    { since: '2025-07-28', replacement: 'o3' },
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
  retiredOpenAI(
    'gpt-4-32k*',
    { ...openAIBase, contextWindow: 32_768, maxOutputTokens: 8_192, structuredOutput: false, vision: false },
    { since: '2025-06-06', replacement: 'gpt-4.1' },
  ),
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
    'claude-opus-4-8*',
    { contextWindow: 1_000_000, maxOutputTokens: 128_000, reasoning: true },
    'extended thinking',
  ),
  anthropic(
    'claude-opus-4-7*',
    { contextWindow: 1_000_000, maxOutputTokens: 128_000, reasoning: true },
    'extended thinking',
  ),
  anthropic(
    'claude-opus-4-6*',
    { contextWindow: 1_000_000, maxOutputTokens: 128_000, reasoning: true },
    'extended thinking',
  ),
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
    'claude-sonnet-4-6*',
    { contextWindow: 1_000_000, maxOutputTokens: 128_000, reasoning: true },
    'extended thinking',
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
    'retired 2026-02-19',
    { since: '2026-02-19', replacement: 'claude-sonnet-4-6' },
  ),
  anthropic('claude-3-5-sonnet*', { contextWindow: 200_000, maxOutputTokens: 8_192 }, 'retired 2025-10-22', {
    since: '2025-10-22',
    replacement: 'claude-sonnet-4-6',
  }),
  anthropic(
    'claude-3-5-haiku*',
    { contextWindow: 200_000, maxOutputTokens: 8_192, vision: false },
    'retired 2026-02-19',
    { since: '2026-02-19', replacement: 'claude-haiku-4-5' },
  ),
  anthropic('claude-3-opus*', { contextWindow: 200_000, maxOutputTokens: 4_096 }, 'retired 2026-01-05', {
    since: '2026-01-05',
    replacement: 'claude-opus-4-6',
  }),
  anthropic('claude-3-sonnet*', { contextWindow: 200_000, maxOutputTokens: 4_096 }, 'retired 2025-07-21', {
    since: '2025-07-21',
    replacement: 'claude-sonnet-4-6',
  }),
  anthropic('claude-3-haiku*', { contextWindow: 200_000, maxOutputTokens: 4_096 }, 'retired 2026-04-20', {
    since: '2026-04-20',
    replacement: 'claude-haiku-4-5',
  }),
  anthropic(
    'claude-2*',
    { contextWindow: 100_000, maxOutputTokens: 4_096, toolCalling: false, vision: false },
    'retired 2025-07-21',
    { since: '2025-07-21', replacement: 'claude-sonnet-4-6' },
  ),
  {
    provider: '*',
    pattern: 'deepseek-reasoner*',
    capabilities: {
      ...deepseekBase,
      logprobs: false,
      reasoning: true,
      maxOutputTokens: 64_000,
      supportsTemperature: false,
    },
    note: 'thinking mode; any provider id',
  },
  {
    provider: '*',
    pattern: 'deepseek-chat*',
    capabilities: { ...deepseekBase, logprobs: true, reasoning: false, maxOutputTokens: 8_192 },
    note: 'any provider id',
  },
]);

/**
 * How a model id names its family and generation, so a newer generation of a known family gets
 * the family's capabilities instead of the conservative defaults.
 */
export interface CapabilityFamilyRule {
  provider: string;
  /** Named groups: `family` (optional), `major`, `minor` (optional). */
  pattern: RegExp;
  /**
   * The newest generation this table knows for a family, and the model id whose row stands for
   * it (`{ major: 4, minor: 6, modelId: 'claude-sonnet-4-6' }`; no `minor`: every minor version
   * of `major` is known); `undefined` for an unknown family.
   */
  latest(family: string): KnownGeneration | undefined;
}

/** The newest known generation of a family (see {@link CapabilityFamilyRule}). */
export interface KnownGeneration {
  major: number;
  minor?: number;
  modelId: string;
}

const claudeLatest: Record<string, KnownGeneration> = {
  opus: { major: 4, minor: 8, modelId: 'claude-opus-4-8' },
  sonnet: { major: 4, minor: 6, modelId: 'claude-sonnet-4-6' },
  haiku: { major: 4, minor: 5, modelId: 'claude-haiku-4-5' },
};
// gpt-5.x ids are covered by the `gpt-5*` rows: every minor version of 5 is known.
const gptLatest: Record<string, KnownGeneration> = {
  '': { major: 5, modelId: 'gpt-5' },
  '-mini': { major: 5, modelId: 'gpt-5-mini' },
  '-nano': { major: 5, modelId: 'gpt-5-nano' },
  '-pro': { major: 5, modelId: 'gpt-5-pro' },
  '-codex': { major: 5, modelId: 'gpt-5-codex' },
  '-chat': { major: 5, modelId: 'gpt-5-chat-latest' },
};

/** The built-in family rules (Claude tiers, gpt-N variants, o-series). */
export const builtInFamilyRules: readonly CapabilityFamilyRule[] = Object.freeze([
  {
    provider: 'anthropic',
    pattern: /^claude-(?<family>opus|sonnet|haiku)-(?<major>\d+)(?:-(?<minor>\d{1,2}))?(?:-\d{8}|-latest)?$/i,
    latest: (family: string) => claudeLatest[family.toLowerCase()],
  },
  {
    provider: 'openai',
    pattern:
      /^gpt-(?<major>\d+)(?:\.(?<minor>\d+))?(?<family>-mini|-nano|-pro|-codex|-chat)?(?:-latest|-\d{4}-\d{2}-\d{2})?$/i,
    latest: (family: string) => gptLatest[family.toLowerCase()],
  },
  {
    provider: 'openai',
    pattern: /^o(?<major>\d+)(?<family>-mini|-pro)?(?:-\d{4}-\d{2}-\d{2})?$/i,
    latest: (family: string) =>
      family.toLowerCase() === '-mini'
        ? { major: 4, modelId: 'o4-mini' }
        : { major: 3, modelId: family === '' ? 'o3' : 'o3-pro' },
  },
]);

/**
 * The model id standing for the newest known generation of `modelId`'s family, when `modelId` is
 * a newer generation than the table knows (`claude-sonnet-5-5` → `claude-sonnet-4-6`).
 */
function newerGenerationOf(provider: string, modelId: string): string | undefined {
  for (const rule of builtInFamilyRules) {
    if (!providerMatches(rule.provider, provider)) continue;
    const groups = rule.pattern.exec(modelId)?.groups;
    if (!groups?.major) continue;
    const latest = rule.latest(groups.family ?? '');
    if (!latest) continue;
    const major = Number(groups.major);
    const minor = Number(groups.minor ?? 0);
    const newer =
      major > latest.major || (major === latest.major && latest.minor !== undefined && minor > latest.minor);
    if (newer) return latest.modelId;
  }
  return undefined;
}

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

/**
 * Where resolved capabilities came from: a built-in row, a user registration, a known family
 * (a newer generation than the table knows gets its family's newest row), or the defaults.
 */
export type CapabilitySource = 'built-in' | 'registered' | 'family' | 'default';

/** What {@link lookupCapabilities} found. */
export interface CapabilityLookup {
  capabilities: ModelCapabilities;
  source: CapabilitySource;
  /** For `family`: the model id whose capabilities were used (`claude-sonnet-4-6`). */
  familyModelId?: string;
  /** The provider retired the model (requests to it fail). */
  retired?: { since: string; replacement: string };
}

function findBuiltIn(provider: string, modelId: string): CapabilityEntry | undefined {
  return builtInCapabilities.find(
    (entry) => providerMatches(entry.provider, provider) && matchesModelPattern(entry.pattern, modelId),
  );
}

/**
 * The built-in answer for a model id: a newer generation of a known family first (its family's
 * newest row), then the first matching row. Gateway ids `vendor/model` (`openai/gpt-4.1`,
 * `deepseek/deepseek-reasoner` on OpenRouter) are looked up under the vendor when the provider
 * itself has no row.
 */
function builtInFor(
  provider: string,
  modelId: string,
): { entry: CapabilityEntry; familyModelId?: string } | undefined {
  const familyModelId = newerGenerationOf(provider, modelId);
  if (familyModelId !== undefined) {
    const entry = findBuiltIn(provider, familyModelId);
    if (entry) return { entry, familyModelId };
  }
  const entry = findBuiltIn(provider, modelId);
  if (entry) return { entry };
  const slash = modelId.indexOf('/');
  if (slash > 0 && slash < modelId.length - 1) {
    return builtInFor(modelId.slice(0, slash), modelId.slice(slash + 1));
  }
  return undefined;
}

/** Like {@link resolveCapabilities}, but also says where the answer came from (and never warns). */
export function lookupCapabilities(options: ResolveCapabilitiesOptions): CapabilityLookup {
  const { provider, modelId, overrides } = options;
  const builtIn = builtInFor(provider, modelId);
  const registered = registrations.filter(
    (entry) => providerMatches(entry.provider, provider) && matchesModelPattern(entry.pattern, modelId),
  );
  let capabilities: ModelCapabilities = { ...(builtIn?.entry.capabilities ?? conservativeCapabilities) };
  for (const entry of registered) capabilities = { ...capabilities, ...entry.capabilities };
  if (overrides) capabilities = { ...capabilities, ...overrides };
  const source: CapabilitySource =
    registered.length > 0
      ? 'registered'
      : builtIn?.familyModelId !== undefined
        ? 'family'
        : builtIn
          ? 'built-in'
          : 'default';
  const lookup: CapabilityLookup = { capabilities, source };
  if (builtIn?.familyModelId !== undefined) lookup.familyModelId = builtIn.familyModelId;
  if (builtIn?.entry.retired && builtIn.familyModelId === undefined) lookup.retired = builtIn.entry.retired;
  return lookup;
}

function warnOnce(options: ResolveCapabilitiesOptions, kind: string, message: () => string): void {
  const key = `${kind}\u0000${options.provider}\u0000${options.modelId}`;
  if (warned.has(key)) return;
  warned.add(key);
  (options.onWarning ?? console.warn)(message());
}

/**
 * The capabilities of `provider` + `modelId`: the first matching built-in row (or, for a newer
 * generation of a known family such as `claude-sonnet-5-5`, the row of the family's newest known
 * generation), then matching registrations, then `overrides`. Never throws. Once per provider +
 * model id (to `onWarning`, else `console.warn`) it says:
 *
 * - for a newer generation of a known family: which model's capabilities it uses;
 * - for a retired model: that requests will fail, and the replacement;
 * - for an unknown model (without `overrides`): that it uses {@link conservativeCapabilities}.
 *
 * @example
 * resolveCapabilities({ provider: 'openai', modelId: 'o4-mini' }).supportsTemperature // false
 * resolveCapabilities({ provider: 'anthropic', modelId: 'claude-sonnet-5-5' }).contextWindow // 1_000_000, with a notice
 */
export function resolveCapabilities(options: ResolveCapabilitiesOptions): ModelCapabilities {
  const lookup = lookupCapabilities(options);
  const id = `${options.provider}:${options.modelId}`;
  const { capabilities: c } = lookup;
  if (lookup.source === 'family') {
    warnOnce(
      options,
      'family',
      () =>
        `closedloop: ${id} is a newer generation than the capability table knows; using the capabilities of ` +
        `${lookup.familyModelId} (${tokens(c.contextWindow)} context, ${tokens(c.maxOutputTokens)} max output, ` +
        `reasoning ${yesNo(c.reasoning)}). Pass overrides or call registerCapabilities(...) if it differs.`,
    );
  } else if (lookup.retired) {
    const { since, replacement } = lookup.retired;
    warnOnce(
      options,
      'retired',
      () =>
        `closedloop: ${id} was retired by its provider on ${since}; requests to it fail. Use ${replacement} instead.`,
    );
  } else if (lookup.source === 'default' && !options.overrides) {
    warnOnce(
      options,
      'unknown',
      () =>
        `closedloop: unknown model ${id}; using conservative capabilities ` +
        '(no parallel tool calls, no native structured output, no logprobs, 8k context). ' +
        'Pass overrides, call registerCapabilities(...), or probeCapabilities(model) to refine.',
    );
  }
  return lookup.capabilities;
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
