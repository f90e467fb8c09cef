import { ClosedloopError } from '@closedloop/model';

const marker = Symbol.for('closedloop.bullmq.error');

/** Every way `@closedloop/bullmq` refuses a request outside the run store's own `CortexError`s. */
export type ScaleOutErrorCode =
  /** An option is missing, out of range or of the wrong type (a bad Redis URL included). */
  | 'invalid-options'
  /** Redis did not answer (`pingRedis`). */
  | 'redis-unreachable'
  /** `submit` named a run id that is queued or stored already. */
  | 'run-exists'
  /** A job on a closedloop queue is missing or does not have the shape this version writes. */
  | 'invalid-job'
  /** A step's transcript belongs to another attempt: this worker lost the step (its lock expired). */
  | 'step-fenced'
  /** A step job was cancelled (its run stopped). */
  | 'step-cancelled'
  /**
   * A worker's workspace for a run is not the one the run's earlier steps acted on (another
   * folder, a stale copy): it refuses the step instead of acting on the wrong files.
   */
  | 'workspace-mismatch'
  /**
   * A step's grant of the run's workspace lock is gone (taken over by the step's next attempt,
   * freed as dead, or Redis unreachable while renewing it): the attempt stops instead of acting
   * without the lock.
   */
  | 'workspace-lock-lost'
  /** A run was cancelled while it waited for a coordinator: it never started and has no result. */
  | 'run-cancelled'
  /**
   * A run's job vanished from Redis while its result was awaited (Redis lost its data: restarted
   * without persistence, flushed, or evicting keys): the run has no result.
   */
  | 'run-lost';

/**
 * The error class of `@closedloop/bullmq` (the Redis run store throws cortex's `CortexError`, as
 * the `RunStore` contract says). `ScaleOutError.isInstance(e)` works across package copies.
 */
export class ScaleOutError extends ClosedloopError<ScaleOutErrorCode> {
  readonly [marker] = true;
  override readonly name = 'ScaleOutError';

  /** True for a `ScaleOutError` from any copy of this package. */
  static override isInstance(error: unknown): error is ScaleOutError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
