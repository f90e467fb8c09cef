export { ClosedloopError } from '@closedloop/model';
export {
  type AggregateAnswerOptions,
  aggregateAnswer,
  aggregatorSystemPrompt,
  fallbackAnswer,
} from './aggregate-answer';
export type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from './approvals';
export { CortexError, type CortexErrorCode } from './cortex-error';
export {
  type Cortex,
  type CortexOptions,
  createCortex,
  type RunEventStream,
  type RunOptions,
} from './create-cortex';
export {
  assessFindings,
  decideTermination,
  type FindingLike,
  type GoalAssessment,
  type StallSignal,
  type TerminationDecision,
  type TerminationInput,
} from './decide-termination';
export {
  type DraftPlanOptions,
  type DraftPlanResult,
  directPlan,
  draftPlan,
  type PlannerOutput,
  plannerOutputSchema,
  plannerSystemPrompt,
} from './draft-plan';
export { goalCriteria } from './goal-verification';
export { isSimpleRequest } from './is-simple-request';
export {
  type JournalHeader,
  type JournalInspection,
  type JournalRecord,
  journalFormat,
  journalVersion,
} from './journal-format';
export {
  createJsonlRunStore,
  type JournalDurability,
  type JsonlRunStore,
  type JsonlRunStoreOptions,
} from './jsonl-run-store';
export { createModelMeter, type ModelMeter, type ModelMeterOptions, type RunBudget } from './meter-model';
export type { ReadyOrder } from './ready-queue';
export { type UncertainCallPolicy, uncertainCallPolicies } from './reconcile-call';
export {
  type CortexEvent,
  type CortexEventType,
  isJournaled,
  isPlanEvent,
  isRunEventOf,
  type ModelCallPurpose,
  planEventTypes,
  type RunEvent,
  type RunEventBase,
  type RunEventOf,
  type RunEventType,
} from './run-events';
export {
  type LeaseHolder,
  type LeaseOptions,
  leaseHeldError,
  leaseLostError,
  newLeaseHolder,
  type RunLease,
  resolveLeaseOptions,
  startHeartbeat,
} from './run-lease';
export type { RemoteStepInput, RemoteStepResult } from './run-remote-step';
export type {
  AttemptReport,
  IterationReport,
  LedgerSummary,
  ReplanReport,
  RunReport,
  RunResult,
  StepReport,
  StepSummary,
  UsageReport,
} from './run-result';
export { isResumableStop } from './run-session';
export {
  assertRunId,
  createMemoryRunStore,
  createRunId,
  type JsonValue,
  type RunMeta,
  type RunStore,
} from './run-store';
export {
  type BatchReplanner,
  type ScheduleStepsOptions,
  type ScheduleStepsResult,
  type StepFinish,
  type StepRunContext,
  type StepRunner,
  type StepRunOutcome,
  scheduleSteps,
} from './schedule-steps';
export type { ExecutorSettings, PlanningMode } from './session-config';
export {
  createStallDetector,
  normalizeError,
  type StallDetector,
  type StallDetectorOptions,
  type StallObservation,
} from './stall-detector';
export type { AdoptOptions, StepTask, StepTaskRunner } from './step-task';
export { isStopReason, type StopReason, stopReasons } from './stop-reason';
