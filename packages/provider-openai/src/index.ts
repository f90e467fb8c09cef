export type { OpenAIChatSettings, OpenAIReasoningEffort } from './build-openai-request';
export type { OpenAIResponsesSettings } from './build-responses-request';
export { OpenAIChatModel, type OpenAIChatModelConfig } from './openai-chat-model';
export {
  type OpenAICompatibleProfile,
  type OpenAICompatibleProfileName,
  openAICompatibleProfiles,
} from './openai-compatible-profiles';
export {
  createOpenAI,
  type OpenAIChatModelId,
  type OpenAIProvider,
  type OpenAIProviderOptions,
  openai,
} from './openai-provider';
export type { OpenAIRequestOptions } from './openai-request-options';
export { OpenAIResponsesModel } from './openai-responses-model';
