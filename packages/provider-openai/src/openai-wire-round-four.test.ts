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
      title:
        'Ollama\'s done_reason "load" (the model was only loaded) streamed: a retryable invalid-response',
      fixture: 'ollama-done-reason-load-stream',
      call: 'stream',
      expected: { error: { code: 'invalid-response', isRetryable: true, message: /"load"/ } },
    },
    {
      title: 'Ollama\'s done_reason "load", not streamed: a retryable invalid-response',
      fixture: 'ollama-done-reason-load',
      call: 'generate',
      expected: { error: { code: 'invalid-response', isRetryable: true, message: /"load"/ } },
    },
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
      title: 'finish_reason "tool_calls" with text and no tool call, streamed (vLLM without a tool parser)',
      fixture: 'vllm-tool-calls-finish-without-calls-stream',
      call: 'stream',
      expected: {
        error: { code: 'invalid-response', isRetryable: false, message: /"tool_calls" but no tool call/ },
      },
    },
    {
      title: "vLLM's continuous usage stats (usage in every chunk): the last figures, not their sum",
      fixture: 'vllm-continuous-usage-stream',
      call: 'stream',
      expected: {
        answer: {
          text: 'Done.',
          toolCalls: [],
          finishReason: 'stop',
          usage: { inputTokens: 120, outputTokens: 3, totalTokens: 123 },
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
      title: 'tool-call arguments "null" (Mistral, a call without arguments): the call',
      fixture: 'null-string-arguments',
      call: 'generate',
      expected: {
        answer: {
          text: '',
          toolCalls: ['read_file null'],
          finishReason: 'tool-calls',
          usage: { totalTokens: 89 },
        },
      },
    },
    {
      title: 'tool-call arguments that are a JSON string holding the JSON (encoded twice): the arguments',
      fixture: 'double-encoded-arguments',
      call: 'generate',
      expected: {
        answer: {
          text: '',
          toolCalls: ['read_file {"path": "README.md"}'],
          finishReason: 'tool-calls',
          usage: { totalTokens: 92 },
        },
      },
    },
    {
      title:
        "Azure's content filter after part of the text (prompt_filter_results first): a content-filter stop",
      fixture: 'azure-content-filter-text-stream',
      call: 'stream',
      expected: {
        answer: {
          text: 'To pick the lock, first',
          toolCalls: [],
          finishReason: 'content-filter',
          rawFinishReason: 'content_filter',
          usage: { totalTokens: 37 },
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
  ],
});
