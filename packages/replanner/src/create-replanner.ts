import {
  type ChatMessage,
  type ChatModel,
  type GenerateObjectOptions,
  generateObject,
  ModelError,
  type Usage,
} from '@closedloop/model';
import { addUsage } from '@closedloop/model/provider';
import type { Plan, Step, StepId } from '@closedloop/plan';
import type { EarlierRedesign } from './replan-history';
import { ReplanMemory } from './replan-memory';
import { replannerSystemPrompt } from './replan-prompt';
import { type ReplanResult, replanResultSchema } from './replan-result';
import { applyRedesign, blockSteps, type PreparedReplan, prepareReplan } from './replan-session';
import { ReplannerError } from './replanner-error';
import type { ReplannerTool } from './replanner-tools';
import { type RedesignProblem, validateRedesign } from './validate-redesign';

/** Options of {@link createReplanner}. */
export interface ReplannerOptions {
  /** The model that redesigns (any `ChatModel`: an adapter, or `ScriptedModel` in tests). */
  model: ChatModel;
  /**
   * Redesigns allowed per step lineage (default 2: original execution + 2 redesigns = 3 chances).
   * A failed step whose `replanAttempts` reached it is blocked instead of redesigned.
   */
  maxAttempts?: number;
  /** Longest tool result shown in the prompt before it is cut with a marker (plan default 2000). */
  maxResultChars?: number;
  /**
   * Characters of completed steps' tool history in the prompt. The steps nearest to the failure
   * (its upstream, closest first) get their full history until the budget is spent; the others
   * are named in one line. Default: half the model's context window (`capabilities.contextWindow`
   * tokens × 2 characters), at least 20,000; 200,000 when the model does not give its window.
   * `Infinity` always shows every completed step.
   */
  maxHistoryChars?: number;
  /** Retry policy for transport errors of each model call (`@closedloop/model`'s), or `false`. */
  retry?: GenerateObjectOptions['retry'];
  /** Sampling temperature for the redesign calls (provider default when omitted). */
  temperature?: number;
}

/** Options of `replanner.buildPrompt`. */
export interface BuildReplanPromptOptions {
  /** The tools the new steps may use: `ToolSpec`s or closedloop tools. Pass `[]` for none. */
  tools: readonly ReplannerTool[];
  /** The run's goal (default: `plan.goal`). */
  goal?: string;
  /**
   * Earlier failed redesigns the replanner cannot see in the plan's event log or its memory
   * (e.g. the plan was restored from a snapshot in another process). Only those in the lineage of
   * the failed subgraph are shown and checked.
   */
  history?: readonly EarlierRedesign[];
}

/** Options of `replanner.replan`. */
export interface ReplanOptions extends BuildReplanPromptOptions {
  /** Aborting rejects with `ReplannerError('aborted')` and leaves the plan unchanged. */
  signal?: AbortSignal;
}

/** Why a replan gave up. */
export type ReplanGiveUpReason =
  /** The model answered `give_up` (its reason is in `message`). */
  | 'model-gave-up'
  /** Every failed step reached `maxAttempts`; the model was not called. */
  | 'max-attempts'
  /** Two redesigns in a row failed validation (first answer + one repair turn). */
  | 'invalid-redesign'
  /** The model's answers were not valid JSON for `ReplanResult`, even after generateObject's repair. */
  | 'invalid-response';

/** The redesign was applied. */
export interface ReplanRedesignOutcome {
  action: 'redesign';
  /** Every removed step (failed ∪ downstream), topological order. */
  removed: StepId[];
  /** The inserted steps with their final ids, absolute dependencies and attempt counters. */
  added: Step[];
  /** The new steps' `replanAttempts` (1 for the first redesign of a lineage). */
  attempt: number;
  /** Every draft the model gave, in order; the last one was applied. */
  drafts: ReplanResult[];
  /** The problems of each rejected draft (empty when the first draft was valid). */
  problems: RedesignProblem[][];
  /** Failed steps at the attempt limit blocked in the same batch (with their downstream). */
  blocked: StepId[];
  /** Tokens over all model calls. */
  usage: Usage;
}

/** Nothing was redesigned; the failed steps and their downstream are blocked. */
export interface ReplanGiveUpOutcome {
  action: 'give_up';
  reason: ReplanGiveUpReason;
  /** Human-readable detail: the model's reason, the attempt limit, the last problems. */
  message: string;
  /** Every step this replan blocked (failed steps and the unfinished steps downstream). */
  blocked: StepId[];
  /** The drafts the model gave (both, for `invalid-redesign`). */
  drafts?: ReplanResult[];
  /** The problems of each rejected draft. */
  problems?: RedesignProblem[][];
  /** The raw answers that did not parse (`invalid-response`). */
  rawOutputs?: readonly string[];
  /** Tokens over all model calls (absent when the model was not called). */
  usage?: Usage;
}

/** What `replan` resolves with. Model failures and aborts reject with {@link ReplannerError}. */
export type ReplanOutcome = ReplanRedesignOutcome | ReplanGiveUpOutcome;

/** A configured replanner. */
export interface Replanner {
  /**
   * Redesigns the failed steps and everything downstream of them with one model call (batch:
   * overlapping downstream sets are merged), validates the answer (one repair turn with the
   * exact problems), and applies it with `plan.replaceSubgraph` — or gives up and blocks them.
   *
   * Resolves with a {@link ReplanOutcome}. Rejects with `ReplannerError`: `invalid-input` (bad ids,
   * nothing changed), `model-error` (the model call failed after retries; plan unchanged — the
   * caller decides), `aborted` (plan unchanged), `apply-failed` (the plan refused; unchanged).
   * Run one replan per plan at a time.
   */
  replan(plan: Plan, failedIds: readonly StepId[], options: ReplanOptions): Promise<ReplanOutcome>;
  /** The exact user prompt `replan` would send now (the system prompt is `replannerSystemPrompt`). */
  buildPrompt(plan: Plan, failedIds: readonly StepId[], options: BuildReplanPromptOptions): string;
}

function checkOptions(options: ReplannerOptions): {
  maxAttempts: number;
  maxResultChars: number | undefined;
  maxHistoryChars: number;
} {
  if (typeof options !== 'object' || options === null || typeof options.model?.doGenerate !== 'function') {
    throw new ReplannerError({
      code: 'invalid-input',
      message: 'createReplanner needs { model } with a ChatModel (an adapter, or ScriptedModel in tests).',
    });
  }
  const maxAttempts = options.maxAttempts ?? 2;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 0) {
    throw new ReplannerError({
      code: 'invalid-input',
      message: `maxAttempts must be an integer >= 0, got ${String(maxAttempts)}.`,
      details: { maxAttempts },
    });
  }
  const { maxResultChars } = options;
  if (maxResultChars !== undefined && (!Number.isInteger(maxResultChars) || maxResultChars < 1)) {
    throw new ReplannerError({
      code: 'invalid-input',
      message: `maxResultChars must be an integer >= 1, got ${String(maxResultChars)}.`,
      details: { maxResultChars },
    });
  }
  const contextWindow = options.model.capabilities?.contextWindow;
  const maxHistoryChars =
    options.maxHistoryChars ??
    Math.max(20_000, typeof contextWindow === 'number' && contextWindow > 0 ? contextWindow * 2 : 200_000);
  if (!(maxHistoryChars > 0)) {
    throw new ReplannerError({
      code: 'invalid-input',
      message: `maxHistoryChars must be a number > 0 (Infinity for no limit), got ${String(maxHistoryChars)}.`,
      details: { maxHistoryChars },
    });
  }
  return { maxAttempts, maxResultChars, maxHistoryChars };
}

function abortedError(cause: unknown): ReplannerError {
  return new ReplannerError({
    code: 'aborted',
    message: 'The replan was aborted; the plan is unchanged.',
    cause,
  });
}

function repairMessage(problems: readonly RedesignProblem[]): string {
  return [
    'Your redesign was rejected and nothing was applied. Problems:',
    ...problems.map((problem, index) => `${index + 1}. ${problem.message}`),
    '',
    'Answer again with the complete corrected JSON object (the whole redesign, not only the changes), or give_up with the reason.',
  ].join('\n');
}

/**
 * Creates a replanner: subgraph redesign of failed steps and their downstream, every failure of
 * a round in one call. Completed steps are never touched; their full tool history goes into the prompt.
 *
 * @example
 * const replanner = createReplanner({ model });
 * const outcome = await replanner.replan(plan, ['5'], { tools: registry.specs(), goal: plan.goal });
 * if (outcome.action === 'redesign') console.log(outcome.added.map((step) => step.id));
 */
export function createReplanner(options: ReplannerOptions): Replanner {
  const { maxAttempts, maxResultChars, maxHistoryChars } = checkOptions(options);
  const { model } = options;
  const memory = new ReplanMemory();

  const prepare = (plan: Plan, failedIds: readonly StepId[], prepareOptions: BuildReplanPromptOptions) =>
    prepareReplan(plan, failedIds, {
      tools: prepareOptions?.tools,
      goal: prepareOptions?.goal,
      history: prepareOptions?.history,
      maxAttempts,
      maxResultChars,
      maxHistoryChars,
      memory,
    });

  function giveUp(
    plan: Plan,
    prepared: PreparedReplan,
    outcome: Omit<ReplanGiveUpOutcome, 'action' | 'blocked'>,
  ): ReplanGiveUpOutcome {
    const blocked = blockSteps(plan, prepared.scope.failed);
    return { action: 'give_up', ...outcome, blocked };
  }

  async function replan(
    plan: Plan,
    failedIds: readonly StepId[],
    replanOptions: ReplanOptions,
  ): Promise<ReplanOutcome> {
    const signal = replanOptions?.signal;
    if (signal?.aborted) throw abortedError(signal.reason);
    const prepared = prepare(plan, failedIds, replanOptions);
    const { scope } = prepared;
    if (scope.redesigned.length === 0) {
      return giveUp(plan, prepared, {
        reason: 'max-attempts',
        message: `Step(s) ${scope.exhausted.join(', ')} reached the limit of ${maxAttempts} redesign(s); blocked without asking the model.`,
      });
    }

    const messages: ChatMessage[] = [{ role: 'user', content: prepared.prompt! }];
    const drafts: ReplanResult[] = [];
    const problems: RedesignProblem[][] = [];
    let usage: Usage | undefined;
    for (let turn = 1; turn <= 2; turn++) {
      let object: ReplanResult;
      try {
        const answer = await generateObject(model, replanResultSchema, {
          messages,
          system: replannerSystemPrompt,
          name: 'replan_result',
          description: 'A redesign of the failed subgraph, or give_up.',
          ...(signal === undefined ? {} : { signal }),
          ...(options.retry === undefined ? {} : { retry: options.retry }),
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        });
        object = answer.object;
        usage = usage === undefined ? answer.usage : addUsage(usage, answer.usage);
      } catch (error) {
        if (signal?.aborted || (ModelError.isInstance(error) && error.code === 'aborted')) {
          throw abortedError(error);
        }
        if (
          ModelError.isInstance(error) &&
          error.code === 'invalid-response' &&
          error.rawOutputs !== undefined
        ) {
          return giveUp(plan, prepared, {
            reason: 'invalid-response',
            message: `The model's answer was not a valid ReplanResult: ${error.message}`,
            ...(drafts.length > 0 ? { drafts, problems } : {}),
            rawOutputs: error.rawOutputs,
            ...(usage === undefined ? {} : { usage }),
          });
        }
        throw new ReplannerError({
          code: 'model-error',
          message: `The replanner's model call failed${
            ModelError.isInstance(error) ? ` (${error.code}${error.isRetryable ? ', retryable' : ''})` : ''
          }: ${error instanceof Error ? error.message : String(error)}. The plan is unchanged.`,
          details: ModelError.isInstance(error)
            ? { modelErrorCode: error.code, isRetryable: error.isRetryable, turn }
            : { turn },
          cause: error,
        });
      }
      if (signal?.aborted) throw abortedError(signal.reason);
      drafts.push(object);

      if (object.action === 'give_up') {
        return giveUp(plan, prepared, {
          reason: 'model-gave-up',
          message: object.reason,
          drafts,
          problems,
          ...(usage === undefined ? {} : { usage }),
        });
      }

      const found = validateRedesign(object, prepared.validation);
      if (found.length === 0) {
        const applied = applyRedesign(plan, prepared, { redesign: object, drafts, memory });
        return { action: 'redesign', ...applied, drafts, problems, usage: usage! };
      }
      problems.push(found);
      messages.push(
        { role: 'assistant', content: JSON.stringify(object) },
        { role: 'user', content: repairMessage(found) },
      );
    }
    return giveUp(plan, prepared, {
      reason: 'invalid-redesign',
      message: `Both redesigns were invalid. Last problems: ${problems
        .at(-1)!
        .map((problem) => problem.message)
        .join(' ')}`,
      drafts,
      problems,
      ...(usage === undefined ? {} : { usage }),
    });
  }

  return {
    replan,
    buildPrompt(plan, failedIds, buildOptions) {
      const prepared = prepare(plan, failedIds, buildOptions);
      if (prepared.prompt === undefined) {
        throw new ReplannerError({
          code: 'invalid-input',
          message: `Every failed step (${prepared.scope.exhausted.join(', ')}) reached the limit of ${maxAttempts} redesign(s); there is nothing to ask the model — replan blocks them.`,
          details: { exhausted: prepared.scope.exhausted },
        });
      }
      return prepared.prompt;
    },
  };
}
