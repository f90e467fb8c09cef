export {
  AISDKChatModel,
  type AISDKLanguageModel,
  type FromAISDKOptions,
  fromAISDK,
  mapAISDKFinishReason,
  mapAISDKUsage,
} from './ai-sdk-chat-model';
export { type MapAISDKErrorOptions, mapAISDKError } from './map-ai-sdk-error';
export { toAISDKCallOptions, toAISDKPrompt } from './to-ai-sdk-call-options';
