import { conformanceReplies, fixtureReplies, runConformanceSuite } from '@closedloop/model/conformance';
import { createOpenAI } from './openai-provider';

// Recorded Responses API traffic (JSON and SSE) in `__fixtures__/responses/`, named after the
// scenarios; HTTP error bodies are the same as Chat Completions'. `text-stream.http` cut short:
// response.created, response.in_progress, the message item, its content part and two text
// deltas before the server just ends (6 events); 5 events before the reset and the abort.
const fixtures = fixtureReplies(new URL('./__fixtures__/responses/', import.meta.url));

runConformanceSuite({
  name: 'openai responses',
  provider: 'openai',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    createOpenAI({ name: 'openai', baseURL: `${serverUrl}/v1`, apiKey, timeoutMs }).responses('o4-mini'),
  replies: conformanceReplies(fixtures, { streamCutAfterEvents: 6, resetAfterEvents: 5, holdAfterEvents: 5 }),
  snapshotHeaders: ['authorization', 'content-type', 'accept', 'x-stainless-retry-count'],
  retryReplies: [...fixtures.json('rate-limited'), ...fixtures.json('text')],
});
