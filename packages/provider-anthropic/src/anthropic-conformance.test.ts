// The shared conformance suite lives in provider-openai (test code only, never published); it is
// imported by relative path so both adapters run the very same scenarios and assertions.
import {
  type ConformanceScenarioName,
  runConformanceSuite,
} from '../../provider-openai/src/__conformance__/conformance-suite';
import {
  type LoopbackReply,
  readRecordedResponse,
} from '../../provider-openai/src/__conformance__/loopback-server';
import { createAnthropic } from './anthropic-provider';

const fixture = (name: string) =>
  readRecordedResponse(new URL(`./__fixtures__/${name}.http`, import.meta.url));
const json = (name: string): LoopbackReply[] => [{ type: 'response', response: fixture(name) }];
const sse = (
  name: string,
  extra: Partial<Extract<LoopbackReply, { type: 'response' }>> = {},
): LoopbackReply[] => [{ type: 'response', response: fixture(name), chunking: 'events', ...extra }];

const replies: Record<ConformanceScenarioName, LoopbackReply[]> = {
  text: json('text'),
  'text-stream': sse('text-stream'),
  conversation: json('conversation'),
  'tool-call': json('tool-call'),
  'parallel-tool-calls': sse('parallel-tool-calls'),
  'tool-call-no-arguments': sse('tool-call-no-arguments'),
  'tool-arguments-split': sse('tool-arguments-split'),
  'structured-output': json('structured-output'),
  'structured-output-stream': sse('structured-output-stream'),
  'unknown-finish-reason': json('unknown-finish-reason'),
  'rate-limited': json('rate-limited'),
  'server-error-500': json('server-error-500'),
  'bad-gateway-502': json('bad-gateway-502'),
  'unavailable-503': json('unavailable-503'),
  'overloaded-529': json('overloaded-529'),
  'auth-canary': json('auth-canary'),
  'context-length': json('context-length'),
  'bad-request': json('bad-request'),
  'malformed-json': json('malformed-json'),
  'stream-error-event': sse('stream-error-event'),
  // message_start, content_block_start, ping and two text deltas, then the server just ends.
  'stream-cut': sse('text-stream', { limitEvents: 5 }),
  'connection-reset': [{ type: 'reset' }],
  'connection-reset-mid-stream': sse('text-stream', { limitEvents: 4, after: 'destroy' }),
  timeout: [{ type: 'hang' }],
  'abort-mid-stream': sse('text-stream', { limitEvents: 5, after: 'hold' }),
  'abort-generate': [{ type: 'hang' }],
};

runConformanceSuite({
  name: 'anthropic',
  provider: 'anthropic',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    createAnthropic({ baseURL: serverUrl, apiKey, timeoutMs })('claude-sonnet-4-6'),
  replies,
  snapshotHeaders: ['x-api-key', 'anthropic-version', 'content-type', 'accept', 'x-stainless-retry-count'],
  retryReplies: [...json('rate-limited'), ...json('text')],
});
