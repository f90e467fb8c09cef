import type { Plan, Step, StepId, StepStatus } from '@closedloop/plan';

/**
 * A read-only view of a plan for one replan: display order, statuses, the completed steps
 * upstream of the failure, and copies of the steps actually looked at (cached).
 *
 * `plan.steps` copies every step with its ledger; on a 10,000-step plan that would be most of the
 * prompt's cost. So statuses are found without it: a step that failed (or is running) started
 * only after everything upstream of it completed, so when the plan's completed count equals the
 * size of that upstream set, the completed steps are exactly that set and any other step's status
 * is read from its own copy. Otherwise statuses come from a fold over the event log when the log
 * is complete (starts at `plan-created`, seq 0), else from one `plan.steps` copy.
 */
export interface PlanView {
  /** Step ids in display order. */
  readonly order: readonly StepId[];
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

function statusesFromEvents(plan: Plan): Map<StepId, StepStatus> | undefined {
  const events = plan.events;
  const first = events[0];
  if (first === undefined || first.type !== 'plan-created' || first.seq !== 0) return undefined;
  const statuses = new Map<StepId, StepStatus>();
  for (const event of events) {
    switch (event.type) {
      case 'plan-created':
        for (const step of event.steps) statuses.set(step.id, 'not_started');
        break;
      case 'step-marked':
        if (event.status !== undefined) statuses.set(event.stepId, event.status);
        break;
      case 'replan-applied':
        for (const id of event.removed) statuses.delete(id);
        for (const step of event.added) statuses.set(step.id, step.status);
        break;
      default:
        break;
    }
  }
  return statuses.size === plan.size ? statuses : undefined;
}

/** Builds a {@link PlanView} of `plan` as it is now, around the steps that failed. */
export function createPlanView(plan: Plan, failedIds: readonly StepId[]): PlanView {
  const cache = new Map<StepId, Step>();
  const step = (id: StepId): Step | undefined => {
    let found = cache.get(id);
    if (found === undefined && typeof id === 'string' && plan.has(id)) {
      found = plan.step(id);
      cache.set(id, found);
    }
    return found;
  };
  const ran = failedIds.filter((id) => {
    const status = step(id)?.status;
    return status === 'failed' || status === 'in_progress';
  });
  const upstream = ran.length === 0 ? [] : plan.upstreamOf(ran);
  const order = plan.stepIds;

  let status: (id: StepId) => StepStatus | undefined;
  if (plan.counts().completed === upstream.length) {
    const completed = new Set(upstream);
    status = (id) => (completed.has(id) ? 'completed' : step(id)?.status);
  } else {
    let statuses = statusesFromEvents(plan);
    if (statuses === undefined) {
      statuses = new Map();
      for (const copy of plan.steps) {
        cache.set(copy.id, copy);
        statuses.set(copy.id, copy.status);
      }
    }
    const known = statuses;
    status = (id) => known.get(id);
  }
  return { order, upstream, status, step };
}
