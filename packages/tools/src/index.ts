export type { AnyTool, Tool, ToolContext, ToolErrorCode, ToolOutcome, ToolProgress } from './tool';
