export {
  createRedactor,
  isSecretEnvName,
  isSecretName,
  type Redactor,
  type RedactorOptions,
  registerSecret,
} from '@closedloop/model';
export {
  baseEnvNames,
  type CheckedCommand,
  type CommandPolicy,
  checkCommand,
  commandEnv,
  defaultAllowedPrograms,
  defaultNpxPackages,
  defaultProgramRules,
  isResolvedCommandPolicy,
  localBinPrograms,
  type ProgramRule,
  type ProgramRuleHelpers,
  type ResolvedCommandPolicy,
  resolveCommandPolicy,
} from './command-policy';
export {
  type CommandResult,
  type CommandToolsOptions,
  formatCommandResult,
  type GitStatus,
  type GitStatusEntry,
  parseGitStatus,
} from './command-tools';
export {
  type CommandRunner,
  type CommandRunnerOptions,
  type CommandRunOptions,
  type CommandRunResult,
  createCommandRunner,
  gitHardening,
} from './create-command-runner';
export {
  createToolRegistry,
  type ToolErrorOutcome,
  type ToolExecuteContext,
  type ToolRegistry,
  type ToolRegistryOptions,
  type ValidToolCall,
} from './create-tool-registry';
export { type DefineToolOptions, defineTool } from './define-tool';
export type { FileToolsOptions } from './file-tools';
export { normalizeToolArguments, parseToolInput } from './parse-tool-input';
export { defaultPythonModules } from './program-rules';
export { resolveInWorkspace } from './resolve-in-workspace';
export type { ProcessResult, ProcessRunResult } from './run-process';
export {
  defaultHiddenPaths,
  probeArguments,
  probeSandbox,
  type SandboxMode,
  type SandboxOptions,
  type SandboxProbe,
} from './sandbox';
export type { AnyTool, Tool, ToolContext, ToolErrorCode, ToolOutcome, ToolProgress } from './tool';
export { ToolError } from './tool-error';
export { truncateText } from './truncate-text';
export { type WorkspaceToolsOptions, workspaceTools } from './workspace-tools';
