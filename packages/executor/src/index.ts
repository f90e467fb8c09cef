export type { DependencyOutput } from './build-step-prompt';
export {
  type ExecuteStepOptions,
  executeStep,
  type StepExecutionResult,
  type StepStopReason,
} from './execute-step';
export { ExecutorError, type ExecutorErrorCode } from './executor-error';
export type { ExecutorEvent, ExecutorEventType } from './executor-events';
export { markStepToolName } from './mark-step-tool';
export type { ExecutionLimits, ExecutionMode } from './resolve-execute-options';
export type { RecordedOutcome, RecordedTurn, StepJournal, StepReplay } from './step-journal';
export type { AskHumanRequest, GuardCheckInput, GuardDecision, ToolCallGuard } from './tool-call-guard';
