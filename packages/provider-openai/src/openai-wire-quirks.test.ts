import { chatCompletionsWireQuirks, replayFixtures, runWireQuirkSuite } from '@closedloop/model/conformance';
import { createOpenAI } from './openai-provider';

// The recorded Chat Completions behaviours every adapter of that wire format must handle alike
// (the table is shared with @closedloop/provider-ai-sdk), through the official SDK over loopback.
const { server, ...fixtures } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));

runWireQuirkSuite({
  name: 'createOpenAI (an OpenAI-compatible server)',
  server,
  fixtures,
  cases: chatCompletionsWireQuirks,
  createModel: ({ serverUrl, streamIdleTimeoutMs }) =>
    createOpenAI({
      name: 'openai-compatible',
      apiKey: 'sk-loopback-000000',
      baseURL: `${serverUrl}/v1`,
      ...(streamIdleTimeoutMs !== undefined ? { streamIdleTimeoutMs } : {}),
    })('gpt-4.1'),
});
