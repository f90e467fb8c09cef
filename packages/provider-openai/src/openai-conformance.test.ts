import { conformanceReplies, fixtureReplies, runConformanceSuite } from '@closedloop/model/conformance';
import { createOpenAI } from './openai-provider';

// Fixtures are named after the scenarios. `text-stream.http` cut short: the role chunk and three
// text deltas, then the server just ends (the last text deltas, the finish chunk, the usage chunk
// and [DONE] never come); 3 events before the reset and before the abort.
const fixtures = fixtureReplies(new URL('./__fixtures__/', import.meta.url));
const replies = conformanceReplies(fixtures, {
  streamCutAfterEvents: 4,
  resetAfterEvents: 3,
  holdAfterEvents: 3,
});

runConformanceSuite({
  name: 'openai',
  provider: 'openai',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    // An explicit name keeps the provider id `openai` on a custom baseURL (a proxy of OpenAI).
    createOpenAI({ name: 'openai', baseURL: `${serverUrl}/v1`, apiKey, timeoutMs })('gpt-4.1'),
  replies,
  snapshotHeaders: ['authorization', 'content-type', 'accept', 'x-stainless-retry-count'],
  retryReplies: [...fixtures.json('rate-limited'), ...fixtures.json('text')],
  // Chat Completions on api.openai.com never returns reasoning text.
  reasoning: false,
});
