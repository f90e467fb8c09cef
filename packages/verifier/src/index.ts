export { type BuiltinProtocolName, builtinProtocols } from './builtin-protocols';
export {
  defineProtocol,
  type ProtocolDefinition,
  type ProtocolStepFunction,
  type ProtocolStepOutcome,
  type ProtocolStepResult,
} from './define-protocol';
export {
  canFindSymbols,
  type FindSymbolOptions,
  type FoundSymbol,
  findSymbol,
  type SymbolKind,
} from './find-symbol';
export type { Finding, FindingEvidence, FindingStatus, Priority, VerificationLayer } from './finding';
export type {
  FunctionalityCase,
  FunctionalityCaseInput,
  HumanReviewDecision,
  HumanReviewHandler,
  HumanReviewRequest,
  Protocol,
  ProtocolContext,
} from './protocol';
export { checkSyntax, type SyntaxCheck, type SyntaxCheckOptions } from './protocols/syntax-check';
export type { VerificationMode } from './run-protocols';
export {
  type DeriveSuccessCriteriaOptions,
  deriveSuccessCriteria,
  type SuccessCriterion,
  type SuccessCriterionInput,
} from './success-criteria';
export {
  createToolCallGuard,
  type GuardCheckInput,
  type GuardDecision,
  type GuardHumanRequest,
  type ToolCallGuard,
  type ToolCallGuardOptions,
} from './tool-call-guard';
export type {
  ToolContract,
  ToolContractInput,
  ToolContractSet,
  ToolContractSetInput,
  ToolContractsConfig,
  ToolContractsConfigInput,
} from './tool-contracts';
export { type CheckTiming, toVerificationRecord, type Verdict, type VerificationReport } from './verdict';
export { VerifierError, type VerifierErrorCode } from './verifier-error';
export {
  type CriterionResult,
  type GoalContext,
  type GoalVerificationReport,
  type VerifyGoalOptions,
  verifyGoal,
} from './verify-goal';
export { type VerifyStepOptions, verifyStep } from './verify-step';
export {
  diffSnapshots,
  type SnapshotOptions,
  snapshotWorkspace,
  type WorkspaceChanges,
  type WorkspaceSnapshot,
} from './workspace-snapshot';
