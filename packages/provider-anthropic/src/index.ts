export { AnthropicChatModel, type AnthropicChatModelConfig } from './anthropic-chat-model';
export {
  type AnthropicChatModelId,
  type AnthropicProvider,
  type AnthropicProviderOptions,
  anthropic,
  createAnthropic,
} from './anthropic-provider';
export type { AnthropicChatSettings, AnthropicRequestOptions } from './build-anthropic-request';
