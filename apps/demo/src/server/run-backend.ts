import type { ApprovalHandler, RunEvent } from '@closedloop/cortex';
import type { ModelInfo } from '../runner/select-model';
import type { StepChanges } from '../workspace-changes/step-change-recorder';

/** How a step may act: `single` = at most one successful tool call per step, `auto` = several. */
export type RunMode = 'single' | 'auto';

/** What the server hands the run backend when the page asks for a run. */
export interface StartRunInput {
  /** The user's task; `undefined` runs the backend's built-in scenario. */
  task?: string | undefined;
  mode: RunMode;
  /** Aborted by `POST /api/runs/:id/cancel` (and by `close()`). */
  signal: AbortSignal;
  /** Every event of the run, as it happens (the same stream the CLI renders), live-only ones included. */
  onEvent: (event: RunEvent) => void;
  /** Answers the run's approval requests with what the page's buttons post. */
  onApproval?: ApprovalHandler | undefined;
}

/** A run the backend started. `result` settles when the run is over (it should not reject). */
export interface StartedRun {
  runId: string;
  result: Promise<unknown>;
}

/** Starts a run (the runner's `startRun`, `runner/demo-runner.ts`). */
export type StartRunFunction = (input: StartRunInput) => Promise<StartedRun>;

/** Continues an interrupted run from its journal. */
export type ResumeRunFunction = (
  input: Omit<StartRunInput, 'task' | 'mode'> & { runId: string },
) => Promise<StartedRun>;

/** Every journaled event of a run, or `undefined` when there is no such run. */
export type ReadRunFunction = (runId: string) => Promise<RunEvent[] | undefined>;

/** What the backend knows about a run besides its events. */
export type DescribeRunFunction = (
  runId: string,
) => Promise<{ model?: ModelInfo | undefined; workspace?: string | undefined } | undefined>;

/** The recorded workspace changes of a step (one entry per run of the step). */
export type ReadStepChangesFunction = (runId: string, stepId: string) => Promise<StepChanges[]>;

/** Everything the web server needs from the run backend; only `startRun` and `readRun` are required. */
export interface RunBackend {
  startRun: StartRunFunction;
  readRun: ReadRunFunction;
  resumeRun?: ResumeRunFunction | undefined;
  describeRun?: DescribeRunFunction | undefined;
  readStepChanges?: ReadStepChangesFunction | undefined;
  /**
   * The model typed tasks run on. `null`: none is configured, and the server refuses typed tasks
   * (the built-in scenario still runs); `undefined`: unknown, the backend decides.
   */
  model?: ModelInfo | null | undefined;
}
