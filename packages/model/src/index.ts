export { abortableSleep, linkedAbortController, onAbort } from './abortable-sleep';
export type { ModelCapabilities } from './capabilities';
export {
  builtInCapabilities,
  builtInFamilyRules,
  type CapabilityEntry,
  type CapabilityFamilyRule,
  type CapabilityLookup,
  type CapabilityRegistration,
  type CapabilitySource,
  conservativeCapabilities,
  formatCapabilityTable,
  type KnownGeneration,
  lookupCapabilities,
  matchesModelPattern,
  type ResolveCapabilitiesOptions,
  registerCapabilities,
  resetCapabilityRegistry,
  resolveCapabilities,
} from './capability-registry';
export type {
  CallOptions,
  ChatMessage,
  ChatModel,
  ContentPart,
  FileContentPart,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  ImageContentPart,
  JsonSchema,
  PromptCacheOptions,
  ReasoningEffort,
  ReasoningPart,
  ServiceTier,
  StreamPart,
  TextContentPart,
  ToolCall,
  ToolChoice,
  ToolSpec,
  Usage,
} from './chat-model';
export { checkCallOptions } from './check-call-options';
export {
  checkModelId,
  checkProviderOptions,
  environmentVariable,
  type ProviderOptionsToCheck,
} from './check-provider-options';
export { contentPartSource } from './content-parts';
export {
  createRedactor,
  isSecretEnvName,
  isSecretName,
  type Redactor,
  type RedactorOptions,
  registerSecret,
} from './create-redactor';
export { type ExtractJsonResult, extractJson } from './extract-json';
export { type GenerateOptions, generate } from './generate';
export {
  type GenerateObjectOptions,
  type GenerateObjectResult,
  generateObject,
  jsonInstruction,
} from './generate-object';
export {
  type ErrorClass,
  type MapSdkErrorOptions,
  mapSdkError,
  type SdkApiErrorDetails,
  type SdkErrorClasses,
  type SdkErrorRefinement,
} from './map-sdk-error';
export { ModelError, type ModelErrorCode } from './model-error';
export {
  classifyHttpError,
  codeForStatus,
  type HttpErrorInfo,
  type NormalizeErrorOptions,
  normalizeError,
  parseRetryAfter,
} from './normalize-error';
export { parseProviderOptions } from './parse-provider-options';
export { parseToolCall } from './parse-tool-call';
export {
  clearProbeCache,
  type ProbeCapabilitiesOptions,
  type ProbeOutcome,
  type ProbeResult,
  probeCapabilities,
} from './probe-capabilities';
export { promptCacheKey } from './prompt-cache';
export { type RedactSecretsOptions, redactSecrets } from './redact-secrets';
export { type SanitizeErrorCauseOptions, sanitizeErrorCause } from './sanitize-error-cause';
export {
  type ResultToStreamOptions,
  resultToStream,
  type StreamToResultOptions,
  streamToResult,
} from './stream-to-result';
export { strictSchemaProblem, useStrictTool } from './strict-schema';
export {
  stripSchemaKeyword,
  type ToJsonSchemaOptions,
  type ToToolSpecInput,
  toJsonSchema,
  toToolSpec,
} from './to-tool-spec';
export { addUsage, emptyUsage } from './usage';
export {
  computeCost,
  createUsageTracker,
  findPrice,
  type ModelPrice,
  type PriceTable,
  splitInputTokens,
  type UsageInput,
  type UsageRecord,
  type UsageSummary,
  type UsageTracker,
  type UsageTrackerOptions,
} from './usage-tracker';
export { backoffDelay, type RetryAttempt, type RetryEvent, type RetryOptions, withRetry } from './with-retry';
