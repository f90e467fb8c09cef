export { ClosedloopError } from '@closedloop/model';
export type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from './approvals';
export { CortexError, type CortexErrorCode } from './cortex-error';
export {
  type Cortex,
  type CortexOptions,
  createCortex,
  type RunEventStream,
  type RunOptions,
} from './create-cortex';
export type { FindingLike, GoalAssessment, StallSignal } from './decide-termination';
export { isSimpleRequest } from './is-simple-request';
export type { JournalHeader, JournalInspection, JournalRecord } from './journal-format';
export {
  createJsonlRunStore,
  type JournalDurability,
  type JsonlRunStore,
  type JsonlRunStoreOptions,
} from './jsonl-run-store';
export type { RunBudget } from './meter-model';
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
export type { LeaseHolder, LeaseOptions, RunLease } from './run-lease';
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
  UnverifiedStepReport,
  UsageReport,
} from './run-result';
export { isResumableStop } from './run-session';
export { createMemoryRunStore, createRunId, type JsonValue, type RunMeta, type RunStore } from './run-store';
export type { StepRunOutcome } from './schedule-steps';
export type { AcceptUnverified, ExecutorSettings, PlanningMode } from './session-config';
export type { AdoptOptions, StepTask, StepTaskRunner } from './step-task';
export { isStopReason, type StopReason, stopReasons } from './stop-reason';
export type { WorkspaceLock } from './workspace-lock';
