export {
  type CheckedCommand,
  type CommandPolicy,
  defaultAllowedPrograms,
  type ProgramRule,
  type ProgramRuleHelpers,
  type ResolvedCommandPolicy,
  resolveCommandPolicy,
} from './command-policy';
export type { CommandToolsOptions } from './command-tools';
export {
  type CommandRunner,
  type CommandRunnerOptions,
  type CommandRunOptions,
  type CommandRunResult,
  createCommandRunner,
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
export { defaultResourceLimits, type ResourceLimits } from './resource-limits';
export type { ProcessResult, ProcessRunResult } from './run-process';
export { probeSandbox, type SandboxMode, type SandboxOptions, type SandboxProbe } from './sandbox';
export type { AnyTool, Tool, ToolContext, ToolErrorCode, ToolOutcome, ToolProgress } from './tool';
export { ToolError } from './tool-error';
export { type WorkspaceToolsOptions, workspaceTools } from './workspace-tools';
