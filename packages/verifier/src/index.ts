export { admitsFailure } from './admits-failure';
export { type BuiltinProtocolName, builtinProtocols, resolveProtocols } from './builtin-protocols';
export { checkExecution, type ExecutionEnd } from './check-execution';
export {
  type Claim,
  type ClaimKind,
  type ClaimSource,
  describeClaim,
  type TestCountClaim,
} from './claim-types';
export { commandKey, isExploratoryCommand, isTestCommand } from './command-runs';
export {
  CONFIDENCE_UNVERIFIED_THRESHOLD,
  CONFIDENCE_USE_THRESHOLD,
  type ConfidenceClass,
  classifyConfidence,
  propagateConfidence,
} from './confidence';
export {
  defineProtocol,
  type ProtocolDefinition,
  type ProtocolStepFunction,
  type ProtocolStepOutcome,
  type ProtocolStepResult,
  protocolDefinitionSchema,
} from './define-protocol';
export { detectTooling, type TestRunner, type Tooling, type ToolingCommand } from './detect-tooling';
export { claimsFromStepClaims, extractClaims, findPaths, splitCommandLine } from './extract-claims';
export {
  claimExtractionSystemPrompt,
  extractClaimsWithModel,
  modelClaimsSchema,
} from './extract-claims-with-model';
export {
  canFindSymbols,
  type FindSymbolOptions,
  type FoundSymbol,
  findSymbol,
  listSymbols,
  type SymbolKind,
} from './find-symbol';
export {
  excerpt,
  type Finding,
  type FindingEvidence,
  type FindingStatus,
  findingEvidenceSchema,
  findingSchema,
  findingStatusSchema,
  type Priority,
  prioritySchema,
  type VerificationLayer,
  verificationLayerSchema,
} from './finding';
export {
  analyseLedger,
  type CallEvidence,
  type CallKind,
  DEFAULT_CONTROL_TOOLS,
  evidenceCalls,
  type FailedCommand,
  type LedgerAnalysis,
  type LedgerError,
  type LedgerEvidenceOptions,
} from './ledger-evidence';
export { parseTestCounts, stripAnsi, type TestCounts } from './parse-test-counts';
export {
  type ContextRunOptions,
  createProtocolContext,
  type FunctionalityCase,
  type FunctionalityCaseInput,
  functionalityCaseSchema,
  type HumanReviewDecision,
  type HumanReviewHandler,
  type HumanReviewRequest,
  type Protocol,
  type ProtocolContext,
  type ProtocolContextOptions,
} from './protocol';
export {
  type ArchitectureChanges,
  detectArchitectureChanges,
  isSecuritySensitive,
} from './protocols/architecture-changes';
export { judgeTestRun } from './protocols/command-protocols';
export { parseCorrectness } from './protocols/functionality-protocol';
export {
  buildJudgePrompt,
  type JudgeVerdict,
  judgeChange,
  judgeVerdictSchema,
} from './protocols/judge-protocols';
export { findCrash } from './protocols/static-protocols';
export {
  checkSyntax,
  type SyntaxCheck,
  type SyntaxCheckOptions,
  type SyntaxCommandRunner,
  syntaxErrors,
} from './protocols/syntax-check';
export { createRerunPolicy, type RerunPolicy } from './rerun-policy';
export { type CommandResult, commandProblem, type RunCommandOptions, runCommand } from './run-command';
export {
  MODE_LAYERS,
  type ProtocolRunResult,
  type RunProtocolsOptions,
  runProtocols,
  type VerificationMode,
  validateProtocols,
} from './run-protocols';
export {
  type ChangeBasis,
  createStepChanges,
  type StepChanges,
  type StepChangesOptions,
} from './step-changes';
export { checkEffects, checkLedger, checkNotes } from './step-checks';
export { type ExpectedOutcome, type StepExpectations, stepExpectations } from './step-expectations';
export {
  type DeriveSuccessCriteriaOptions,
  deriveSuccessCriteria,
  type SuccessCriterion,
  type SuccessCriterionInput,
  successCriterionSchema,
} from './success-criteria';
export {
  classifyDestructive,
  createToolCallGuard,
  type DestructiveClassification,
  type GuardCheckInput,
  type GuardDecision,
  type GuardHumanRequest,
  parseYesNo,
  type ToolCallGuard,
  type ToolCallGuardOptions,
  toolCallGuardSystemPrompt,
} from './tool-call-guard';
export {
  checkToolContracts,
  parseToolContracts,
  resolveToolContracts,
  type ToolContract,
  type ToolContractInput,
  type ToolContractSet,
  type ToolContractSetInput,
  type ToolContractsConfig,
  type ToolContractsConfigInput,
  toolContractSchema,
  toolContractSetSchema,
  toolContractsConfigSchema,
} from './tool-contracts';
export {
  type CheckTiming,
  createReport,
  decideVerdict,
  isOutcomeEvidence,
  PROCESS_CHECKS,
  toVerificationRecord,
  unverifiedReason,
  type Verdict,
  type VerificationReport,
} from './verdict';
export { VerifierError, type VerifierErrorCode } from './verifier-error';
export {
  type CriterionResult,
  type GoalContext,
  type GoalVerificationReport,
  type VerifyGoalOptions,
  verifyGoal,
} from './verify-goal';
export { stepClaims, type VerifyStepOptions, verifyStep } from './verify-step';
export {
  type ChangedFile,
  type ChangeKind,
  createWorkspaceFacts,
  type WorkspaceFacts,
  type WorkspaceFactsOptions,
} from './workspace-facts';
export {
  diffSnapshots,
  type FileState,
  type GitRefs,
  type PathChange,
  readGitRefs,
  type SnapshotOptions,
  snapshotWorkspace,
  type WorkspaceChanges,
  type WorkspaceSnapshot,
} from './workspace-snapshot';
