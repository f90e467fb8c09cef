import type { Plan, ReadonlyStep, StepId } from '@closedloop/plan';
import type { PlanView } from './plan-view';
import { ReplannerError } from './replanner-error';

/** Which steps one replan touches, and how. Computed before the model is called. */
export interface ReplanScope {
  /** The failed ids as given, deduplicated, in the order given. */
  failed: StepId[];
  /** Failed steps that are redesigned (passed to `replaceSubgraph`), in display order. */
  redesigned: StepId[];
  /** Every step the redesign removes: `redesigned`, then their downstream in topological order. */
  removed: StepId[];
  /** `removed` minus the failed steps: what depends on the failed steps, topological order. */
  downstream: StepId[];
  /**
   * Failed steps that are not redesigned but blocked (with their downstream): their
   * `replanAttempts` reached `maxAttempts`, or they depend on such a step.
   */
  exhausted: StepId[];
}

function lookup(plan: Plan, view: PlanView, id: StepId): ReadonlyStep {
  const step = typeof id === 'string' ? view.step(id) : undefined;
  if (step === undefined) {
    throw new ReplannerError({
      code: 'invalid-input',
      message: `Failed step ${JSON.stringify(id)} is not a step of plan ${JSON.stringify(plan.id)}; pass ids of existing steps.`,
      details: { stepId: id },
    });
  }
  return step;
}

/**
 * Splits the failed steps into those redesigned (with their downstream) and those blocked at the
 * attempt limit, and checks that no completed step would be touched. Throws
 * `ReplannerError('invalid-input')`.
 */
export function computeReplanScope(
  plan: Plan,
  failedIds: readonly StepId[],
  options: {
    maxAttempts: number;
    view: PlanView;
  },
): ReplanScope {
  const { view } = options;
  if (!Array.isArray(failedIds) || failedIds.length === 0) {
    throw new ReplannerError({
      code: 'invalid-input',
      message: 'replan needs at least one failed step id (got an empty list).',
    });
  }
  const failed = [...new Set(failedIds)];
  for (const id of failed) {
    const step = lookup(plan, view, id);
    if (step.status === 'completed') {
      throw new ReplannerError({
        code: 'invalid-input',
        message: `Step ${JSON.stringify(id)} is completed; completed steps are never replanned. Pass only failed steps.`,
        details: { stepId: id, status: step.status },
      });
    }
  }

  const atLimit = failed.filter((id) => view.step(id)!.replanAttempts >= options.maxAttempts);
  const blockedRegion = new Set<StepId>(atLimit);
  if (atLimit.length > 0) for (const id of plan.downstreamOf(atLimit)) blockedRegion.add(id);
  const roots = failed.filter((id) => !blockedRegion.has(id));

  const removedSet = new Set<StepId>(roots);
  const downstream: StepId[] = [];
  if (roots.length > 0) {
    for (const id of plan.downstreamOf(roots)) {
      removedSet.add(id);
      downstream.push(id);
    }
  }
  // No completed step can be downstream of a failed one: the plan only starts a step whose
  // dependencies all completed, and a completed step never changes again.
  const failedSet = new Set(failed);
  const redesigned: StepId[] = [];
  // Failed steps are never completed (checked above): the unfinished ids give their display order.
  for (const id of view.unfinished) if (failedSet.has(id) && removedSet.has(id)) redesigned.push(id);
  return {
    failed,
    redesigned,
    removed: [...redesigned, ...downstream.filter((id) => !failedSet.has(id))],
    downstream: downstream.filter((id) => !failedSet.has(id)),
    exhausted: failed.filter((id) => !removedSet.has(id)),
  };
}
