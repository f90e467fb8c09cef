import type { ReadonlyStep, StepId } from '@closedloop/plan';
import { type EarlierRedesign, stepOutcome } from './replan-history';

/**
 * What one replanner remembers of the redesigns it applied, per plan id, so that failure context
 * survives a plan restored from a snapshot (`Plan.fromJSON` starts a new event log). Bounded:
 * the oldest plan is forgotten past `maxPlans`, the oldest redesign past `maxPerPlan`.
 */
export class ReplanMemory {
  readonly #plans = new Map<string, EarlierRedesign[]>();
  readonly #maxPlans: number;
  readonly #maxPerPlan: number;

  constructor(options: { maxPlans?: number; maxPerPlan?: number } = {}) {
    this.#maxPlans = options.maxPlans ?? 100;
    this.#maxPerPlan = options.maxPerPlan ?? 20;
  }

  /** The remembered redesigns of a plan, oldest first. */
  redesigns(planId: string): readonly EarlierRedesign[] {
    return this.#plans.get(planId) ?? [];
  }

  /**
   * Records an applied redesign. `removedSteps` are the steps it removed, in the state they had
   * just before: remembered redesigns that contained them keep that final state.
   */
  record(
    planId: string,
    options: { redesign: Omit<EarlierRedesign, 'replacedSteps'>; removedSteps: readonly ReadonlyStep[] },
  ): void {
    const entries = this.#plans.get(planId) ?? [];
    let updated: EarlierRedesign[] = [];
    if (entries.length > 0) {
      const finalState = new Map(options.removedSteps.map((step) => [step.id, step]));
      updated = entries.map((entry) => ({
        ...entry,
        steps: entry.steps.map((step) => {
          const last = finalState.get(step.id);
          return last === undefined ? step : stepOutcome(last);
        }),
      }));
    }
    updated.push({ ...options.redesign, replacedSteps: options.removedSteps.map(stepOutcome) });
    while (updated.length > this.#maxPerPlan) updated.shift();
    this.#plans.delete(planId);
    this.#plans.set(planId, updated);
    while (this.#plans.size > this.#maxPlans) {
      const oldest = this.#plans.keys().next().value as string;
      this.#plans.delete(oldest);
    }
  }

  /** Forgets one plan (or everything). */
  clear(planId?: StepId): void {
    if (planId === undefined) this.#plans.clear();
    else this.#plans.delete(planId);
  }
}
