import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAICompatible as createOpenAICompatibleV4 } from '@ai-sdk/openai-compatible-v4';
import { ModelError } from '@closedloop/model';
import { collectStream, finishedResult, modelRejection, replayFixtures } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { fromAISDK } from './ai-sdk-chat-model';

// Chat Completions traffic that servers really send, through `@ai-sdk/openai-compatible` (the AI
// SDK's own HTTP client and stream parser) and the bridge, over loopback HTTP.
const { server, json, read, sse } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = {
  messages: [{ role: 'user' as const, content: 'Write the plan.' }],
  tools: ['read_file', 'write_file', 'run_command'].map((name) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  })),
};

const model = () =>
  fromAISDK(
    createOpenAICompatible({
      name: 'loopback',
      baseURL: `${server.url}/v1`,
      apiKey: 'sk-loopback-000000',
      includeUsage: true,
    })('gpt-4.1'),
    { name: 'openai-compatible' },
  );

describe('a tool call cut off by the output limit or a content filter', () => {
  it('streamed: the provider flushes the cut call as a tool-call; the bridge throws instead', async () => {
    server.script(sse('length-mid-tool-call-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(false);
    expect((error as ModelError).message).toMatch(
      /finish reason "length"\) inside tool call "write_file" \(call_Cut1\)/,
    );
    expect((error as ModelError).requestId).toBe('req_quirk');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('not streamed: neither the cut call nor the complete one before it is returned', async () => {
    server.script(json('length-mid-tool-call'));
    const error = await modelRejection(model().doGenerate(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).message).toMatch(/inside tool call "write_file" \(call_Cut2\)/);
    expect((error as ModelError).rawOutput).toBe('{"path":"README.md","content":"# Titl');
  });

  it('an Azure content_filter inside run_command is the same error', async () => {
    server.script(sse('azure-content-filter-mid-tool-call-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).message).toMatch(
      /finish reason "content_filter"\) inside tool call "run_command"/,
    );
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
  });

  it('a complete call in a normal answer still streams and finishes (unparsable input only held)', async () => {
    server.script([
      {
        type: 'response',
        response: {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"a.md"}' },
            },
          ]
            .map(
              (call) =>
                `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] })}\n\n`,
            )
            .concat(
              `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\n`,
              'data: [DONE]\n\n',
            )
            .join(''),
        },
        chunking: 'events',
      },
    ]);
    const { parts } = await collectStream(model().doStream(ask));
    const result = finishedResult(parts);
    expect(result.toolCalls.map((call) => call.arguments)).toEqual([{ path: 'a.md' }]);
    expect(result.finishReason).toBe('tool-calls');
  });
});

describe('a 429 without retry-after', () => {
  it("waits for the spent limit's x-ratelimit-reset-* (through the AI SDK's APICallError)", async () => {
    server.script(json('rate-limited-reset-headers'));
    const error = await modelRejection(model().doGenerate(ask));
    expect((error as ModelError).code).toBe('rate-limited');
    expect((error as ModelError).retryAfterMs).toBe(1500);
  });
});

describe('finish_reason "tool_calls" with no tool call (vLLM without a working tool parser)', () => {
  it('is a typed error carrying the text, not a tool-calls finish with nothing to run', async () => {
    server.script(json('vllm-tool-calls-finish-without-calls'));
    const error = await modelRejection(model().doGenerate(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason is "tool_calls" but no tool call arrived/);
    expect((error as ModelError).rawOutput).toMatch(/^<tool_call>/);
  });
});

describe('DeepSeek finish_reason "insufficient_system_resource"', () => {
  it('is a retryable overloaded error, not a half answer with an unknown finish', async () => {
    server.script(sse('deepseek-insufficient-system-resource-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('overloaded');
    expect((error as ModelError).isRetryable).toBe(true);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe('one tool call sent again at a second index with the same id (LocalAI)', () => {
  it('is one call, not the command twice (the AI SDK gives the copy a new id)', async () => {
    server.script(sse('localai-same-call-at-two-indexes-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.toolCalls.map((call) => [call.id, call.name, call.rawArguments])).toEqual([
      ['LipwoT0puK4tQY6nxW39FNRyvQ6Hrh8p', 'exec', '{"cmd":"uname -a"}'],
    ]);
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
    expect(new Set(parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.index] : [])))).toEqual(
      new Set([0]),
    );
    expect(result.reasoning?.[0]?.text).toBe('Okay, the user wants a command.');
    expect(result.usage.totalTokens).toBe(181);
  });

  it('the copy with other arguments is a typed error, not two calls', async () => {
    const recorded = read('localai-same-call-at-two-indexes-stream');
    const events = recorded.body.split('\n\n');
    events[4] = (events[4] as string).replace('uname -a', 'rm -rf build');
    server.script([{ type: 'response', response: { ...recorded, body: events.join('\n\n') } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(
      /sent again at another index .* two different complete argument texts/,
    );
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('two calls of the same tool with their own ids stay two calls', async () => {
    const recorded = read('localai-same-call-at-two-indexes-stream');
    const events = recorded.body.split('\n\n');
    events[4] = (events[4] as string).replace(
      '"index":1,"id":"LipwoT0puK4tQY6nxW39FNRyvQ6Hrh8p"',
      '"index":1,"id":"call_second"',
    );
    server.script([{ type: 'response', response: { ...recorded, body: events.join('\n\n') } }]);
    const result = finishedResult((await collectStream(model().doStream(ask))).parts);
    expect(result.toolCalls.map((call) => call.id)).toEqual([
      'LipwoT0puK4tQY6nxW39FNRyvQ6Hrh8p',
      'call_second',
    ]);
  });
});

describe('usage and endings @ai-sdk/openai-compatible does not read', () => {
  it("Groq's usage in x_groq.usage is the usage, not zeros", async () => {
    server.script(sse('groq-x-groq-usage-stream'));
    const result = finishedResult((await collectStream(model().doStream(ask))).parts);
    expect(result.text).toBe('Three steps.');
    expect(result.usage).toEqual({ inputTokens: 44, outputTokens: 4, totalTokens: 48 });
  });

  it('a streamed refusal is finish "refusal" with its text, not a content filter', async () => {
    server.script(sse('refusal-stream'));
    const result = finishedResult((await collectStream(model().doStream(ask))).parts);
    expect(result.text).toBe("I'm sorry, I can't help with that.");
    expect(result.finishReason).toBe('refusal');
  });
});

describe('a tool call whose arguments are a JSON object, not a string (llama.cpp, Ollama)', () => {
  it('is that call, though the AI SDK rejects the chunk', async () => {
    server.script(sse('llama-cpp-object-arguments-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.toolCalls).toEqual([
      {
        id: 'call_llama0',
        name: 'get_weather',
        arguments: { city: 'Paris' },
        rawArguments: '{"city":"Paris"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage.totalTokens).toBe(138);
  });

  it('any other chunk the AI SDK rejects still fails the stream', async () => {
    const recorded = read('llama-cpp-object-arguments-stream');
    const body = recorded.body.replace('"arguments":{"city":"Paris"}', '"arguments":42');
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect(parts.some((part) => part.type === 'finish' || part.type === 'tool-call')).toBe(false);
  });
});

describe('CRLF line endings and UTF-8 characters split across network reads', () => {
  it('are the same text and one call, its arguments from many small deltas', async () => {
    server.script(sse('crlf-multibyte-stream', { chunking: 'bytes' }));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Café ☕ — 日本語の計画 😀');
    expect(result.toolCalls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['call_crlf1', 'write_file', { path: 'notes/計画.md', content: '# Plan ☕\n1. Café — déjà vu 😀\n' }],
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toMatchObject({ inputTokens: 40, outputTokens: 31, totalTokens: 71 });
  });
});

describe("a stream of one chunk in a completion's shape (message, not delta)", () => {
  it('is its text and its tool call, not an empty answer (the AI SDK reads the chunk as empty)', async () => {
    server.script(sse('gateway-whole-message-chunk-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Reading the README first.');
    expect(result.toolCalls).toEqual([
      {
        id: 'call_whole1',
        name: 'read_file',
        arguments: { path: 'README.md' },
        rawArguments: '{"path":"README.md"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toMatchObject({ inputTokens: 88, outputTokens: 24, totalTokens: 112 });
  });

  it('with a cut-off finish, its call with partial arguments is the truncated-call error', async () => {
    const recorded = read('gateway-whole-message-chunk-stream');
    const body = recorded.body
      .replace('{\\"path\\":\\"README.md\\"}', '{\\"path\\":\\"READ')
      .replace('"finish_reason":"tool_calls"', '"finish_reason":"length"');
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason "length"\) inside tool call "read_file"/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('the same wire formats through AI SDK 7 (@ai-sdk/openai-compatible@3, specification v4)', () => {
  const v4 = () =>
    fromAISDK(
      createOpenAICompatibleV4({
        name: 'loopback',
        baseURL: `${server.url}/v1`,
        apiKey: 'sk-loopback-000000',
        includeUsage: true,
      })('gpt-4.1'),
      { name: 'openai-compatible' },
    );

  it.each([
    ['vllm-mlx-done-without-finish-reason-stream', 'The plan has three steps.', [], 'stop'],
    ['localai-same-call-at-two-indexes-stream', '', ['exec {"cmd":"uname -a"}'], 'tool-calls'],
    ['llama-cpp-object-arguments-stream', '', ['get_weather {"city":"Paris"}'], 'tool-calls'],
    [
      'gateway-whole-message-chunk-stream',
      'Reading the README first.',
      ['read_file {"path":"README.md"}'],
      'tool-calls',
    ],
    ['groq-x-groq-usage-stream', 'Three steps.', [], 'stop'],
    ['refusal-stream', "I'm sorry, I can't help with that.", [], 'refusal'],
    ['minimax-empty-role-stream', 'Running the tests.', ['run_command {"cmd": "pnpm test"}'], 'tool-calls'],
    ['gateway-ping-data-stream', 'Step one: read the file.', [], 'stop'],
  ])('%s: text %j, calls %j, finish %s', async (fixture, text, calls, finishReason) => {
    server.script(sse(fixture));
    const { parts, error } = await collectStream(v4().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe(text);
    expect(result.toolCalls.map((call) => `${call.name} ${call.rawArguments}`)).toEqual(calls);
    expect(result.finishReason).toBe(finishReason);
    expect(result.usage.totalTokens).toBeGreaterThan(0);
  });

  it('a tool call with partial arguments and no finish reason is a retryable invalid-response', async () => {
    server.script(sse('proxy-cut-tool-call-done-without-finish-reason-stream'));
    const { parts, error } = await collectStream(v4().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(true);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('chunks the AI SDK schema rejects, read from their raw form', () => {
  it('MiniMax\'s role "" on every delta: the reasoning, text and tool call, not a failed stream', async () => {
    server.script(sse('minimax-empty-role-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.reasoning?.map((part) => part.text)).toEqual(['The user wants the tests run.']);
    expect(result.text).toBe('Running the tests.');
    expect(result.toolCalls).toEqual([
      {
        id: 'call_function_8kq2m1x7',
        name: 'run_command',
        arguments: { cmd: 'pnpm test' },
        rawArguments: '{"cmd": "pnpm test"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.rawFinishReason).toBe('tool_calls');
    expect(result.usage).toMatchObject({ inputTokens: 233, outputTokens: 41, totalTokens: 274 });
  });

  it('a rejected chunk cut off by the output limit inside its call is the truncated-call error', async () => {
    const recorded = read('minimax-empty-role-stream');
    const body = recorded.body
      .replace(
        '{"index":0,"type":"function","function":{"arguments":" test\\"}"}}',
        '{"index":0,"type":"function","function":{"arguments":" te"}}',
      )
      .replace('"finish_reason":"tool_calls"', '"finish_reason":"length"');
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason "length"\) inside tool call "run_command"/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('a rejected chunk that is cut, with no finish reason anywhere, is still a cut', async () => {
    server.script(sse('minimax-empty-role-stream', { limitEvents: 4, after: 'destroy' }));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('keep-alive events with data (`event: ping` + `data: {}`)', () => {
  it('are skipped, not read as a failed chunk; the answer around them is whole', async () => {
    server.script(sse('gateway-ping-data-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Step one: read the file.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.outputTokens).toBe(6);
  });

  it('an error object in a data chunk is still the error', async () => {
    const recorded = read('gateway-ping-data-stream');
    const body = recorded.body.replace(
      'data: {"type":"ping"}',
      'data: {"error":{"message":"overloaded","type":"server_error"}}',
    );
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe('a stream that never closes (a proxy holding the connection)', () => {
  const keepAlive = { text: ': keep-alive\n\n', everyMs: 25 };
  const stalling = () =>
    fromAISDK(
      createOpenAICompatible({
        name: 'loopback',
        baseURL: `${server.url}/v1`,
        apiKey: 'sk-loopback-000000',
        includeUsage: true,
      })('gpt-4.1'),
      { name: 'openai-compatible', streamIdleTimeoutMs: 300 },
    );

  it.each([
    ['headers, then nothing', { limitEvents: 0, after: 'hold' as const }],
    [
      'part of the answer, then keep-alive comments forever',
      { limitEvents: 2, after: 'hold' as const, keepAlive },
    ],
  ])('%s: a retryable stall error after streamIdleTimeoutMs, not a success', async (_, options) => {
    server.script(sse('proxy-keep-alive-never-closes-stream', options));
    const started = performance.now();
    const { parts, error } = await collectStream(stalling().doStream(ask));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/stalled \(no event for 300 ms/);
    expect((error as ModelError).requestId).toBe('req_keepalive_hold');
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
    // The request was aborted: the server saw the connection close.
    await expect.poll(() => server.requests[0]?.closedEarlyAt).toBeDefined();
  });

  const v4 = () =>
    fromAISDK(
      createOpenAICompatibleV4({
        name: 'loopback',
        baseURL: `${server.url}/v1`,
        apiKey: 'sk-loopback-000000',
        includeUsage: true,
      })('gpt-4.1'),
      { name: 'openai-compatible' },
    );

  it.each([
    ['AI SDK 6 (specification v3)', model],
    ['AI SDK 7 (specification v4)', v4],
  ])(
    '%s: the finish_reason and usage came, then keep-alives: the complete answer settles promptly',
    async (_, make) => {
      server.script(sse('proxy-keep-alive-never-closes-stream', { after: 'hold', keepAlive }));
      const started = performance.now();
      const { parts, error } = await collectStream(make().doStream(ask));
      // The 1 s tail after the terminal chunk, not the 120 s stall timeout.
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(error).toBeUndefined();
      const result = finishedResult(parts);
      expect(result.text).toBe('The plan has three steps.');
      expect(result.finishReason).toBe('stop');
      expect(result.rawFinishReason).toBe('stop');
      expect(result.usage).toMatchObject({ inputTokens: 14, outputTokens: 7, totalTokens: 21 });
      expect(result.response?.requestId).toBe('req_keepalive_hold');
      await expect.poll(() => server.requests[0]?.closedEarlyAt).toBeDefined();
    },
  );

  it('a "length" finish inside a tool call, then the connection held: the typed truncation error, promptly', async () => {
    server.script(sse('length-mid-tool-call-stream', { limitEvents: 6, after: 'hold', keepAlive }));
    const started = performance.now();
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason "length"\) inside tool call "write_file"/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});
