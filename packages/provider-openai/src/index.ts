export {
  type BuildOpenAIRequestOptions,
  buildOpenAIRequest,
  isReasoningModelId,
  isStrictCompatibleSchema,
  type OpenAIChatSettings,
  type OpenAIReasoningEffort,
  toOpenAIMessages,
  wireToolCallId,
} from './build-openai-request';
export {
  type BuildResponsesRequestOptions,
  buildResponsesRequest,
  type OpenAIResponsesSettings,
  toResponsesInput,
} from './build-responses-request';
export { type MapErrorContext, mapOpenAIError } from './map-openai-error';
export { OpenAIChatModel, type OpenAIChatModelConfig } from './openai-chat-model';
export {
  genericCompatibleProfile,
  type OpenAICompatibleProfile,
  type OpenAICompatibleProfileName,
  openAICompatibleProfiles,
  profileForBaseURL,
} from './openai-compatible-profiles';
export {
  createOpenAI,
  type OpenAIChatModelId,
  type OpenAIProvider,
  type OpenAIProviderOptions,
  openai,
} from './openai-provider';
export { type OpenAIRequestOptions, openAIRequestOptionsSchema } from './openai-request-options';
export { mapResponsesFinishReason, mapResponsesUsage, OpenAIResponsesModel } from './openai-responses-model';
export {
  compatReasoning,
  confidenceFromLogprobs,
  findUsage,
  mapOpenAIFinishReason,
  mapOpenAIUsage,
  mergeReasoningDetails,
  splitContent,
} from './parse-openai-response';
export { splitThinkTags, ThinkTagSplitter } from './think-tag-splitter';
export { unwrappedErrorBody, withOpenAIErrorBodies } from './with-openai-error-bodies';
