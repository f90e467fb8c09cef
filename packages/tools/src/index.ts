export {
  baseEnvNames,
  type CheckedCommand,
  type CommandPolicy,
  checkCommand,
  commandEnv,
  defaultAllowedPrograms,
  defaultNpxPackages,
  defaultProgramRules,
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
export { createRedactor, isSecretEnvName, type Redactor, type RedactorOptions } from './create-redactor';
export {
  createToolRegistry,
  type ToolExecuteContext,
  type ToolRegistry,
  type ToolRegistryOptions,
  truncateText,
} from './create-tool-registry';
export { type DefineToolOptions, defineTool } from './define-tool';
export type { FileToolsOptions } from './file-tools';
export { resolveInWorkspace } from './resolve-in-workspace';
export type { ProcessResult } from './run-process';
export type { AnyTool, Tool, ToolContext, ToolErrorCode, ToolOutcome, ToolProgress } from './tool';
export { ToolError } from './tool-error';
export { type WorkspaceToolsOptions, workspaceTools } from './workspace-tools';
