import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { conformanceReplies, fixtureReplies, runConformanceSuite } from '@closedloop/model/conformance';
import { fromAISDK } from './ai-sdk-chat-model';

// The bridge under test: `@ai-sdk/openai-compatible`'s chat model (the AI SDK's own HTTP client)
// wrapped by `fromAISDK`, against the loopback server replaying Chat Completions traffic
// (`__fixtures__/*.http`; reasoning scenarios in DeepSeek's `reasoning_content` shape).
// `text-stream.http` cut short: the role chunk and three text deltas (4 events); 3 before the
// reset and the abort.
const fixtures = fixtureReplies(new URL('./__fixtures__/', import.meta.url));

runConformanceSuite({
  name: 'ai-sdk bridge (@ai-sdk/openai-compatible)',
  provider: 'openai-compatible',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    fromAISDK(
      createOpenAICompatible({
        name: 'loopback',
        baseURL: `${serverUrl}/v1`,
        apiKey,
        includeUsage: true,
        supportsStructuredOutputs: true,
      })('gpt-4.1'),
      {
        name: 'openai-compatible',
        timeoutMs,
        secrets: [apiKey],
        capabilities: { structuredOutput: true, parallelToolCalls: true, contextWindow: 128_000 },
      },
    ),
  replies: conformanceReplies(fixtures, { streamCutAfterEvents: 4, resetAfterEvents: 3, holdAfterEvents: 3 }),
  snapshotHeaders: ['authorization', 'content-type'],
  retryReplies: [...fixtures.json('rate-limited'), ...fixtures.json('text')],
});
