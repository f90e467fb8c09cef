import type { Plan, Step, StepId, StepStatus } from '@closedloop/plan';

/**
 * A read-only view of a plan for one replan: the completed and the unfinished step ids (display
 * order), statuses, the completed steps upstream of the failure, and copies of the steps actually
 * looked at (cached).
 *
 * `plan.steps` copies every step with its ledger; on a 10,000-step plan that would be most of the
 * prompt's cost. Statuses come from `plan.status(id)` (no copy), so every way a status changes
 * (`step-marked`, `replan-applied`, `steps-added`, `step-reset`, a restored snapshot) is the
 * plan's own truth, not re-derived here.
 */
export interface PlanView {
  /** Ids of the completed steps, in display order. */
  readonly completed: readonly StepId[];
  /** Ids of every other step (not completed), in display order. */
  readonly unfinished: readonly StepId[];
  /**
   * Steps upstream of the failed steps that ran, in topological order (nearest to the failure
   * last). All of them are completed by the plan's invariants.
   */
  readonly upstream: readonly StepId[];
  /** Status of a step of the plan (`undefined` for an unknown id). */
  status(id: StepId): StepStatus | undefined;
  /** A (cached) copy of a step; `undefined` for an unknown id. */
  step(id: StepId): Step | undefined;
}

const unfinishedStatuses: readonly StepStatus[] = [
  'not_started',
  'in_progress',
  'failed',
  'blocked',
  'skipped',
];

/** Builds a {@link PlanView} of `plan` as it is now, around the steps that failed. */
export function createPlanView(plan: Plan, failedIds: readonly StepId[]): PlanView {
  const cache = new Map<StepId, Step>();
  const known = (id: StepId) => typeof id === 'string' && plan.has(id);
  const step = (id: StepId): Step | undefined => {
    let found = cache.get(id);
    if (found === undefined && known(id)) {
      found = plan.step(id);
      cache.set(id, found);
    }
    return found;
  };
  const status = (id: StepId): StepStatus | undefined => (known(id) ? plan.status(id) : undefined);
  const ran = failedIds.filter((id) => {
    const current = status(id);
    return current === 'failed' || current === 'in_progress';
  });
  const upstream = ran.length === 0 ? [] : plan.upstreamOf(ran);
  return {
    completed: plan.idsWithStatus('completed'),
    unfinished: plan.idsWithStatus(unfinishedStatuses),
    upstream,
    status,
    step,
  };
}
