export { linkedAbortController, onAbort } from './abortable-sleep';
export type { ModelCapabilities } from './capabilities';
export {
  type CapabilityLookup,
  type CapabilityRegistration,
  type CapabilitySource,
  lookupCapabilities,
  type ResolveCapabilitiesOptions,
  registerCapabilities,
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
export { ClosedloopError } from './closedloop-error';
export {
  createRedactor,
  isSecretEnvName,
  isSecretName,
  type Redactor,
  type RedactorOptions,
  registerSecret,
} from './create-redactor';
export { type GenerateOptions, generate } from './generate';
export { type GenerateObjectOptions, type GenerateObjectResult, generateObject } from './generate-object';
export { ModelError, type ModelErrorCode, type ModelErrorDetails } from './model-error';
export {
  clearProbeCache,
  type ProbeCapabilitiesOptions,
  type ProbeOutcome,
  type ProbeResult,
  probeCapabilities,
} from './probe-capabilities';
export { type ToToolSpecInput, toToolSpec } from './to-tool-spec';
export {
  computeCost,
  createUsageTracker,
  findPrice,
  type ModelPrice,
  type PriceTable,
  type UsageInput,
  type UsageRecord,
  type UsageSummary,
  type UsageTracker,
  type UsageTrackerOptions,
} from './usage-tracker';
export { type RetryAttempt, type RetryEvent, type RetryOptions, withRetry } from './with-retry';
