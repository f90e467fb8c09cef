export type { FormatToolHistoryOptions } from './format-tool-history';
export {
  type AddStepsOptions,
  type AddStepsResult,
  type CreatePlanOptions,
  type MarkStepOptions,
  Plan,
  type PlanListener,
  type PlanOptions,
  type ReplaceSubgraphResult,
  type ReplayOptions,
  type ResetStepOptions,
  type StepCounts,
  type ToolCallInput,
  type ToolResultInput,
} from './plan';
export {
  PlanError,
  type PlanErrorCode,
  type PlanErrorDetails,
  type PlanErrorDetailsByCode,
} from './plan-error';
export { type PlanEvent, type PlanEventOf, type PlanEventType, planEventSchema } from './plan-events';
export { PLAN_SNAPSHOT_VERSION, type PlanSnapshot, planSnapshotSchema } from './plan-snapshot';
export {
  type DeepReadonly,
  type PlanInput,
  planInputSchema,
  type ReadonlyStep,
  type Step,
  type StepAttempt,
  type StepClaims,
  type StepClaimsInput,
  type StepDraft,
  type StepId,
  type StepStatus,
  type SubgraphDraft,
  type ToolCallRecord,
  type ToolCallStatus,
  type VerificationRecord,
  type VerificationRecordInput,
} from './schema';
export { formatStepNotes, type ParsedStepNotes, parseStepNotes, type StepNotesStatus } from './step-notes';
export { isLegalTransition, isTerminalStatus } from './step-transitions';
