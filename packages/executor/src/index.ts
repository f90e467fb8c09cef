export type { DependencyOutput } from './build-step-prompt';
export {
  type ExecuteStepOptions,
  executeStep,
  type StepExecutionContext,
  type StepExecutionResult,
  type StepStopReason,
} from './execute-step';
export { ExecutorError, type ExecutorErrorCode } from './executor-error';
export type { ExecutorEvent, ExecutorEventType } from './executor-events';
export { markStepToolName } from './mark-step-tool';
export type { ExecutionLimits, ExecutionMode } from './resolve-execute-options';
export type { DispatchedCall, RecordedOutcome, RecordedTurn, StepJournal, StepReplay } from './step-journal';
export type { AskHumanRequest, GuardCheckInput, GuardDecision, ToolCallGuard } from './tool-call-guard';
