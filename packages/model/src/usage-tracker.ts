import { matchesModelPattern } from './capability-registry';
import type { CallOptions, ChatModel, GenerateRequest, StreamPart, Usage } from './chat-model';
import { addUsage, emptyUsage } from './usage';

/**
 * USD per million tokens. `cachedInputPerMTok` (cache reads) and `cacheWriteInputPerMTok` (cache
 * writes) default to `inputPerMTok`.
 *
 * @example
 * // Anthropic Claude Sonnet: reads at 0.1×, 5-minute writes at 1.25× the input price.
 * { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3, cacheWriteInputPerMTok: 3.75 }
 */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok?: number;
  cacheWriteInputPerMTok?: number;
}

/** Prices keyed by model id or glob pattern (`gpt-4.1*`). An exact id beats the longest matching glob. */
export type PriceTable = Record<string, ModelPrice>;

/** One recorded model call. */
export interface UsageRecord {
  modelId: string;
  provider?: string;
  runId?: string;
  /** Free-form tag, e.g. `planner`, `executor:step-3`. */
  label?: string;
  usage: Usage;
  /** USD, when the model has a price. */
  costUsd?: number;
  at: number;
}

/** Sums over a set of records. */
export interface UsageSummary {
  calls: number;
  usage: Usage;
  /** USD over the priced calls. */
  costUsd: number;
  /** Model ids with calls but no price (their cost is not in `costUsd`). */
  unpricedModels: string[];
}

/** What {@link UsageTracker.record} takes. */
export interface UsageInput {
  modelId: string;
  provider?: string;
  runId?: string;
  label?: string;
  usage: Usage;
}

/** Sums token usage per call, per run and per model, with cost from an optional price table. */
export interface UsageTracker {
  /** Records one call and returns the stored record (with its cost). */
  record(input: UsageInput): UsageRecord;
  /** Every record, in order. */
  readonly records: readonly UsageRecord[];
  /** Everything recorded. */
  total(): UsageSummary;
  /** The calls recorded with this `runId`. */
  forRun(runId: string): UsageSummary;
  /** One summary per model id. */
  byModel(): Record<string, UsageSummary>;
  /** The USD cost of `usage` on `modelId`, or `undefined` without a price. */
  costOf(modelId: string, usage: Usage): number | undefined;
  /** A `ChatModel` that forwards to `model` and records every successful call's usage. */
  wrap(model: ChatModel, tags?: { runId?: string; label?: string }): ChatModel;
  /** Forgets all records. */
  reset(): void;
}

/** Options for {@link createUsageTracker}. */
export interface UsageTrackerOptions {
  prices?: PriceTable;
  /** Clock for `UsageRecord.at`. */
  now?: () => number;
}

/** Finds the price of a model: an exact key first, else the longest matching glob key. */
export function findPrice(prices: PriceTable, modelId: string): ModelPrice | undefined {
  const exact = prices[modelId];
  if (exact) return exact;
  let best: { pattern: string; price: ModelPrice } | undefined;
  for (const [pattern, price] of Object.entries(prices)) {
    if (!pattern.includes('*') && !pattern.includes('?')) continue;
    if (matchesModelPattern(pattern, modelId) && (!best || pattern.length > best.pattern.length)) {
      best = { pattern, price };
    }
  }
  return best?.price;
}

/**
 * Splits `usage.inputTokens` into what the provider bills at the full input rate, what it read
 * from its prompt cache and what it wrote to it (the last two are part of `inputTokens`).
 */
export function splitInputTokens(usage: Usage): { fullRate: number; cacheRead: number; cacheWrite: number } {
  const cacheRead = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const cacheWrite = Math.min(usage.cacheWriteInputTokens ?? 0, usage.inputTokens - cacheRead);
  return { fullRate: usage.inputTokens - cacheRead - cacheWrite, cacheRead, cacheWrite };
}

/**
 * The USD cost of `usage` at `price`: cache reads at the cached rate, cache writes at the
 * cache-write rate, the rest of the input at the input rate, plus output.
 */
export function computeCost(usage: Usage, price: ModelPrice): number {
  const { fullRate, cacheRead, cacheWrite } = splitInputTokens(usage);
  return (
    (fullRate * price.inputPerMTok +
      cacheRead * (price.cachedInputPerMTok ?? price.inputPerMTok) +
      cacheWrite * (price.cacheWriteInputPerMTok ?? price.inputPerMTok) +
      usage.outputTokens * price.outputPerMTok) /
    1_000_000
  );
}

function summarize(records: readonly UsageRecord[]): UsageSummary {
  let usage = emptyUsage();
  let costUsd = 0;
  const unpriced = new Set<string>();
  for (const record of records) {
    usage = addUsage(usage, record.usage);
    if (record.costUsd === undefined) unpriced.add(record.modelId);
    else costUsd += record.costUsd;
  }
  return { calls: records.length, usage, costUsd, unpricedModels: [...unpriced] };
}

/**
 * Creates a usage tracker. Record calls yourself (`record`) or wrap a model (`wrap`).
 *
 * @example
 * const tracker = createUsageTracker({ prices: { 'gpt-4.1*': { inputPerMTok: 2, outputPerMTok: 8 } } });
 * const model = tracker.wrap(openaiModel, { runId: 'run-1' });
 * // … later
 * tracker.forRun('run-1').costUsd;
 */
export function createUsageTracker(options: UsageTrackerOptions = {}): UsageTracker {
  const { prices = {}, now = Date.now } = options;
  const records: UsageRecord[] = [];
  const costOf = (modelId: string, usage: Usage): number | undefined => {
    const price = findPrice(prices, modelId);
    return price ? computeCost(usage, price) : undefined;
  };
  const record = (input: UsageInput): UsageRecord => {
    const costUsd = costOf(input.modelId, input.usage);
    const entry: UsageRecord = { ...input, usage: { ...input.usage }, at: now() };
    if (costUsd !== undefined) entry.costUsd = costUsd;
    records.push(entry);
    return entry;
  };
  return {
    record,
    records,
    total: () => summarize(records),
    forRun: (runId) => summarize(records.filter((entry) => entry.runId === runId)),
    byModel: () => {
      const groups = new Map<string, UsageRecord[]>();
      for (const entry of records) groups.set(entry.modelId, [...(groups.get(entry.modelId) ?? []), entry]);
      return Object.fromEntries([...groups].map(([modelId, group]) => [modelId, summarize(group)]));
    },
    costOf,
    reset: () => {
      records.length = 0;
    },
    wrap: (model, tags = {}) => {
      const note = (usage: Usage) =>
        record({ modelId: model.modelId, provider: model.provider, usage, ...tags });
      return {
        specificationVersion: 'v1',
        provider: model.provider,
        modelId: model.modelId,
        capabilities: model.capabilities,
        async doGenerate(request: GenerateRequest, callOptions?: CallOptions) {
          const result = await model.doGenerate(request, callOptions);
          note(result.usage);
          return result;
        },
        async *doStream(request: GenerateRequest, callOptions?: CallOptions): AsyncGenerator<StreamPart> {
          for await (const part of model.doStream(request, callOptions)) {
            if (part.type === 'finish') note(part.result.usage);
            yield part;
          }
        },
      };
    },
  };
}
