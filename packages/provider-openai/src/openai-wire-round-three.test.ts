import { replayFixtures, runWireQuirkSuite } from '@closedloop/model/conformance';
import { createOpenAI } from './openai-provider';

// Recorded Chat Completions framings checked in the third hostile round: each already handled,
// pinned here so a regression shows (an answer, or a typed error, never an empty success).
const { server, ...fixtures } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));

runWireQuirkSuite({
  name: 'createOpenAI (round three)',
  server,
  fixtures,
  cases: [
    {
      title: 'an event whose JSON spans several `data:` lines (joined with newlines, as the SSE spec says)',
      fixture: 'multiline-data-stream',
      call: 'stream',
      expected: {
        answer: { text: 'Hello there.', toolCalls: [], finishReason: 'stop', usage: { totalTokens: 12 } },
      },
    },
    {
      title: 'the function name and call id repeated on every tool-call delta: one call, one name',
      fixture: 'repeated-name-stream',
      call: 'stream',
      expected: {
        answer: { text: '', toolCalls: ['read_file {"path": "a.txt"}'], finishReason: 'tool-calls' },
      },
    },
    {
      title: 'a whole tool call, then finish_reason "stop" (Ollama): the call',
      fixture: 'stop-with-tool-calls-stream',
      call: 'stream',
      expected: {
        answer: { text: '', toolCalls: ['read_file {"path":"a.txt"}'], finishReason: 'tool-calls' },
      },
    },
    {
      title:
        "Azure's prompt_filter_results first and an asynchronous-filter annotation without delta after the finish",
      fixture: 'azure-async-filter-stream',
      call: 'stream',
      expected: {
        answer: { text: 'Hello there.', toolCalls: [], finishReason: 'stop', usage: { totalTokens: 12 } },
      },
    },
    {
      title: '[DONE] and nothing else: a retryable error, not an empty answer',
      fixture: 'done-only-stream',
      call: 'stream',
      expected: { error: { code: 'network', isRetryable: true } },
    },
    {
      title: 'a 200 event stream with an empty body: a retryable error, not an empty answer',
      fixture: 'empty-200-stream',
      call: 'stream',
      expected: { error: { code: 'network', isRetryable: true } },
    },
    {
      title: 'a completion with choices: []: an invalid-response, not an empty answer',
      fixture: 'empty-choices',
      call: 'generate',
      expected: { error: { code: 'invalid-response', isRetryable: false } },
    },
  ],
  createModel: ({ serverUrl }) =>
    createOpenAI({ name: 'openai-compatible', apiKey: 'sk-loopback-000000', baseURL: `${serverUrl}/v1` })(
      'gpt-4.1',
    ),
});
