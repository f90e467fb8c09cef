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
export { resolveInWorkspace } from './resolve-in-workspace';
export type { ProcessResult } from './run-process';
export type { AnyTool, Tool, ToolContext, ToolErrorCode, ToolOutcome, ToolProgress } from './tool';
export { ToolError } from './tool-error';
export { truncateText } from './truncate-text';
export { type WorkspaceToolsOptions, workspaceTools } from './workspace-tools';
