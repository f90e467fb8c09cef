export {
  type McpCallToolResult,
  type McpClientLike,
  type McpContentBlock,
  type McpToolInfo,
  type McpToolsOptions,
  mcpInputSchema,
  mcpResultText,
  mcpTools,
} from './mcp-tools';
