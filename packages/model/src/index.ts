export type { ModelCapabilities } from './capabilities';
export type {
  CallOptions,
  ChatMessage,
  ChatModel,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  JsonSchema,
  ReasoningPart,
  StreamPart,
  ToolCall,
  ToolChoice,
  ToolSpec,
  Usage,
} from './chat-model';
export { ModelError, type ModelErrorCode } from './model-error';
