import { type ConformanceScenarioName, runConformanceSuite } from './__conformance__/conformance-suite';
import { type LoopbackReply, readRecordedResponse } from './__conformance__/loopback-server';
import { createOpenAI } from './openai-provider';

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
  // The text stream with its finish chunk, usage chunk and [DONE] missing: the server just ends.
  'stream-cut': sse('text-stream', { limitEvents: 4 }),
  'connection-reset': [{ type: 'reset' }],
  'connection-reset-mid-stream': sse('text-stream', { limitEvents: 3, after: 'destroy' }),
  timeout: [{ type: 'hang' }],
  'abort-mid-stream': sse('text-stream', { limitEvents: 3, after: 'hold' }),
  'abort-generate': [{ type: 'hang' }],
};

runConformanceSuite({
  name: 'openai',
  provider: 'openai',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    // An explicit name keeps the provider id `openai` on a custom baseURL (a proxy of OpenAI).
    createOpenAI({ name: 'openai', baseURL: `${serverUrl}/v1`, apiKey, timeoutMs })('gpt-4.1'),
  replies,
  snapshotHeaders: ['authorization', 'content-type', 'accept', 'x-stainless-retry-count'],
  retryReplies: [...json('rate-limited'), ...json('text')],
});
