import { generate, ModelError } from '@closedloop/model';
import {
  collectStream,
  finishedResult,
  fixtureReplies,
  modelRejection,
  replayFixtures,
} from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from './openai-provider';

// Traffic that OpenAI and compatible servers really send and the documentation does not show,
// replayed over loopback HTTP through the official SDK.
const { server, json, read, sse } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = { messages: [{ role: 'user' as const, content: 'Write the plan.' }] };

const model = (name = 'openai') =>
  createOpenAI({ name, apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` })('gpt-4.1');

describe('a tool call cut off by the output limit or a content filter', () => {
  it('streamed: a typed, non-retryable error; no tool-call part, nothing to run', async () => {
    server.script(sse('length-mid-tool-call-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    const modelError = error as ModelError;
    expect(modelError.code).toBe('invalid-response');
    expect(modelError.isRetryable).toBe(false);
    expect(modelError.requestId).toBe('req_quirk');
    expect(modelError.message).toMatch(
      /finish reason "length"\) inside tool call "write_file" \(call_Cut1\)/,
    );
    expect(modelError.rawOutput).toBe(
      '{"path":"notes/plan.md","content":"# Plan\\n\\n1. Read the caf\\u00e9 menu\\n2. Write the',
    );
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('not streamed: the cut call is not returned, and neither is the complete one before it', async () => {
    server.script(json('length-mid-tool-call'));
    const error = await modelRejection(model().doGenerate(ask));
    expect(error.code).toBe('invalid-response');
    expect(error.message).toMatch(/inside tool call "write_file" \(call_Cut2\)/);
    expect(error.rawOutput).toBe('{"path":"README.md","content":"# Titl');
  });
});

describe('tool-call shapes beyond the documented one', () => {
  it('llama.cpp arguments sent as a JSON object are the call arguments, streamed and not', async () => {
    server.script([...sse('llama-cpp-object-arguments-stream'), ...json('llama-cpp-object-arguments')]);
    const streamed = finishedResult((await collectStream(model('llama.cpp').doStream(ask))).parts);
    const generated = await model('llama.cpp').doGenerate(ask);
    for (const result of [streamed, generated]) {
      expect(result.toolCalls).toEqual([
        {
          id: 'call_llama0',
          name: 'get_weather',
          arguments: { city: 'Paris' },
          rawArguments: '{"city":"Paris"}',
        },
      ]);
      expect(result.finishReason).toBe('tool-calls');
    }
  });

  it('the deprecated function_call is a tool call, streamed and not (not finish tool-calls with no call)', async () => {
    server.script([...sse('legacy-function-call-stream'), ...json('legacy-function-call')]);
    const streamed = finishedResult((await collectStream(model('azure').doStream(ask))).parts);
    const generated = await model('azure').doGenerate(ask);
    for (const result of [streamed, generated]) {
      expect(result.toolCalls).toEqual([
        {
          id: 'call_0',
          name: 'get_weather',
          arguments: { city: 'Paris' },
          rawArguments: '{\n  "city": "Paris"\n}',
        },
      ]);
      expect(result.finishReason).toBe('tool-calls');
      expect(result.rawFinishReason).toBe('function_call');
    }
  });
});

describe('a JSON body where an event stream was asked for', () => {
  it('a gateway\'s 200 error object is that error (not a retried "stream ended" network error)', async () => {
    server.script(json('json-error-to-stream'));
    const { parts, error } = await collectStream(model('gateway').doStream(ask));
    expect(parts).toEqual([]);
    expect((error as ModelError).code).toBe('bad-request');
    expect((error as ModelError).isRetryable).toBe(false);
    expect((error as ModelError).message).toMatch(/model_not_found: No available channel for model gpt-4.1/);
  });

  it('a whole completion (a server that ignores stream: true) is streamed as its parts', async () => {
    server.script(json('json-completion-to-stream'));
    const { parts } = await collectStream(model('vllm').doStream(ask));
    expect(parts.map((part) => part.type)).toEqual([
      'reasoning-delta',
      'tool-call-delta',
      'tool-call',
      'finish',
    ]);
    const result = finishedResult(parts);
    expect(result.toolCalls).toEqual([
      {
        id: 'chatcmpl-tool-5b1e0c',
        name: 'get_weather',
        arguments: { city: 'Paris' },
        rawArguments: '{"city": "Paris"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.reasoning?.[0]?.text).toBe('The user wants the weather; call the tool.');
    expect(result.usage).toEqual({ inputTokens: 140, outputTokens: 31, totalTokens: 171 });
  });
});

describe('a 429 without retry-after', () => {
  it("waits for the spent limit's x-ratelimit-reset-*, not the message's estimate nor the unspent limit", async () => {
    server.script(json('rate-limited-reset-headers'));
    const error = await modelRejection(model().doGenerate(ask));
    expect(error.code).toBe('rate-limited');
    expect(error.retryAfterMs).toBe(1500);
  });

  it("reads the reset OpenRouter copies into the error body's metadata.headers (epoch ms)", async () => {
    const reset = Date.now() + 3000;
    server.script([
      {
        type: 'response',
        response: {
          status: 429,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            error: {
              message: 'Rate limit exceeded: free-models-per-min. ',
              code: 429,
              metadata: {
                headers: {
                  'X-RateLimit-Limit': '20',
                  'X-RateLimit-Remaining': '0',
                  'X-RateLimit-Reset': String(reset),
                },
              },
            },
            user_id: 'user_loopback',
          }),
        },
      },
    ]);
    const error = await modelRejection(model('openrouter').doGenerate(ask));
    expect(error.code).toBe('rate-limited');
    expect(error.retryAfterMs).toBeGreaterThan(2000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(3000);
  });
});

describe('Responses API: a function_call cut off by max_output_tokens', () => {
  const responsesFixtures = fixtureReplies(new URL('./__fixtures__/responses/', import.meta.url));
  const responses = () =>
    createOpenAI({ name: 'openai', apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` }).responses(
      'gpt-5-mini',
    );

  it('streamed: the incomplete item is held, then a typed error; no tool-call part', async () => {
    server.script(sse('max-output-tokens-mid-function-call-stream'));
    const { parts, error } = await collectStream(responses().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(
      /finish reason "max_output_tokens"\) inside tool call "write_file" \(call_RespCut\)/,
    );
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('a JSON body to a streaming request: its error, or the whole response replayed as parts', async () => {
    server.script([...json('json-error-to-stream'), ...json('max-output-tokens-mid-function-call')]);
    const failed = (await collectStream(responses().doStream(ask))).error as ModelError;
    expect(failed.code).toBe('bad-request');
    expect(failed.message).toMatch(/model_not_found/);
    const cut = (await collectStream(responses().doStream(ask))).error as ModelError;
    expect(cut.message).toMatch(/inside tool call "write_file" \(call_RespCut\)/);
    server.script(responsesFixtures.json('text'));
    const { parts, error } = await collectStream(responses().doStream(ask));
    expect(error).toBeUndefined();
    expect(parts.some((part) => part.type === 'text-delta')).toBe(true);
    expect(finishedResult(parts).text).toBe((await responsesText()).text);
  });

  async function responsesText() {
    server.script(responsesFixtures.json('text'));
    return responses().doGenerate(ask);
  }

  it('not streamed: the same error', async () => {
    server.script(json('max-output-tokens-mid-function-call'));
    const error = await modelRejection(responses().doGenerate(ask));
    expect(error.code).toBe('invalid-response');
    expect(error.rawOutput).toBe('{"path":"notes/plan.md","content":"# Plan\\n\\n1. Read the ');
  });
});

describe('finish_reason "tool_calls" with no tool call (vLLM without a working tool parser)', () => {
  it('is a typed error carrying the text, not a text answer nor a tool-calls finish with no call', async () => {
    server.script(json('vllm-tool-calls-finish-without-calls'));
    const error = await modelRejection(model('vllm').doGenerate(ask));
    expect(error.code).toBe('invalid-response');
    expect(error.message).toMatch(/finish_reason is "tool_calls" but no tool call arrived/);
    expect(error.rawOutput).toMatch(/^<tool_call>/);
  });
});

describe('events without data (a gateway keep-alive, an event: line split from its data: line)', () => {
  it('are skipped as the SSE spec says, not a failed stream ("Unexpected end of JSON input")', async () => {
    server.script(sse('gateway-empty-events-stream'));
    const { parts, error } = await collectStream(model('gateway').doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Hello there.');
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 3, totalTokens: 12 });
  });

  it('also with CRLF line ends, delivered in one piece', async () => {
    const recorded = read('gateway-empty-events-stream');
    server.script([
      { type: 'response', response: { ...recorded, body: recorded.body.replaceAll('\n', '\r\n') } },
    ]);
    const { parts, error } = await collectStream(model('gateway').doStream(ask));
    expect(error).toBeUndefined();
    expect(finishedResult(parts).text).toBe('Hello there.');
  });

  it('also with lone-CR line ends (each a line end in SSE), event by event', async () => {
    const recorded = read('gateway-empty-events-stream');
    for (const chunking of ['events', 'bytes'] as const) {
      server.script([
        { type: 'response', response: { ...recorded, body: recorded.body.replaceAll('\n', '\r') }, chunking },
      ]);
      const { parts, error } = await collectStream(model('gateway').doStream(ask));
      expect(error).toBeUndefined();
      const result = finishedResult(parts);
      expect(result.text).toBe('Hello there.');
      expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 3, totalTokens: 12 });
    }
  });
});

describe('one JSON value under an event-stream content type (a proxy that labels every answer text/event-stream)', () => {
  it('an error object is its typed error, sent once (not a retryable "cut stream")', async () => {
    server.script(sse('json-error-as-event-stream'));
    const { parts, error } = await collectStream(model('gateway').doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual(['bad-request', false]);
    expect((error as ModelError).message).toMatch(
      /model_not_found: The model `gpt-4.1-mini-2025` does not exist/,
    );
    expect(parts).toEqual([]);
  });

  it('a whole completion is the same answer as under application/json', async () => {
    const completion = read('json-completion-to-stream');
    server.script([
      ...json('json-completion-to-stream'),
      {
        type: 'response',
        response: { ...completion, headers: { ...completion.headers, 'content-type': 'text/event-stream' } },
        chunking: 'bytes',
      },
    ]);
    const asJson = await collectStream(model('vllm').doStream(ask));
    const asEvents = await collectStream(model('vllm').doStream(ask));
    expect(asEvents.error).toBeUndefined();
    expect(finishedResult(asEvents.parts)).toEqual(finishedResult(asJson.parts));
    expect(finishedResult(asEvents.parts).toolCalls.map((call) => call.name)).toEqual(['get_weather']);
  });
});

describe('a stream that ends right after its last data line, without the closing blank line', () => {
  it('keeps that last chunk (the finish_reason and usage), as sent in pieces or in one write', async () => {
    for (const chunking of ['events', 'bytes', 'whole'] as const) {
      server.script(sse('finish-chunk-without-closing-blank-line-stream', { chunking }));
      const { parts, error } = await collectStream(model('gateway').doStream(ask));
      expect(error).toBeUndefined();
      const result = finishedResult(parts);
      expect([result.text, result.finishReason]).toEqual(['All 212 tests passed.', 'stop']);
      expect(result.usage).toEqual({ inputTokens: 57, outputTokens: 6, totalTokens: 63 });
    }
  });

  it('a last line whose JSON is cut is still a cut stream (retryable), not an answer', async () => {
    const recorded = read('finish-chunk-without-closing-blank-line-stream');
    server.script([
      { type: 'response', response: { ...recorded, body: recorded.body.slice(0, -40) }, chunking: 'events' },
    ]);
    const { parts, error } = await collectStream(model('gateway').doStream(ask));
    expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual(['network', true]);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe("Groq's 400 tool_use_failed (its parser could not read the model's tool call)", () => {
  it('is a retryable invalid-response with the failed generation, and generate samples again', async () => {
    server.script(json('groq-tool-use-failed'));
    const error = await modelRejection(model('groq').doGenerate(ask));
    expect(error.code).toBe('invalid-response');
    expect(error.isRetryable).toBe(true);
    expect(error.status).toBe(400);
    expect(error.requestId).toBe('req_01hxnxvkfjf6ttkqzfpw23ng08');
    expect(error.rawOutput).toBe('<function=read_file{"path": "README.md"}</function>');
    server.script([...json('groq-tool-use-failed'), ...json('llama-cpp-object-arguments')]);
    const result = await generate(model('groq'), ask, { retry: { initialDelayMs: 1, jitter: false } });
    expect(server.requests).toHaveLength(2);
    expect(result.toolCalls[0]?.arguments).toEqual({ city: 'Paris' });
  });
});

describe("Gemini's extra_content.google.thought_signature on a tool call (OpenAI endpoint)", () => {
  it('is kept on the call and sent back with it on the next turn (Gemini 3 rejects the turn without it)', async () => {
    server.script([...sse('gemini-thought-signature-stream'), ...json('gemini-answer')]);
    const gemini = createOpenAI({ name: 'gemini', apiKey: 'gemini-loopback', baseURL: `${server.url}/v1` })(
      'gemini-3-pro-preview',
    );
    const first = finishedResult((await collectStream(gemini.doStream(ask))).parts);
    const call = first.toolCalls[0];
    expect(call?.arguments).toEqual({ city: 'Paris' });
    expect(call?.providerData).toEqual({
      extraContent: { google: { thought_signature: 'CiQBcsjafPbGgB3yqG1n0nU+loopbackSig==' } },
    });
    if (!call) return;
    await gemini.doGenerate({
      messages: [
        ...ask.messages,
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: call.id, toolName: call.name, content: '18 °C, sunny' },
      ],
    });
    const sent = server.requests[1]?.json as { messages: Array<{ tool_calls?: unknown[] }> };
    expect(sent.messages[1]?.tool_calls).toEqual([
      {
        id: 'function-call-11223344556677889900',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        extra_content: { google: { thought_signature: 'CiQBcsjafPbGgB3yqG1n0nU+loopbackSig==' } },
      },
    ]);
  });
});

describe('a Responses API stream that never closes', () => {
  const responses = fixtureReplies(new URL('./__fixtures__/responses/', import.meta.url));
  const keepAlive = { text: ': keep-alive\n\n', everyMs: 25 };
  const responsesModel = (streamIdleTimeoutMs?: number) =>
    createOpenAI({
      name: 'openai',
      apiKey: 'sk-loopback-000000',
      baseURL: `${server.url}/v1`,
      ...(streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs }),
    }).responses('gpt-4.1');

  it('after response.completed, keep-alives: the complete answer settles promptly', async () => {
    server.script(responses.sse('text-stream', { after: 'hold', keepAlive }));
    const started = performance.now();
    const { parts, error } = await collectStream(responsesModel().doStream(ask));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error).toBeUndefined();
    expect(finishedResult(parts).finishReason).toBe('stop');
  });

  it('mid-answer, keep-alives forever: a retryable stall error', async () => {
    server.script(responses.sse('text-stream', { limitEvents: 6, after: 'hold', keepAlive }));
    const { parts, error } = await collectStream(responsesModel(300).doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).message).toMatch(/stalled \(no event for 300 ms/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe("a web UI's HTML page with a 200 (the baseURL misses the API's path)", () => {
  it('through the Responses API too: a non-retryable invalid-response naming the page, streamed and not', async () => {
    const responses = () =>
      createOpenAI({ apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` }).responses('gpt-5');
    server.script([...sse('open-webui-spa-page-200'), ...json('open-webui-spa-page-200')]);
    const streamed = await collectStream(responses().doStream(ask));
    const plain = await modelRejection(responses().doGenerate(ask));
    for (const error of [streamed.error as ModelError, plain]) {
      expect(ModelError.isInstance(error)).toBe(true);
      expect([error.code, error.isRetryable]).toEqual(['invalid-response', false]);
      expect(error.message).toMatch(/HTML page \(text\/html; charset=utf-8, titled "Open WebUI"\)/);
    }
    expect(streamed.parts).toEqual([]);
  });

  it('an empty 200 through the Responses API is a typed invalid-response with the request id', async () => {
    server.script([
      {
        type: 'response',
        response: {
          status: 200,
          headers: { 'content-type': 'application/json', 'x-request-id': 'req_empty' },
          body: '',
        },
      },
    ]);
    const error = await modelRejection(
      createOpenAI({ apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` })
        .responses('gpt-5')
        .doGenerate(ask),
    );
    expect([error.code, error.isRetryable, error.requestId]).toEqual([
      'invalid-response',
      false,
      'req_empty',
    ]);
    expect(error.message).toMatch(/the response is not valid JSON/);
  });
});
