import { conformanceReplies, fixtureReplies, runConformanceSuite } from '@closedloop/model/conformance';
import { createOpenAI } from './openai-provider';

// OpenAI-compatible servers run the same suite through their profiles. Their wire format is
// OpenAI's except where the profile's quirks are about: these targets reuse the OpenAI fixtures
// and bring their own for reasoning (DeepSeek's `reasoning_content`, which must go back in a tool
// loop; Mistral's content arrays of thinking and text parts).
const openai = fixtureReplies(new URL('./__fixtures__/', import.meta.url));
const cut = { streamCutAfterEvents: 4, resetAfterEvents: 3, holdAfterEvents: 3 };

function withOwn(folder: string) {
  const own = fixtureReplies(new URL(`./__fixtures__/${folder}/`, import.meta.url));
  return conformanceReplies(openai, {
    ...cut,
    overrides: {
      'reasoning-and-text': own.json('reasoning-and-text'),
      'reasoning-and-text-stream': own.sse('reasoning-and-text-stream'),
      'reasoning-tool-loop': [...own.json('reasoning-tool-loop'), ...own.json('reasoning-tool-loop-answer')],
    },
  });
}

runConformanceSuite({
  name: 'openai-compatible: deepseek',
  provider: 'deepseek',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    createOpenAI({ profile: 'deepseek', baseURL: `${serverUrl}/v1`, apiKey, timeoutMs })('deepseek-reasoner'),
  replies: withOwn('deepseek'),
  snapshotHeaders: ['authorization', 'content-type'],
  retryReplies: [...openai.json('rate-limited'), ...openai.json('text')],
});

runConformanceSuite({
  name: 'openai-compatible: mistral',
  provider: 'mistral',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    createOpenAI({ profile: 'mistral', baseURL: `${serverUrl}/v1`, apiKey, timeoutMs })(
      'magistral-medium-2509',
      {
        capabilities: {
          reasoning: true,
          structuredOutput: true,
          contextWindow: 128_000,
          maxOutputTokens: 40_000,
        },
      },
    ),
  replies: withOwn('mistral'),
  snapshotHeaders: ['authorization', 'content-type'],
  retryReplies: [...openai.json('rate-limited'), ...openai.json('text')],
});
