import type { ExecutorEvent } from '@closedloop/executor';
import type { FinishReason, Usage } from '@closedloop/model';
import type { PlanEvent, PlanEventType, StepId } from '@closedloop/plan';
import type { FindingLike, GoalAssessment } from './decide-termination';
import type { StepSummary } from './run-result';
import type { StopReason } from './stop-reason';

/** Fields every run event carries. */
export interface RunEventBase {
  runId: string;
  /** Epoch milliseconds. */
  at: number;
}

/** What produced a model call, for usage accounting. */
export type ModelCallPurpose = 'planner' | 'step' | 'replanner' | 'verifier' | 'aggregate';

/** Events cortex itself emits (noun-then-verb, kebab-case). */
export type CortexEvent =
  | {
      type: 'run-started';
      request: string;
      /** True when this is `resume(runId)` continuing a journaled run. */
      resumed: boolean;
    }
  | {
      type: 'plan-drafted';
      planId: string;
      /** `planner`: an LLM plan; `direct`: a one-step plan without a planner call. */
      source: 'planner' | 'direct';
      /** Goal-level success criteria, checked by goal verification. */
      successCriteria: string[];
      /** Goal-level protocol names (e.g. `TEST`). */
      protocols: string[];
      /** Planner calls made (2 when the repair turn was needed, 0 for `direct`). */
      attempts: number;
    }
  | {
      type: 'step-started';
      stepId: StepId;
      attempt: number;
      /** True when a resume continues the step's interrupted attempt (replayed from the journal). */
      resumed?: boolean;
    }
  | {
      /**
       * Resume found a tool call that had started (`tool-call-dispatched`) but has no recorded
       * result, and decided what is true: `applied` (the workspace shows its effect: recorded as
       * done, not re-run), `not-applied` (no effect: re-run), `conflicting` (the target changed
       * some other way: recorded as an error, not re-run), `re-run` (an idempotent tool, the
       * `onUncertain: 'rerun'` policy or a human's approval), `accepted` (a human accepted an
       * effect the workspace shows as done), `declined` (no approval: the step is blocked),
       * `failed` (`onUncertain: 'fail'`: the step failed and is replanned).
       */
      type: 'tool-call-reconciled';
      stepId: StepId;
      callId: string;
      tool: string;
      outcome: 'applied' | 'not-applied' | 'conflicting' | 're-run' | 'accepted' | 'declined' | 'failed';
      /** What was compared and found, for the report. */
      detail: string;
    }
  | {
      /** The step could not be verified: it runs once more with the verifier's reasons (same baseline). */
      type: 'step-retried';
      stepId: StepId;
      /** The attempt about to run (2 for the first retry). */
      attempt: number;
      reason: string;
      /** The instructions the attempt runs with (the verifier's reasons): a resume gives them again. */
      instructions?: string;
    }
  | {
      type: 'step-finished';
      stepId: StepId;
      /** `interrupted`: the run stopped while the step ran (it stays `in_progress`, resume decides). */
      status: 'completed' | 'failed' | 'blocked' | 'interrupted';
      verdict?: 'success' | 'success-with-warnings' | 'retry' | 'failed' | 'unverified';
      /** The output is unverified, by its own verification or inherited from an upstream step. */
      unverified: boolean;
      /** Confidence 0..1 after propagation (min of own and upstream), when known. */
      confidence?: number;
      /** Upstream steps whose unverified output this step consumed. */
      unverifiedUpstream?: StepId[];
      /** Why the step's own verification was unverified (the checks that could not run, or no evidence). */
      unverifiedReason?: string;
      /** Executor attempts in this run of the step (2 when an unverified attempt was retried). */
      attempts?: number;
      durationMs: number;
      error?: string;
    }
  | { type: 'finding-reported'; scope: 'step' | 'goal'; stepId?: StepId; finding: FindingLike }
  | {
      type: 'replan-requested';
      failed: StepId[];
      /** `step-failed`: a batch of failed steps; `goal-repair`: P1 goal checks failed. */
      reason: 'step-failed' | 'goal-repair';
      /** 1-based count of replanner calls in this run. */
      batch: number;
      /** The failed steps as they were before the replan (for the report). */
      steps: StepSummary[];
    }
  | {
      type: 'replan-finished';
      failed: StepId[];
      reason: 'step-failed' | 'goal-repair';
      batch: number;
      action: 'redesign' | 'give-up' | 'error';
      added: StepId[];
      removed: StepId[];
      message?: string;
    }
  | {
      type: 'goal-verified';
      iteration: number;
      assessment: GoalAssessment;
      verdict?: string;
      findings: FindingLike[];
    }
  | {
      type: 'iteration-finished';
      iteration: number;
      maxIterations: number;
      decision: 'iterate' | 'stop';
      stopReason?: StopReason;
      progressed: boolean;
      reason: string;
      stateHash?: string;
      errorSignature?: string;
      /** The progress metric of the stall detector (passing minus failing goal checks). */
      metric?: number;
    }
  | {
      type: 'approval-requested';
      approvalId: string;
      stepId: StepId;
      /** `tool-call`: the guard asked; `human-review`: the protocol asked; `resume-review`: a non-idempotent step was in flight at a crash. */
      kind: 'tool-call' | 'human-review' | 'resume-review';
      reason: string;
      tool?: string;
      args?: unknown;
      /** For `tool-call`: the ledger id of the held call (resume knows it never ran unless approved). */
      callId?: string;
    }
  | { type: 'approval-resolved'; approvalId: string; stepId: StepId; approved: boolean; note?: string }
  | {
      /**
       * Resume dropped a torn last journal record: the run's previous owner (`holder`) died in
       * the middle of a group commit, which was therefore never acknowledged or acted on.
       */
      type: 'journal-repaired';
      droppedBytes: number;
      holder: { pid: number; host: string };
    }
  | {
      /** One per successful model call of any purpose (planner, step, replanner, verifier, aggregate). */
      type: 'usage-recorded';
      purpose: ModelCallPurpose;
      stepId?: StepId;
      usage: Usage;
      costUsd: number;
      // The call's details (absent in journals written before they were recorded).
      /** `ChatModel.provider`. */
      provider?: string;
      /** The requested model. */
      modelId?: string;
      /** The model that answered, when the provider says. */
      responseModelId?: string;
      /** The provider's id of the response. */
      responseId?: string;
      finishReason?: FinishReason;
      /** From the request to the last byte of the answer. */
      durationMs?: number;
    }
  | {
      /** A model call that threw (any purpose), including an aborted one. Retried calls fail once each. */
      type: 'model-call-failed';
      purpose: ModelCallPurpose;
      stepId?: StepId;
      provider: string;
      modelId: string;
      durationMs: number;
      /** The `ModelError` code (`rate-limit`, `aborted`, …; `unknown` for anything else) and message. */
      error: { code: string; message: string };
    }
  | {
      type: 'run-finished';
      stopReason: StopReason;
      reason: string;
      answer: string;
      /** Where the answer came from. */
      answerSource: 'model' | 'fallback' | 'step';
      error?: { code?: string; message: string };
    };

/** Every event type cortex emits itself. */
export type CortexEventType = CortexEvent['type'];

/**
 * The typed event stream of a run: the plan's own events (forwarded from `plan.subscribe`), cortex's
 * run events, and the executor's events (model calls, tool progress, text deltas), each with
 * `runId` and `at`.
 */
export type RunEvent =
  | (PlanEvent & { runId: string })
  | (CortexEvent & RunEventBase)
  | (ExecutorEvent & RunEventBase);

/** The `type` of every {@link RunEvent}. */
export type RunEventType = RunEvent['type'];

/** The run event of one type, e.g. `RunEventOf<'steps-added'>` (for exhaustive folds and filters). */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** Listed as a record so a new plan event type fails to compile here until it is added. */
const planEventTypeRecord: Record<PlanEventType, true> = {
  'plan-created': true,
  'step-marked': true,
  'tool-call-started': true,
  'tool-call-finished': true,
  'step-finalized': true,
  'step-verified': true,
  'replan-applied': true,
  'steps-added': true,
  'step-reset': true,
};

/**
 * Every plan event type a run forwards (`plan-created`, `step-marked`, `tool-call-started`,
 * `tool-call-finished`, `step-finalized`, `step-verified`, `replan-applied`, `steps-added`,
 * `step-reset`). A view that folds the plan from a run's events handles these.
 */
export const planEventTypes: readonly PlanEventType[] = Object.keys(planEventTypeRecord) as PlanEventType[];

const planEventTypeSet: ReadonlySet<string> = new Set(planEventTypes);

/** True for the events that come from the plan (and rebuild it with `Plan.replay`). */
export function isPlanEvent(event: RunEvent): event is PlanEvent & { runId: string } {
  return planEventTypeSet.has(event.type);
}

/** Narrows a run event to one type: `events.filter(isRunEventOf('step-reset'))`. */
export function isRunEventOf<T extends RunEventType>(type: T): (event: RunEvent) => event is RunEventOf<T> {
  return (event): event is RunEventOf<T> => event.type === type;
}

const liveOnlyTypes: ReadonlySet<string> = new Set(['text-delta', 'tool-call-delta', 'tool-call-progress']);

/**
 * Events that are not journaled: streaming deltas (`text-delta`, `tool-call-delta`,
 * `tool-call-progress`) are live-view only; everything else is appended to the run store.
 */
export function isJournaled(event: RunEvent): boolean {
  return !liveOnlyTypes.has(event.type);
}
