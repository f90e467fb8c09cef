import { ModelError } from '@closedloop/model';
import { collectStream, finishedResult, modelRejection, replayFixtures } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from './openai-provider';

// How compatible servers and gateways really end an answer (or fail to say how), replayed over
// loopback HTTP through the official SDK.
const { server, json, sse, read } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = { messages: [{ role: 'user' as const, content: 'Write the plan.' }] };

const model = (name: string) =>
  createOpenAI({ name, apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` })('local-model');

describe('a stream that ends with [DONE] but no finish_reason', () => {
  it('text (vLLM-MLX on a natural stop): the whole answer, finish "stop", usage kept', async () => {
    server.script(sse('vllm-mlx-done-without-finish-reason-stream'));
    const { parts, error } = await collectStream(model('vllm').doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('The plan has three steps.');
    expect(result.finishReason).toBe('stop');
    expect(result.rawFinishReason).toBeUndefined();
    expect(result.usage).toEqual({ inputTokens: 21, outputTokens: 7, totalTokens: 28 });
  });

  it('the same stream closed before [DONE] is still a retryable network error, not an answer', async () => {
    const recorded = read('vllm-mlx-done-without-finish-reason-stream');
    server.script([
      { type: 'response', response: { ...recorded, body: recorded.body.replace('data: [DONE]\n', '') } },
    ]);
    const { parts, error } = await collectStream(model('vllm').doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/connection closed early/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('a complete tool call (a Gemini proxy) is that call, finish "tool-calls"', async () => {
    server.script(sse('proxy-tool-call-done-without-finish-reason-stream'));
    const { parts, error } = await collectStream(model('gemini-proxy').doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.toolCalls).toEqual([
      {
        id: 'call_a1b2c3',
        name: 'read_file',
        arguments: { path: 'README.md' },
        rawArguments: '{"path":"README.md"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage.totalTokens).toBe(100);
  });

  it('a tool call with partial arguments is a retryable typed error; no tool-call part', async () => {
    server.script(sse('proxy-cut-tool-call-done-without-finish-reason-stream'));
    const { parts, error } = await collectStream(model('gemini-proxy').doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).requestId).toBe('req_proxy_cut');
    expect((error as ModelError).message).toMatch(
      /without a finish_reason inside tool call "write_file" \(call_d4e5f6\)/,
    );
    expect((error as ModelError).rawOutput).toBe('{"path":"notes/plan.md","content":"# Pl');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('nothing at all before [DONE] is a retryable error, not an empty answer', async () => {
    const recorded = read('vllm-mlx-done-without-finish-reason-stream');
    const lines = recorded.body
      .split('\n\n')
      .filter((event) => !event.includes('"content":"The plan"') && !event.includes('three steps'));
    server.script([{ type: 'response', response: { ...recorded, body: lines.join('\n\n') } }]);
    const { error } = await collectStream(model('vllm').doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).message).toMatch(
      /without a finish_reason and without any text or tool call/,
    );
  });
});

describe("finish reasons other than OpenAI's", () => {
  it("a gateway's max_tokens inside a tool call is the truncated-call error, not a call with half arguments", async () => {
    server.script(sse('bedrock-gateway-max-tokens-mid-tool-call-stream'));
    const { parts, error } = await collectStream(model('bedrock-gateway').doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(false);
    expect((error as ModelError).message).toMatch(
      /finish reason "max_tokens"\) inside tool call "write_file" \(tooluse_Qm3xYb\)/,
    );
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it("TGI's eos_token is stop", async () => {
    server.script(json('tgi-eos-token'));
    const result = await model('tgi').doGenerate(ask);
    expect(result.finishReason).toBe('stop');
    expect(result.rawFinishReason).toBe('eos_token');
    expect(result.text).toBe('Hugging Face is a company that builds tools for machine learning.');
  });
});

describe('the end of a stream in other shapes', () => {
  it("OpenRouter's mid-stream error chunk (after keep-alive comments) is a retryable error, not the half answer", async () => {
    server.script(sse('openrouter-mid-stream-error-stream'));
    const { parts, error } = await collectStream(model('openrouter').doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/Provider disconnected unexpectedly/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe('a 200 whose JSON body is an error string, not a completion', () => {
  it("LM Studio's answer to a path it does not serve (a wrong baseURL) is a non-retryable bad-request, streamed or not", async () => {
    server.script([...json('lmstudio-unexpected-endpoint-200'), ...json('lmstudio-unexpected-endpoint-200')]);
    const generated = await modelRejection(model('lmstudio').doGenerate(ask));
    const streamed = (await collectStream(model('lmstudio').doStream(ask))).error;
    for (const error of [generated, streamed]) {
      expect(ModelError.isInstance(error)).toBe(true);
      expect((error as ModelError).code).toBe('bad-request');
      expect((error as ModelError).isRetryable).toBe(false);
      expect((error as ModelError).message).toMatch(
        /Unexpected endpoint or method\. \(POST \/chat\/completions\)/,
      );
    }
  });

  it('any other error string is that error (retryable), not "the response has no choices"', async () => {
    server.script(json('error-string-200'));
    const error = await modelRejection(model('lmstudio').doGenerate(ask));
    expect((error as ModelError).message).toMatch(/Model unloaded/);
    expect((error as ModelError).isRetryable).toBe(true);
  });
});
