import { ClosedloopError } from '@closedloop/model';

const marker = Symbol.for('closedloop.executor.error');

/** Every way `executeStep` can refuse to start. Failures during the loop never throw. */
export type ExecutorErrorCode =
  /** An option is out of range or of the wrong type (`limits.maxIterations: 0`, `parallelTools: -1`…). */
  | 'invalid-options'
  /** The plan has no step with that id. */
  | 'unknown-step'
  /** The step is not `in_progress`: the caller sets it before calling `executeStep`. */
  | 'step-not-in-progress'
  /** A caller tool is named like the built-in `mark_step`, or two tools share a name. */
  | 'tool-name-conflict';

/**
 * The one error class of `@closedloop/executor`. Thrown only before the loop starts, for bad
 * input; once the loop runs, every failure (model, tool, guard, abort) ends in a
 * `StepExecutionResult` with a `stopReason` instead. `ExecutorError.isInstance(e)` works across
 * duplicate package copies.
 */
export class ExecutorError extends ClosedloopError<ExecutorErrorCode> {
  readonly [marker] = true;
  override readonly name = 'ExecutorError';

  static override isInstance(error: unknown): error is ExecutorError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
