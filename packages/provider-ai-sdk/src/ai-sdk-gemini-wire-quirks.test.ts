import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { replayFixtures, runWireQuirkSuite } from '@closedloop/model/conformance';
import { fromAISDK } from './ai-sdk-chat-model';

// Gemini answers the generateContent docs do not show (blocked prompts, safety and recitation
// stops, empty candidates, Gemini 2.5's thinking that spends the whole budget, the newer finish
// reasons), as generativelanguage.googleapis.com v1beta sent them in 2025 (`alt=sse` streams end
// events with CRLF), and a proxy's function call with `args` as a JSON string — through
// `@ai-sdk/google@3` and the bridge over loopback HTTP. Every one is an answer, a truncation
// signal (finish "length" or "content-filter"), or a typed error: never an empty "stop".
const { server, ...fixtures } = replayFixtures(new URL('./__fixtures__/gemini/', import.meta.url));

runWireQuirkSuite({
  name: 'fromAISDK(@ai-sdk/google) (round four)',
  server,
  fixtures,
  createModel: ({ serverUrl }) =>
    fromAISDK(
      createGoogleGenerativeAI({ baseURL: `${serverUrl}/v1beta`, apiKey: 'test-google-key' })(
        'gemini-2.5-flash',
      ),
    ),
  cases: [
    {
      title:
        'a blocked prompt (promptFeedback.blockReason, no candidates): a content-filter stop, not a stop',
      fixture: 'prompt-blocked',
      call: 'generate',
      expected: {
        answer: {
          text: '',
          toolCalls: [],
          finishReason: 'content-filter',
          rawFinishReason: 'PROHIBITED_CONTENT',
        },
      },
    },
    {
      title: 'a blocked prompt, streamed: a content-filter stop',
      fixture: 'prompt-blocked-stream',
      call: 'stream',
      expected: {
        answer: {
          text: '',
          toolCalls: [],
          finishReason: 'content-filter',
          rawFinishReason: 'PROHIBITED_CONTENT',
        },
      },
    },
    {
      title: 'SAFETY after part of the text: the part, finished "content-filter"',
      fixture: 'safety-after-text-stream',
      call: 'stream',
      expected: {
        answer: {
          text: 'Step one: download the',
          toolCalls: [],
          finishReason: 'content-filter',
          rawFinishReason: 'SAFETY',
        },
      },
    },
    {
      title: 'RECITATION with a candidate without parts: a content-filter stop',
      fixture: 'recitation-empty',
      call: 'generate',
      expected: {
        answer: { text: '', toolCalls: [], finishReason: 'content-filter', rawFinishReason: 'RECITATION' },
      },
    },
    {
      title: 'MAX_TOKENS after thinking spent the whole budget (no parts): a length stop',
      fixture: 'max-tokens-thoughts-only',
      call: 'generate',
      expected: {
        answer: { text: '', toolCalls: [], finishReason: 'length', rawFinishReason: 'MAX_TOKENS' },
      },
    },
    {
      title: 'OTHER with a candidate without parts: a retryable invalid-response, not an empty answer',
      fixture: 'other-empty',
      call: 'generate',
      expected: { error: { code: 'invalid-response', isRetryable: true, message: /"OTHER"/ } },
    },
    {
      title: 'TOO_MANY_TOOL_CALLS with an empty content: a retryable invalid-response, not an empty answer',
      fixture: 'too-many-tool-calls',
      call: 'generate',
      expected: { error: { code: 'invalid-response', isRetryable: true, message: /"TOO_MANY_TOOL_CALLS"/ } },
    },
    {
      title: 'MALFORMED_FUNCTION_CALL streamed: a retryable invalid-response',
      fixture: 'malformed-function-call-stream',
      call: 'stream',
      expected: {
        error: { code: 'invalid-response', isRetryable: true, message: /MALFORMED_FUNCTION_CALL/ },
      },
    },
    {
      title: 'only thoughts, then STOP, streamed: a retryable invalid-response, not an empty answer',
      fixture: 'thoughts-only-stop-stream',
      call: 'stream',
      expected: { error: { code: 'invalid-response', isRetryable: true, message: /"STOP"/ } },
    },
    {
      title: "a proxy's functionCall.args as a JSON string: the call with those arguments",
      fixture: 'function-call-string-args',
      call: 'generate',
      expected: {
        answer: {
          text: '',
          toolCalls: ['get_weather {"city": "Paris"}'],
          finishReason: 'tool-calls',
          usage: { totalTokens: 64 },
        },
      },
    },
    {
      title: "a proxy's functionCall.args as a JSON string, streamed: the call with those arguments",
      fixture: 'function-call-string-args-stream',
      call: 'stream',
      expected: {
        answer: {
          text: '',
          toolCalls: ['get_weather {"city": "Paris"}'],
          finishReason: 'tool-calls',
          usage: { totalTokens: 64 },
        },
      },
    },
    {
      title:
        "Gemini 3's streamed function-call arguments (partialArgs, willContinue, a terminal part): the call",
      fixture: 'gemini3-streamed-arguments-stream',
      call: 'stream',
      expected: {
        answer: {
          text: '',
          toolCalls: ['write_file {"path":"plan.md","content":"# Plan\\n1. Read the menu"}'],
          finishReason: 'tool-calls',
          usage: { totalTokens: 150 },
        },
      },
    },
    {
      title: "MAX_TOKENS inside Gemini 3's streamed function-call arguments: a truncation error, no call",
      fixture: 'gemini3-streamed-arguments-max-tokens-stream',
      call: 'stream',
      expected: {
        error: {
          code: 'invalid-response',
          isRetryable: false,
          message: /"MAX_TOKENS"\) inside tool call "write_file"/,
        },
      },
    },
    {
      title:
        "Gemini's error object (503 UNAVAILABLE) as an event after part of the text: a retryable error, not the part",
      fixture: 'error-mid-stream',
      call: 'stream',
      expected: { error: { code: 'overloaded', isRetryable: true, message: /overloaded/ } },
    },
  ],
});
