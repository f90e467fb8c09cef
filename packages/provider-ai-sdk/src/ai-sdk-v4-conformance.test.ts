import { createOpenAICompatible } from '@ai-sdk/openai-compatible-v4';
import { conformanceReplies, fixtureReplies, runConformanceSuite } from '@closedloop/model/conformance';
import { fromAISDK } from './ai-sdk-chat-model';

// The same conformance run as `ai-sdk-conformance.test.ts`, through AI SDK 7's client:
// `@ai-sdk/openai-compatible@3` (installed as `@ai-sdk/openai-compatible-v4`), whose models
// implement specification v4 (`@ai-sdk/provider@4`). Same loopback fixtures, same cuts.
const fixtures = fixtureReplies(new URL('./__fixtures__/', import.meta.url));

runConformanceSuite({
  name: 'ai-sdk bridge, specification v4 (@ai-sdk/openai-compatible@3)',
  provider: 'openai-compatible',
  createModel: ({ serverUrl, apiKey, timeoutMs }) => {
    const model = createOpenAICompatible({
      name: 'loopback',
      baseURL: `${serverUrl}/v1`,
      apiKey,
      includeUsage: true,
      supportsStructuredOutputs: true,
    })('gpt-4.1');
    if (model.specificationVersion !== 'v4')
      throw new Error(`expected a v4 model, got ${model.specificationVersion}`);
    return fromAISDK(model, {
      name: 'openai-compatible',
      timeoutMs,
      secrets: [apiKey],
      capabilities: { structuredOutput: true, parallelToolCalls: true, contextWindow: 128_000 },
    });
  },
  replies: conformanceReplies(fixtures, { streamCutAfterEvents: 4, resetAfterEvents: 3, holdAfterEvents: 3 }),
  snapshotHeaders: ['authorization', 'content-type'],
  retryReplies: [...fixtures.json('rate-limited'), ...fixtures.json('text')],
});
