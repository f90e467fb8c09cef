import type { Plan, ReadonlyStep, StepId, StepStatus } from '@closedloop/plan';

/**
 * A read-only view of a plan for one replan: the completed and the unfinished step ids (display
 * order), statuses, the steps themselves, and the completed steps nearest to the failure.
 *
 * Steps are the plan's own objects (`plan.readStep`), never copies: `plan.steps` or `plan.step`
 * would copy every ledger, on a 10,000-step plan most of the prompt's cost. Statuses come from
 * the plan too, so every way a status changes (`step-marked`, `replan-applied`, `steps-added`,
 * `step-reset`, a restored snapshot) is the plan's own truth, not re-derived here.
 */
export interface PlanView {
  /** Ids of the completed steps, in display order. */
  readonly completed: readonly StepId[];
  /** Ids of every other step (not completed), in display order. */
  readonly unfinished: readonly StepId[];
  /**
   * The steps upstream of the failed steps that ran, nearest first: breadth-first along
   * dependencies, so a step one dependency away comes before one two away. Lazy: a caller that
   * stops after the first hundred steps does not walk the other thousands.
   */
  upstream(): Iterable<StepId>;
  /** Status of a step of the plan (`undefined` for an unknown id). */
  status(id: StepId): StepStatus | undefined;
  /** The live step, read-only (`undefined` for an unknown id). */
  step(id: StepId): ReadonlyStep | undefined;
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
  const known = (id: StepId) => typeof id === 'string' && plan.has(id);
  const step = (id: StepId): ReadonlyStep | undefined => (known(id) ? plan.readStep(id) : undefined);
  const status = (id: StepId): StepStatus | undefined => (known(id) ? plan.status(id) : undefined);
  const ran = failedIds.filter((id) => {
    const current = status(id);
    return current === 'failed' || current === 'in_progress';
  });
  function* upstream(): Generator<StepId> {
    const seen = new Set<StepId>(ran);
    const queue = [...ran];
    for (let head = 0; head < queue.length; head++) {
      for (const dep of plan.readStep(queue[head]!).dependsOn) {
        if (seen.has(dep)) continue;
        seen.add(dep);
        queue.push(dep);
        yield dep;
      }
    }
  }
  return {
    completed: plan.idsWithStatus('completed'),
    unfinished: plan.idsWithStatus(unfinishedStatuses),
    upstream,
    status,
    step,
  };
}
