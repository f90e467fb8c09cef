export { type BuiltinProtocolName, builtinProtocols } from './builtin-protocols';
export type { ExecutionEnd } from './check-execution';
export {
  defineProtocol,
  type ProtocolDefinition,
  type ProtocolStepFunction,
  type ProtocolStepOutcome,
  type ProtocolStepResult,
} from './define-protocol';
export type { TestRunner, Tooling, ToolingCommand } from './detect-tooling';
export {
  canFindSymbols,
  type FindSymbolOptions,
  type FoundSymbol,
  findSymbol,
  type SymbolKind,
} from './find-symbol';
export type { Finding, FindingEvidence, FindingStatus, Priority, VerificationLayer } from './finding';
export type {
  ContextRunOptions,
  FunctionalityCase,
  FunctionalityCaseInput,
  HumanReviewDecision,
  HumanReviewHandler,
  HumanReviewRequest,
  Protocol,
  ProtocolContext,
} from './protocol';
export { checkSyntax, type SyntaxCheck, type SyntaxCheckOptions } from './protocols/syntax-check';
export type { SyntaxCommandRunner } from './protocols/syntax-toolchains';
export type { CommandResult } from './run-command';
export type { VerificationMode } from './run-protocols';
export {
  type DeriveSuccessCriteriaOptions,
  deriveSuccessCriteria,
  type SuccessCriterion,
  type SuccessCriterionInput,
} from './success-criteria';
export {
  createToolCallGuard,
  type DestructiveClassification,
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
export type { ChangedFile, ChangeKind, WorkspaceFacts } from './workspace-facts';
export {
  diffSnapshots,
  type FileState,
  type GitRefs,
  type PathChange,
  type SnapshotOptions,
  snapshotWorkspace,
  type WorkspaceChanges,
  type WorkspaceSnapshot,
} from './workspace-snapshot';
