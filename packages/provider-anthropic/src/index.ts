export { AnthropicChatModel, type AnthropicChatModelConfig } from './anthropic-chat-model';
export {
  type AnthropicChatModelId,
  type AnthropicProvider,
  type AnthropicProviderOptions,
  anthropic,
  createAnthropic,
} from './anthropic-provider';
export {
  type AnthropicChatSettings,
  type AnthropicRequestOptions,
  anthropicRequestOptionsSchema,
  type BuildAnthropicRequestOptions,
  buildAnthropicRequest,
  placeCacheBreakpoints,
  type ResponseTool,
  supportsStrictTools,
  toAnthropicMessages,
} from './build-anthropic-request';
export { type MapErrorContext, mapAnthropicError } from './map-anthropic-error';
export { mapAnthropicStopReason, mapAnthropicUsage } from './parse-anthropic-response';
