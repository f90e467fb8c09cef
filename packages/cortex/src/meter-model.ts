import {
  type ChatModel,
  computeCost,
  type FinishReason,
  findPrice,
  type GenerateResult,
  ModelError,
  onAbort,
  type PriceTable,
  type StreamPart,
  type Usage,
} from '@closedloop/model';
import { addUsage, emptyUsage } from '@closedloop/model/provider';
import type { StepId } from '@closedloop/plan';
import type { ModelCallPurpose } from './run-events';

/** A token and/or cost limit for one run. */
export interface RunBudget {
  /** Total tokens (input + output) over every model call of the run. */
  maxTokens?: number;
  /** USD over every priced model call of the run (needs `prices`). */
  maxCostUsd?: number;
}

/** Options of {@link createModelMeter}. */
export interface ModelMeterOptions {
  budget?: RunBudget;
  /** Prices for the cost figure (`@closedloop/model`'s `PriceTable`). Unpriced models cost 0. */
  prices?: PriceTable;
  /** The run's signal: after it aborts no model request starts, and running ones reject at once. */
  signal: AbortSignal;
  /** Usage already spent (a resumed run). */
  initial?: { usage: Usage; costUsd: number; calls: number };
  /** Called after every successful call with its usage and what the provider answered. */
  onUsage?: (record: ModelCallRecord) => void;
  /** Called for every call that failed (including aborted ones), with the error's code and message. */
  onFailure?: (record: ModelCallFailure) => void;
  /** Called once, when the budget is used up (the caller aborts the run). */
  onExhausted?: (message: string) => void;
}

/** Which model a call went to, for what, and how long it took. */
export interface ModelCallInfo {
  purpose: ModelCallPurpose;
  stepId?: StepId;
  /** `ChatModel.provider` (e.g. `openai`, `anthropic`). */
  provider: string;
  /** The requested model (`ChatModel.modelId`). */
  modelId: string;
  durationMs: number;
}

/** A successful model call: its usage, cost and the provider's answer metadata. */
export interface ModelCallRecord extends ModelCallInfo {
  usage: Usage;
  costUsd: number;
  finishReason: FinishReason;
  /** The model that answered, when the provider says (may differ from `modelId`, e.g. a dated version). */
  responseModelId?: string;
  /** The provider's id of the response. */
  responseId?: string;
}

/** A model call that threw (every failure is a `ModelError`). */
export interface ModelCallFailure extends ModelCallInfo {
  error: { code: string; message: string };
}

/** Sums usage over a run, enforces its budget and its abort signal on every model call. */
export interface ModelMeter {
  /** A `ChatModel` that forwards to `model`, counting usage under `purpose`. */
  wrap(model: ChatModel, purpose: ModelCallPurpose, stepId?: StepId): ChatModel;
  /** Usage so far. */
  totals(): { usage: Usage; costUsd: number; calls: number };
  /**
   * Counts usage spent outside this meter (a step run in another process): it adds to the totals
   * and the budget like a call of its own, without calling `onUsage` (the caller journals it).
   */
  add(record: { usage: Usage; costUsd: number }): void;
  /** True once the budget is used up. */
  readonly exhausted: boolean;
}

function abortError(signal: AbortSignal, provider: string): ModelError {
  return new ModelError({
    code: 'aborted',
    message: `${provider}: request aborted`,
    provider,
    cause: signal.reason,
  });
}

/**
 * Rejects as soon as the run's signal or the call's aborts, even when `promise` ignores them.
 * Both are watched through `onAbort`: no signal and no listener per call.
 */
function raceSignal<T>(
  promise: Promise<T>,
  runSignal: AbortSignal,
  callSignal: AbortSignal | undefined,
  provider: string,
): Promise<T> {
  const already = runSignal.aborted ? runSignal : callSignal?.aborted ? callSignal : undefined;
  if (already !== undefined) {
    promise.catch(() => {});
    return Promise.reject(abortError(already, provider));
  }
  return new Promise<T>((resolve, reject) => {
    const cancelRun = onAbort(runSignal, () => reject(abortError(runSignal, provider)));
    const cancelCall =
      callSignal === undefined || callSignal === runSignal
        ? undefined
        : onAbort(callSignal, () => reject(abortError(callSignal, provider)));
    const done = () => {
      cancelRun();
      cancelCall?.();
    };
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/**
 * Creates the meter every model call of a run goes through (planner, executor, replanner,
 * verifier, aggregation): it refuses to start a request once the run's signal has aborted, makes
 * a running request reject as soon as the signal aborts (even if the model ignores the signal),
 * sums usage and cost, and calls `onExhausted` once the budget is used up. The budget is checked
 * after each call: calls already running when it runs out finish (and are counted).
 */
export function createModelMeter(options: ModelMeterOptions): ModelMeter {
  const { signal, budget = {}, prices } = options;
  let usage = options.initial?.usage ?? emptyUsage();
  let costUsd = options.initial?.costUsd ?? 0;
  let calls = options.initial?.calls ?? 0;
  let exhausted = false;

  const checkBudget = (): void => {
    if (exhausted) return;
    const overTokens = budget.maxTokens !== undefined && usage.totalTokens >= budget.maxTokens;
    const overCost = budget.maxCostUsd !== undefined && costUsd >= budget.maxCostUsd;
    if (!overTokens && !overCost) return;
    exhausted = true;
    options.onExhausted?.(
      overTokens
        ? `token budget used up: ${usage.totalTokens} of ${budget.maxTokens} tokens`
        : `cost budget used up: $${costUsd.toFixed(4)} of $${budget.maxCostUsd}`,
    );
  };
  checkBudget();

  /** What a call was, built in one object (it becomes an event: no spread copies per call). */
  const callInfo = (
    model: ChatModel,
    purpose: ModelCallPurpose,
    stepId: StepId | undefined,
    startedAt: number,
  ): ModelCallInfo => {
    const durationMs = Math.round(performance.now() - startedAt);
    return stepId !== undefined
      ? { purpose, stepId, provider: model.provider, modelId: model.modelId, durationMs }
      : { purpose, provider: model.provider, modelId: model.modelId, durationMs };
  };

  const record = (
    model: ChatModel,
    purpose: ModelCallPurpose,
    stepId: StepId | undefined,
    startedAt: number,
    result: GenerateResult,
  ) => {
    const callUsage = result.usage;
    const price = prices ? findPrice(prices, model.modelId) : undefined;
    const cost = price ? computeCost(callUsage, price) : 0;
    usage = addUsage(usage, callUsage);
    costUsd += cost;
    calls++;
    if (options.onUsage !== undefined) {
      // The fields of `callInfo`, then the call's own, in that order.
      const call = callInfo(model, purpose, stepId, startedAt) as ModelCallRecord;
      call.usage = callUsage;
      call.costUsd = cost;
      call.finishReason = result.finishReason;
      if (result.response?.modelId !== undefined) call.responseModelId = result.response.modelId;
      if (result.response?.id !== undefined) call.responseId = result.response.id;
      options.onUsage(call);
    }
    checkBudget();
  };

  const fail = (info: ModelCallInfo, error: unknown): void => {
    if (!options.onFailure) return;
    const modelError = ModelError.isInstance(error) ? error : undefined;
    options.onFailure({
      ...info,
      error: {
        code: modelError?.code ?? 'unknown',
        message: error instanceof Error ? error.message : String(error),
      },
    });
  };

  const refuse = (model: ChatModel): ModelError | undefined => {
    if (signal.aborted) return abortError(signal, model.provider);
    return undefined;
  };

  return {
    get exhausted() {
      return exhausted;
    },
    totals: () => ({ usage: { ...usage }, costUsd, calls }),
    add(record) {
      usage = addUsage(usage, record.usage);
      costUsd += record.costUsd;
      calls++;
      checkBudget();
    },
    wrap(model, purpose, stepId) {
      return {
        specificationVersion: 'v1',
        provider: model.provider,
        modelId: model.modelId,
        capabilities: model.capabilities,
        doGenerate(request, callOptions = {}): Promise<GenerateResult> {
          const refused = refuse(model);
          if (refused) return Promise.reject(refused);
          const startedAt = performance.now();
          // The call's own signal (a step's; cortex derives every one from the run's) goes to the
          // model as is: no `AbortSignal.any` per call. The run's abort is raced below.
          const callSignal = callOptions.signal ?? signal;
          let call: Promise<GenerateResult>;
          try {
            call = model.doGenerate(request, { signal: callSignal });
          } catch (error) {
            call = Promise.reject(error);
          }
          // One promise chain, no async wrapper: settled once the race is, recorded or failed.
          return raceSignal(call, signal, callSignal, model.provider).then(
            (result) => {
              record(model, purpose, stepId, startedAt, result);
              return result;
            },
            (error: unknown) => {
              fail(callInfo(model, purpose, stepId, startedAt), error);
              throw error;
            },
          );
        },
        async *doStream(request, callOptions = {}): AsyncGenerator<StreamPart> {
          const refused = refuse(model);
          if (refused) throw refused;
          const startedAt = performance.now();
          const callSignal = callOptions.signal ?? signal;
          const iterator = model.doStream(request, { signal: callSignal })[Symbol.asyncIterator]();
          try {
            for (;;) {
              let next: IteratorResult<StreamPart>;
              try {
                next = await raceSignal(iterator.next(), signal, callSignal, model.provider);
              } catch (error) {
                fail(callInfo(model, purpose, stepId, startedAt), error);
                throw error;
              }
              if (next.done) return;
              if (next.value.type === 'finish') record(model, purpose, stepId, startedAt, next.value.result);
              yield next.value;
            }
          } finally {
            void iterator.return?.()?.catch(() => {});
          }
        },
      };
    },
  };
}
