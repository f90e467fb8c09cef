export {
  AISDKChatModel,
  type AISDKLanguageModel,
  type FromAISDKOptions,
  fromAISDK,
} from './ai-sdk-chat-model';
