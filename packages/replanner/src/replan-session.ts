import {
  isTerminalStatus,
  type Plan,
  PlanError,
  type Step,
  type StepId,
  type SubgraphDraft,
} from '@closedloop/plan';
import { createPlanView } from './plan-view';
import { type EarlierRedesign, lineageOf, redesignsFromEvents, stepOutcome } from './replan-history';
import type { ReplanMemory } from './replan-memory';
import { buildReplanPrompt } from './replan-prompt';
import type { ReplanRedesign, ReplanResult } from './replan-result';
import { computeReplanScope, type ReplanScope } from './replan-scope';
import { ReplannerError } from './replanner-error';
import { type ReplannerTool, toToolSpecs } from './replanner-tools';
import { type FailedDesign, failedDesign, type RedesignValidationContext } from './validate-redesign';

/** Everything one replan computes before the model call, reused to validate and apply its answer. */
export interface PreparedReplan {
  scope: ReplanScope;
  /** What `validateRedesign` checks the answer against. */
  validation: RedesignValidationContext;
  /** The user prompt; `undefined` when nothing is redesigned (every failed step at the limit). */
  prompt: string | undefined;
}

/** Inputs of {@link prepareReplan}. */
export interface PrepareReplanOptions {
  tools: readonly ReplannerTool[] | undefined;
  goal?: string | undefined;
  history?: readonly EarlierRedesign[] | undefined;
  maxAttempts: number;
  maxResultChars: number | undefined;
  maxHistoryChars: number;
  memory: ReplanMemory;
}

/**
 * Computes the scope (failed ∪ downstream, exhausted steps), the earlier failed redesigns of the
 * subgraph (event log + memory + caller history), the designs that must not be repeated, and the
 * prompt. Reads the plan only. Throws `ReplannerError('invalid-input')`.
 */
export function prepareReplan(
  plan: Plan,
  failedIds: readonly StepId[],
  options: PrepareReplanOptions,
): PreparedReplan {
  const tools = toToolSpecs(options.tools);
  const view = createPlanView(plan, Array.isArray(failedIds) ? failedIds : []);
  const scope = computeReplanScope(plan, failedIds, { maxAttempts: options.maxAttempts, view });
  const removedSteps = scope.removed.map((id) => view.step(id)!);
  const removed = new Set(scope.removed);
  const blockedAfter = new Set<StepId>();
  if (scope.exhausted.length > 0) {
    for (const id of [...scope.exhausted, ...plan.downstreamOf(scope.exhausted)]) {
      if (!removed.has(id)) blockedAfter.add(id);
    }
  }
  const toolNames = new Set(tools.map((tool) => tool.name));
  if (scope.redesigned.length === 0) {
    return {
      scope,
      validation: { plan, removed, blockedAfter, toolNames, failedDesigns: [] },
      prompt: undefined,
    };
  }

  const earlier = lineageOf(
    [
      ...(options.history ?? []),
      ...options.memory.redesigns(plan.id),
      // Only steps added by a redesign (non-empty `replaces`) have earlier redesigns in the log.
      ...(removedSteps.some((step) => step.replaces.length > 0)
        ? redesignsFromEvents(plan, scope.removed)
        : []),
    ],
    { removed: scope.removed, live: (id) => view.step(id) },
  );
  const isCompleted = (id: StepId) => view.status(id) === 'completed';
  const failedDesigns: FailedDesign[] = [
    failedDesign(`the current steps ${scope.removed.join(', ')}`, removedSteps, {
      isCompleted,
    }),
  ];
  // Designs that already failed: the steps each earlier redesign replaced (when they were not
  // themselves from a redesign: the original plan's part) and each redesign's unfinished part.
  const redesignedIds = new Set(earlier.flatMap((redesign) => redesign.steps.map((step) => step.id)));
  earlier.forEach((redesign, index) => {
    const original = (redesign.replacedSteps ?? []).filter((step) => !redesignedIds.has(step.id));
    if (original.length > 0) {
      failedDesigns.push(
        failedDesign(
          `the steps ${original.map((step) => step.id).join(', ')} that earlier redesign ${index + 1} replaced`,
          original,
          { isCompleted },
        ),
      );
    }
    const unfinished = redesign.steps.filter((step) => step.status !== 'completed');
    if (unfinished.length > 0) {
      failedDesigns.push(failedDesign(`earlier redesign ${index + 1}`, unfinished, { isCompleted }));
    }
  });

  const prompt = buildReplanPrompt({
    plan,
    view,
    scope,
    blockedAfter,
    tools,
    goal: options.goal ?? plan.goal,
    earlier,
    maxAttempts: options.maxAttempts,
    maxResultChars: options.maxResultChars,
    maxHistoryChars: options.maxHistoryChars,
  });
  return {
    scope,
    validation: { plan, removed, blockedAfter, toolNames, failedDesigns },
    prompt,
  };
}

/** Blocks the given steps (cascading to their unfinished downstream) and returns every step blocked. */
export function blockSteps(plan: Plan, ids: readonly StepId[]): StepId[] {
  const start = plan.events.length;
  for (const id of ids) {
    if (!plan.has(id) || isTerminalStatus(plan.status(id))) continue;
    plan.markStep(id, { status: 'blocked' });
  }
  const blocked: StepId[] = [];
  for (let index = start; index < plan.events.length; index++) {
    const event = plan.events[index]!;
    if (event.type === 'step-marked' && event.status === 'blocked') blocked.push(event.stepId);
  }
  return blocked;
}

/** Dependencies without repeats, in order (a fresh array). */
function uniqueDeps(deps: readonly (number | string)[] | undefined): (number | string)[] {
  if (deps === undefined) return [];
  if (deps.length < 2) return [...deps];
  return [...new Set(deps)];
}

/** The plan's draft format for a validated redesign (numbers stay relative indexes). */
export function toSubgraphDraft(redesign: ReplanRedesign): SubgraphDraft {
  return {
    // Built field by field (one object shape): spreading an optional title was V8's slow path.
    steps: redesign.steps.map((step, index) => {
      const draft: SubgraphDraft['steps'][number] = {
        description: step.description.trim(),
        requiredTools: step.requiredTools ?? [],
        successCriteria: step.successCriteria ?? [],
        dependsOn: uniqueDeps(redesign.dependencies[String(index)]),
      };
      const title = step.title?.trim();
      if (title !== undefined && title !== '') draft.title = title;
      return draft;
    }),
  };
}

/** What {@link applyRedesign} returns (the redesign outcome without model bookkeeping). */
export interface AppliedRedesign {
  removed: StepId[];
  added: Step[];
  attempt: number;
  blocked: StepId[];
}

/**
 * Applies a validated redesign: `plan.replaceSubgraph` (atomic), remembers it, then blocks the
 * failed steps at the attempt limit. Throws `ReplannerError('apply-failed')` when the plan
 * refuses (then nothing changed).
 */
export function applyRedesign(
  plan: Plan,
  prepared: PreparedReplan,
  options: { redesign: ReplanRedesign; drafts: readonly ReplanResult[]; memory: ReplanMemory },
): AppliedRedesign {
  const { scope } = prepared;
  // Read just before the surgery (the plan may have moved on during the model call): the memory
  // keeps the removed steps' last state. Once removed, the plan never touches these objects again.
  const removedSteps = scope.removed.filter((id) => plan.has(id)).map((id) => plan.readStep(id));
  let applied: ReturnType<Plan['replaceSubgraph']>;
  try {
    applied = plan.replaceSubgraph(scope.redesigned, toSubgraphDraft(options.redesign));
  } catch (error) {
    if (!PlanError.isInstance(error)) throw error;
    throw new ReplannerError({
      code: 'apply-failed',
      message: `The plan refused the redesign (${error.code}): ${error.message} The plan is unchanged.`,
      details: { planErrorCode: error.code, drafts: options.drafts },
      cause: error,
    });
  }
  options.memory.record(plan.id, {
    redesign: {
      failed: [...scope.redesigned],
      replaced: applied.removed,
      steps: applied.added.map(stepOutcome),
    },
    removedSteps,
  });
  return {
    removed: applied.removed,
    added: applied.added,
    attempt: Math.max(...applied.added.map((step) => step.replanAttempts)),
    blocked: blockSteps(plan, scope.exhausted),
  };
}
