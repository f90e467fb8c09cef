import { ClosedloopError } from '@closedloop/model';

const marker = Symbol.for('closedloop.cortex.error');

/** Every way cortex can refuse a request or fail outside a run's typed stop reasons. */
export type CortexErrorCode =
  /** `run(request)` got an empty or non-string request. */
  | 'invalid-request'
  /** An option of `createCortex` or `run` is out of range or of the wrong type. */
  | 'invalid-options'
  /** The planner's draft failed `Plan.create` twice (first answer and the one repair turn). */
  | 'invalid-plan'
  /** The planner's draft had more than `planner.maxSteps` steps twice (first answer and the repair turn). */
  | 'plan-too-large'
  /** A run id is not a safe file name (`[A-Za-z0-9._-]`, 1–128 characters, not `.`/`..`). */
  | 'invalid-run-id'
  /** `run(request, { runId })` named a run id the store already has. */
  | 'run-exists'
  /** `resume(runId)` found no journal for that id. */
  | 'unknown-run'
  /** A stored journal line is not a valid record, its seqs have a gap, or two writers wrote one seq. */
  | 'journal-corrupt'
  /** A journal file exists but holds no event (0 bytes, or only its header). */
  | 'journal-empty'
  /**
   * A run has metadata (or a durable point) but its journal file is missing: nothing to resume
   * (never a silent restart).
   */
  | 'journal-missing'
  /** A journal ends in a torn line (a write that did not complete); `repair` drops it. */
  | 'journal-truncated'
  /** A journal has no format header or a format version this package cannot read. */
  | 'journal-version'
  /**
   * A journal holds fewer records than its run made durable (recorded outside the journal, in the
   * JSONL store's `.durable` record or the run's metadata): it was cut back, restored from an older
   * copy or lost its tail after acknowledging it. Events that were acted on are missing, so the
   * run cannot be resumed without repeating effects; `details` has `expectedSeq` and `foundSeq`.
   */
  | 'journal-rolled-back'
  /** A journal or its metadata belongs to another run (its header or record names another run id). */
  | 'journal-mismatch'
  /** Another live process holds the run's lease (it is running or resuming the run). */
  | 'run-leased'
  /** This process's lease of a run was taken over by another process. */
  | 'lease-lost'
  /** The run store could not read or write. */
  | 'store-failed'
  /** `resume(runId)` was called for a run that is still active in this process. */
  | 'run-active'
  /**
   * `resume(runId)` on a cortex that does not fit the run: another workspace than the one the run
   * worked in, or without tools the run was planned with.
   */
  | 'resume-mismatch'
  /** A step handed between processes does not fit: a bad `cortex.runStep` input or `task.adopt` events. */
  | 'invalid-step-task';

/**
 * The one error class of `@closedloop/cortex`. `run` and `resume` throw it only for bad input
 * before a run starts; once a run starts, every outcome is a `RunResult` with a typed
 * `stopReason`. `CortexError.isInstance(e)` works across duplicate package copies.
 */
export class CortexError extends ClosedloopError<CortexErrorCode> {
  readonly [marker] = true;
  override readonly name = 'CortexError';

  /** True for a `CortexError` from any copy of this package. */
  static override isInstance(error: unknown): error is CortexError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
