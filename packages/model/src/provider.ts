/**
 * Building blocks for `ChatModel` adapters: option checks, error mapping, tool-call parsing,
 * stream assembly, JSON Schema from zod, JSON from model text and usage arithmetic. closedloop's
 * own provider packages are built from these; an adapter for another API imports them from
 * `@closedloop/model/provider`.
 *
 * @packageDocumentation
 */
export {
  type BoundedResponsesOptions,
  defaultMaxResponseBytes,
  withBoundedResponses,
} from './bounded-response';
export { checkCallOptions } from './check-call-options';
export {
  checkModelId,
  checkProviderOptions,
  checkStreamIdleTimeout,
  environmentVariable,
  type ProviderOptionsToCheck,
} from './check-provider-options';
export { contentPartSource } from './content-parts';
export { redactsToItselfWith } from './create-redactor';
export { type EmptyAnswerOptions, emptyAnswerError } from './empty-answer';
export { type ExtractJsonResult, extractJson } from './extract-json';
export { type HtmlPageErrorOptions, htmlPageError, isHtmlContentType, rejectHtmlPage } from './html-page';
export {
  type ErrorClass,
  jsonSyntaxMessage,
  type MapSdkErrorOptions,
  mapSdkError,
  type SdkApiErrorDetails,
  type SdkErrorClasses,
  type SdkErrorRefinement,
} from './map-sdk-error';
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
export { promptCacheKey } from './prompt-cache';
export { parseRateLimitReset, type RateLimitResetSources } from './rate-limit-reset';
export { type RedactSecretsOptions, redactSecrets } from './redact-secrets';
export { isEventStreamResponse, repairEventStream, withRepairedEventStreams } from './repair-event-stream';
export { restatedArguments } from './restated-arguments';
export { type SanitizeErrorCauseOptions, sanitizeErrorCause } from './sanitize-error-cause';
export {
  defaultStreamIdleTimeoutMs,
  defaultStreamTailTimeoutMs,
  type StallGuardedStream,
  type StallTimeoutOptions,
  streamStallError,
  withStallTimeout,
} from './stall-timeout';
export {
  type ResultToStreamOptions,
  resultToStream,
  type StreamToResultOptions,
  streamToResult,
} from './stream-to-result';
export { strictSchemaProblem, useStrictTool } from './strict-schema';
export { stripSchemaKeyword, type ToJsonSchemaOptions, toJsonSchema } from './to-tool-spec';
export {
  createToolCallIds,
  idDigest,
  responseToolCallIds,
  type ToolCallIds,
  type ToolCallIdsOptions,
} from './tool-call-ids';
export { toolCallMarkup } from './tool-call-markup';
export {
  isCompleteToolArguments,
  type TruncatedToolCallErrorOptions,
  truncatedToolCallError,
} from './truncated-tool-call';
export { addUsage, emptyUsage } from './usage';
export { splitInputTokens } from './usage-tracker';
