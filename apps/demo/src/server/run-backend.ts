import type { RunEvent } from '@closedloop/cortex';
import type { ResumeRunInput, StartRunInput } from '../runner/demo-runner';
import type { ModelInfo } from '../runner/select-model';
import type { StepChanges } from '../workspace-changes/step-change-recorder';

export type { ResumeRunInput, RunMode, StartRunInput } from '../runner/demo-runner';

/** A run the backend started. `result` settles when the run is over (it should not reject). */
export interface StartedRun {
  runId: string;
  result: Promise<unknown>;
}

/** Starts a run (the runner's `startRun`, `runner/demo-runner.ts`). */
export type StartRunFunction = (input: StartRunInput) => Promise<StartedRun>;

/** Continues an interrupted run from its journal. */
export type ResumeRunFunction = (input: ResumeRunInput) => Promise<StartedRun>;

/** Every journaled event of a run, or `undefined` when there is no such run. */
export type ReadRunFunction = (runId: string) => Promise<RunEvent[] | undefined>;

/** What the backend knows about a run besides its events. */
export type DescribeRunFunction = (
  runId: string,
) => Promise<{ model?: ModelInfo | undefined; workspace?: string | undefined } | undefined>;

/** The recorded workspace changes of a step (one entry per run of the step). */
export type ReadStepChangesFunction = (runId: string, stepId: string) => Promise<StepChanges[]>;

/** The runs of a store that is not a journal folder (Redis), most recently written first. */
export type ListRunsFunction = () => Promise<{ runId: string; updatedAt: number }[]>;

/**
 * A run's journaled events from index `from` on, then live as they are journaled (a run other
 * processes drive, e.g. on Redis), until `signal` aborts.
 */
export type FollowRunFunction = (
  runId: string,
  options: { from: number; signal: AbortSignal },
) => AsyncIterable<{ index: number; event: RunEvent }>;

/** Everything the web server needs from the run backend; only `startRun` and `readRun` are required. */
export interface RunBackend {
  startRun: StartRunFunction;
  readRun: ReadRunFunction;
  resumeRun?: ResumeRunFunction | undefined;
  describeRun?: DescribeRunFunction | undefined;
  readStepChanges?: ReadStepChangesFunction | undefined;
  /** Lists runs from the backend's store instead of the journal folder (scale-out on Redis). */
  listRuns?: ListRunsFunction | undefined;
  /** Streams runs this server did not start live (other processes drive them) instead of ending at the journal's end. */
  followRun?: FollowRunFunction | undefined;
  /** Cancels a run this server did not start (another process drives it, e.g. on Redis). */
  cancelRun?: ((runId: string) => Promise<void>) | undefined;
  /**
   * The model typed tasks run on. `null`: none is configured, and the server refuses typed tasks
   * (the built-in scenario still runs); `undefined`: unknown, the backend decides.
   */
  model?: ModelInfo | null | undefined;
}
