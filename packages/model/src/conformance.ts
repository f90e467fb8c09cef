// @closedloop/model/conformance — the shared provider-adapter conformance suite, the loopback
// server that replays recorded wire-format responses (and the per-file setup of tests that use
// it), and the adapter overhead benchmark.
// Needs `vitest` (an optional peer dependency of @closedloop/model).
export { ConformanceError, type ConformanceErrorCode } from './conformance-error';
export {
  type EventStreamFraming,
  type EventStreamFramingTarget,
  eventStreamFramings,
  runEventStreamFramingSuite,
} from './event-stream-framings';
export { type FixtureReplies, fixtureReplies, type StreamReplyOptions } from './fixture-replies';
export {
  type LoopbackReply,
  type LoopbackServer,
  type LoopbackServerOptions,
  parseRecordedResponse,
  type RecordedRequest,
  type RecordedResponse,
  readRecordedResponse,
  startLoopbackServer,
} from './loopback-server';
export {
  formatOverheadResult,
  type MeasureOverheadOptions,
  measureOverhead,
  median,
  type OverheadResult,
} from './measure-overhead';
export {
  createPromptCacheSimulator,
  estimatePromptTokens,
  type PromptBlock,
  type PromptCacheAccount,
  type PromptCacheSimulatorOptions,
} from './prompt-cache-simulator';
export {
  CANARY_API_KEY,
  type ConformanceRepliesOptions,
  type ConformanceScenarioName,
  type ConformanceTarget,
  conformanceReplies,
  conformanceScenarioNames,
  expectNoSecretLeak,
  runConformanceSuite,
} from './run-conformance-suite';
export {
  type RunToolLoopOptions,
  runToolLoop,
  type ToolLoopOutcome,
  toolLoopFile,
} from './run-tool-loop';
export {
  chatCompletionsWireQuirks,
  runWireQuirkSuite,
  type WireQuirkAnswer,
  type WireQuirkCase,
  type WireQuirkError,
  type WireQuirkTarget,
} from './wire-quirk-suite';
export {
  collectStream,
  type FixtureReplay,
  finishedResult,
  modelRejection,
  replayFixtures,
  streamResult,
  useLoopbackServer,
} from './wire-replay';
