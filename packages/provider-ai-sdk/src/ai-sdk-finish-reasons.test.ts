import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ModelError } from '@closedloop/model';
import {
  collectStream,
  finishedResult,
  fixtureReplies,
  modelRejection,
  replayFixtures,
} from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { fromAISDK } from './ai-sdk-chat-model';

// Finish reasons the AI SDK files under `other` or `error`, from real servers and gateways,
// through the AI SDK's own HTTP clients and the bridge, over loopback HTTP.
const quirks = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const { server } = quirks;
const gemini = fixtureReplies(new URL('./__fixtures__/gemini/', import.meta.url));
const ask = {
  messages: [{ role: 'user' as const, content: 'Write the plan.' }],
  tools: ['read_file', 'write_file'].map((name) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  })),
};

const compatible = () =>
  fromAISDK(
    createOpenAICompatible({
      name: 'loopback',
      baseURL: `${server.url}/v1`,
      apiKey: 'sk-loopback-000000',
      includeUsage: true,
    })('gateway-model'),
    { name: 'gateway' },
  );

describe('raw finish reasons the AI SDK calls "other"', () => {
  it("a gateway's Anthropic end_turn is stop", async () => {
    server.script(quirks.sse('bedrock-gateway-end-turn-stream'));
    const result = finishedResult((await collectStream(compatible().doStream(ask))).parts);
    expect(result.text).toBe('Hello there.');
    expect(result.finishReason).toBe('stop');
    expect(result.rawFinishReason).toBe('end_turn');
  });

  it("a gateway's max_tokens inside a tool call is the truncated-call error, not a call with half arguments", async () => {
    server.script(quirks.sse('bedrock-gateway-max-tokens-mid-tool-call-stream'));
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(false);
    expect((error as ModelError).message).toMatch(
      /finish reason "max_tokens"\) inside tool call "write_file"/,
    );
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it("vLLM's abort is a retryable error, not a half answer", async () => {
    server.script(quirks.sse('vllm-abort-stream'));
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/finish reason "abort"/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe('an "error" finish', () => {
  it('finish_reason "error" without an error object is a retryable error, not a finished answer', async () => {
    server.script(quirks.sse('finish-reason-error-stream'));
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it("Gemini's MALFORMED_FUNCTION_CALL is a retryable invalid-response, not an empty answer", async () => {
    server.script(gemini.json('malformed-function-call'));
    const model = fromAISDK(
      createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'test-google-key' })(
        'gemini-2.5-flash',
      ),
    );
    const error = await modelRejection(model.doGenerate(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).requestId).toBe('req_gemini_malformed');
    expect((error as ModelError).message).toMatch(/finish reason "MALFORMED_FUNCTION_CALL"/);
  });
});

describe("Gemini's empty answer (finishReason STOP, a candidate without parts)", () => {
  it('is a retryable invalid-response, not an empty text finished "stop"', async () => {
    server.script(gemini.json('empty-stop'));
    const model = fromAISDK(
      createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'test-google-key' })(
        'gemini-2.5-flash-lite',
      ),
    );
    const error = await modelRejection(model.doGenerate(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/finish reason "STOP"\) without any text or tool call/);
  });
});

describe('a 200 whose JSON body is an error, not a response', () => {
  it("LM Studio's answer to a path it does not serve is a non-retryable error naming it, streamed or not", async () => {
    server.script([
      ...quirks.json('lmstudio-unexpected-endpoint-200'),
      ...quirks.json('lmstudio-unexpected-endpoint-200'),
    ]);
    const generated = await modelRejection(compatible().doGenerate(ask));
    expect((generated as ModelError).code).toBe('bad-request');
    expect((generated as ModelError).isRetryable).toBe(false);
    expect((generated as ModelError).message).toMatch(
      /Unexpected endpoint or method\. \(POST \/chat\/completions\)/,
    );
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect(parts).toEqual([]);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(false);
    expect((error as ModelError).message).toMatch(/answered a streaming request with a JSON body/);
  });

  it('another error string is that error, retryable', async () => {
    server.script(quirks.json('error-string-200'));
    const error = await modelRejection(compatible().doGenerate(ask));
    expect((error as ModelError).message).toMatch(/with an error body: Model unloaded/);
    expect((error as ModelError).isRetryable).toBe(true);
  });
});

describe('a stream read to its end without a finish_reason ([DONE], which the AI SDK drops)', () => {
  it('text (vLLM-MLX on a natural stop): the whole answer, finish "stop", usage kept', async () => {
    server.script(quirks.sse('vllm-mlx-done-without-finish-reason-stream'));
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('The plan has three steps.');
    expect(result.finishReason).toBe('stop');
    expect(result.rawFinishReason).toBeUndefined();
    expect(result.usage).toMatchObject({ inputTokens: 21, outputTokens: 7, totalTokens: 28 });
  });

  it('the same stream cut (socket closed) before [DONE] is still a retryable network error', async () => {
    const recorded = quirks.read('vllm-mlx-done-without-finish-reason-stream');
    server.script([
      {
        type: 'response',
        response: { ...recorded, body: recorded.body.replace('data: [DONE]\n', '') },
        chunking: 'events',
        after: 'destroy',
      },
    ]);
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('a body that just ends before the usage report (the AI SDK cannot see [DONE]) is a cut, not an answer', async () => {
    const recorded = quirks.read('vllm-mlx-done-without-finish-reason-stream');
    server.script(quirks.sse('vllm-mlx-done-without-finish-reason-stream', { limitEvents: 3 }));
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect(recorded.body).toContain('"usage"');
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/connection closed early after 25 characters/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('a complete tool call (a Gemini proxy) is that call, finish "tool-calls"', async () => {
    server.script(quirks.sse('proxy-tool-call-done-without-finish-reason-stream'));
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.toolCalls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['call_a1b2c3', 'read_file', { path: 'README.md' }],
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage.totalTokens).toBe(100);
  });

  it('a tool call with partial arguments is a retryable typed error; no tool-call part', async () => {
    server.script(quirks.sse('proxy-cut-tool-call-done-without-finish-reason-stream'));
    const { parts, error } = await collectStream(compatible().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).requestId).toBe('req_proxy_cut');
    expect((error as ModelError).message).toMatch(
      /without a finish reason inside tool call "write_file" \(call_d4e5f6\)/,
    );
    expect((error as ModelError).rawOutput).toBe('{"path":"notes/plan.md","content":"# Pl');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('nothing at all before [DONE] is a retryable error, not an empty answer', async () => {
    const recorded = quirks.read('vllm-mlx-done-without-finish-reason-stream');
    const body = recorded.body
      .split('\n\n')
      .filter((event) => !event.includes('"content":"The plan"') && !event.includes('three steps'))
      .join('\n\n');
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { error } = await collectStream(compatible().doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(
      /without a finish reason and without any text or tool call/,
    );
  });
});

describe('a Gemini stream held open after its finishReason chunk', () => {
  it('the complete answer settles after the 1 s tail, with its finish and usage', async () => {
    server.script(gemini.sse('text-stream', { after: 'hold', keepAlive: { text: '\n', everyMs: 25 } }));
    const model = fromAISDK(
      createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'test-google-key' })(
        'gemini-2.5-flash',
      ),
    );
    const started = performance.now();
    const { parts, error } = await collectStream(model.doStream({ messages: ask.messages }));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Two, three and five.');
    expect(result.finishReason).toBe('stop');
    expect(result.rawFinishReason).toBe('STOP');
    expect(result.usage).toMatchObject({ inputTokens: 7, outputTokens: 6, totalTokens: 13 });
  });

  it('held open mid-answer (no finishReason yet): a retryable stall error, not the partial text', async () => {
    server.script(gemini.sse('text-stream', { limitEvents: 2, after: 'hold' }));
    const model = fromAISDK(
      createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'test-google-key' })(
        'gemini-2.5-flash',
      ),
      { streamIdleTimeoutMs: 300 },
    );
    const { parts, error } = await collectStream(model.doStream({ messages: ask.messages }));
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});
