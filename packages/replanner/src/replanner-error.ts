import { ClosedloopError } from '@closedloop/model';

const marker = Symbol.for('closedloop.replanner.error');

/** Every way `replan` / `buildPrompt` can end without a {@link ReplanOutcome}. */
export type ReplannerErrorCode =
  /**
   * Bad input, found before the model is called: no failed ids, an unknown id, a completed step
   * among the failed steps or their downstream, a `maxAttempts` that is not an integer ≥ 0,
   * duplicate or invalid tool names.
   */
  | 'invalid-input'
  /**
   * The model call failed (after `@closedloop/model`'s retry policy): rate limit, overload,
   * network, auth, bad request… `cause` is the `ModelError`. The plan is unchanged; the caller
   * decides whether to retry the replan, stop, or block the steps.
   */
  | 'model-error'
  /** The signal aborted before the redesign was applied. The plan is unchanged. */
  | 'aborted'
  /**
   * The plan refused a redesign that passed the replanner's validation (for example because the
   * plan changed while the model was answering). `cause` is the `PlanError`; the plan is unchanged.
   */
  | 'apply-failed';

/**
 * The one error class of `@closedloop/replanner`. Thrown only when there is no outcome to report
 * and the plan was left exactly as it was. `ReplannerError.isInstance(e)` works across duplicate
 * package copies.
 */
export class ReplannerError extends ClosedloopError<ReplannerErrorCode> {
  readonly [marker] = true;
  override readonly name = 'ReplannerError';

  /** True for a `ReplannerError` from any copy of this package. */
  static override isInstance(error: unknown): error is ReplannerError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
