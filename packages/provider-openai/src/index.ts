export {
  type BuildOpenAIRequestOptions,
  buildOpenAIRequest,
  isReasoningModelId,
  isStrictCompatibleSchema,
  type OpenAIChatSettings,
  type OpenAIReasoningEffort,
  toOpenAIMessages,
} from './build-openai-request';
export { type MapErrorContext, mapOpenAIError } from './map-openai-error';
export { OpenAIChatModel, type OpenAIChatModelConfig } from './openai-chat-model';
export {
  createOpenAI,
  type OpenAIChatModelId,
  type OpenAIProvider,
  type OpenAIProviderOptions,
  openai,
} from './openai-provider';
export { confidenceFromLogprobs, mapOpenAIFinishReason, mapOpenAIUsage } from './parse-openai-response';
