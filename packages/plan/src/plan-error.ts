import { ClosedloopError } from '@closedloop/model';

const marker = Symbol.for('closedloop.plan.error');

/** Every way a plan operation can be refused. */
export type PlanErrorCode =
  | 'invalid-plan'
  | 'invalid-argument'
  | 'duplicate-step'
  | 'unknown-step'
  | 'dangling-dependency'
  | 'cycle'
  | 'illegal-transition'
  | 'completed-step-touched'
  | 'empty-redesign'
  | 'unknown-tool-call'
  | 'duplicate-tool-call'
  | 'invalid-snapshot'
  | 'invalid-event';

/**
 * The one error class of `@closedloop/plan`. A refused mutation throws it and leaves the plan
 * exactly as it was. `PlanError.isInstance(e)` works across duplicate package copies.
 */
export class PlanError extends ClosedloopError<PlanErrorCode> {
  readonly [marker] = true;
  override readonly name = 'PlanError';

  static override isInstance(error: unknown): error is PlanError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
