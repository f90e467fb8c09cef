import { replayFixtures, runWireQuirkSuite } from '@closedloop/model/conformance';
import { createOpenAI } from './openai-provider';

// Recorded Chat Completions framings checked in the fourth hostile round: Ollama's native
// done_reason leaking through its /v1 endpoint (0.6–0.12), vLLM 0.8–0.10 (no tool parser;
// `continuous_usage_stats`), Azure OpenAI 2024-10-21 content filtering, OpenAI's refusal field,
// and tool-call arguments that are "", "null" or a JSON string holding the JSON (gateways and
// Mistral). Each is the answer, a truncation signal, or a typed error — never an empty success.
const { server, ...fixtures } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));

runWireQuirkSuite({
  name: 'createOpenAI (round four)',
  server,
  fixtures,
  createModel: ({ serverUrl, streamIdleTimeoutMs }) =>
    createOpenAI({
      name: 'openai-compatible',
      apiKey: 'sk-loopback-000000',
      baseURL: `${serverUrl}/v1`,
      ...(streamIdleTimeoutMs !== undefined ? { streamIdleTimeoutMs } : {}),
    })('gpt-4.1'),
  cases: [
    {
      title: 'Ollama\'s done_reason "length" after part of the text: the part, finished "length"',
      fixture: 'ollama-done-reason-length-stream',
      call: 'stream',
      expected: {
        answer: {
          text: 'The plan:\n1. Read',
          toolCalls: [],
          finishReason: 'length',
          usage: { totalTokens: 48 },
        },
      },
    },
    {
      title: 'tool-call arguments "" (a call without arguments) next to content "": the call',
      fixture: 'empty-string-arguments-stream',
      call: 'stream',
      expected: {
        answer: {
          text: '',
          toolCalls: ['read_file '],
          finishReason: 'tool-calls',
          usage: { totalTokens: 55 },
        },
      },
    },
    {
      title: "Azure's content filter before any output (content null): a content-filter stop",
      fixture: 'azure-content-filter-empty',
      call: 'generate',
      expected: {
        answer: {
          text: '',
          toolCalls: [],
          finishReason: 'content-filter',
          rawFinishReason: 'content_filter',
        },
      },
    },
    {
      title: 'a refusal not streamed (content null, refusal set, finish_reason "stop"): a refusal',
      fixture: 'refusal-not-streamed',
      call: 'generate',
      expected: {
        answer: {
          text: "I'm sorry, I can't help with that.",
          toolCalls: [],
          finishReason: 'refusal',
          usage: { totalTokens: 35 },
        },
      },
    },
    {
      title:
        "Azure's 400 for a filtered prompt (code content_filter, ResponsibleAIPolicyViolation): a non-retryable bad-request",
      fixture: 'azure-prompt-content-filter-400',
      call: 'generate',
      expected: { error: { code: 'bad-request', isRetryable: false, message: /content management policy/ } },
    },
    {
      title: "Ollama's 404 for a model not pulled: a non-retryable bad-request naming it",
      fixture: 'ollama-model-not-found-404',
      call: 'generate',
      expected: { error: { code: 'bad-request', isRetryable: false, message: /llama3\.3" not found/ } },
    },
  ],
});
