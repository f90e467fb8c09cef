import { ModelError, type StreamPart } from '@closedloop/model';
import { collectStream, finishedResult, replayFixtures } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from './openai-provider';

// Streamed tool calls and choices in the shapes compatible servers and gateways really send,
// replayed over loopback HTTP through the official SDK.
const { server, sse, read } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = { messages: [{ role: 'user' as const, content: 'Do it.' }] };

const model = (name: string) =>
  createOpenAI({ name, apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` })('local-model');

const argumentDeltas = (parts: StreamPart[]) =>
  parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : [])).join('');

describe('a tool call whose arguments are sent again whole', () => {
  it('LiteLLM (id on every chunk, a double-encoded summary chunk): one call, arguments once', async () => {
    server.script(sse('litellm-restated-arguments-stream'));
    const { parts, error } = await collectStream(model('litellm').doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.toolCalls).toEqual([
      {
        id: 'call_Lt7Wq2',
        name: 'search_docs',
        arguments: { query: 'retry policy' },
        rawArguments: '{"query": "retry policy"}',
      },
    ]);
    // Consumers that assemble deltas get the same text.
    expect(argumentDeltas(parts)).toBe('{"query": "retry policy"}');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toEqual({ inputTokens: 96, outputTokens: 18, totalTokens: 114 });
  });

  it('LocalAI (the same call, same id, at a second index): one call, not the command twice', async () => {
    server.script(sse('localai-same-call-at-two-indexes-stream'));
    const result = finishedResult((await collectStream(model('localai').doStream(ask))).parts);
    expect(result.toolCalls).toEqual([
      {
        id: 'LipwoT0puK4tQY6nxW39FNRyvQ6Hrh8p',
        name: 'exec',
        arguments: { cmd: 'uname -a' },
        rawArguments: '{"cmd":"uname -a"}',
      },
    ]);
    expect(result.reasoning?.[0]?.text).toBe('Okay, the user wants a command.');
    expect(result.usage.totalTokens).toBe(181);
  });

  it('other complete arguments for the same call (no name, no id) are a typed error, not glued JSON', async () => {
    const recorded = read('litellm-restated-arguments-stream');
    // The summary chunk (the 6th event) restates other arguments, without its name.
    const events = recorded.body.split('\n\n');
    events[5] = (events[5] as string)
      .replace('retry policy', 'backoff')
      .replace('"name":"search_docs"', '"name":null');
    const body = events.join('\n\n');
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model('litellm').doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/two different complete argument texts/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('every call at index 0 without ids, each sent whole', () => {
  it('is one call per named chunk, not their arguments glued into one', async () => {
    server.script(sse('index-zero-calls-without-ids-stream'));
    const result = finishedResult((await collectStream(model('ollama').doStream(ask))).parts);
    expect(result.toolCalls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['call_0', 'file_write', { filePath: 'hello.py', content: 'print("hello")' }],
      ['call_1', 'file_write', { filePath: 'world.py', content: 'print("world")' }],
    ]);
  });
});

describe('parallel calls without an index, one per chunk (Gemini)', () => {
  it('are two calls with their own ids, not one call with both argument texts', async () => {
    server.script(sse('gemini-parallel-calls-without-index-stream'));
    const result = finishedResult((await collectStream(model('gemini').doStream(ask))).parts);
    expect(result.toolCalls.map((call) => [call.id, call.arguments])).toEqual([
      ['function-call-4711aa', { path: 'README.md' }],
      ['function-call-4711bb', { path: 'package.json' }],
    ]);
    expect(result.usage.totalTokens).toBe(83);
  });
});

describe('CRLF line endings and UTF-8 characters split across network reads', () => {
  it('are the same text and one call, its arguments from many small deltas', async () => {
    const recorded = read('crlf-multibyte-stream');
    expect(recorded.body).toContain('\r\n\r\n');
    server.script(sse('crlf-multibyte-stream', { chunking: 'bytes' }));
    const { parts, error } = await collectStream(model('llama.cpp').doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Café ☕ — 日本語の計画 😀');
    expect(result.toolCalls).toEqual([
      {
        id: 'call_crlf1',
        name: 'write_file',
        arguments: { path: 'notes/計画.md', content: '# Plan ☕\n1. Café — déjà vu 😀\n' },
        rawArguments: '{"path": "notes/計画.md", "content": "# Plan ☕\\n1. Café — déjà vu 😀\\n"}',
      },
    ]);
    expect(argumentDeltas(parts)).toBe(result.toolCalls[0]?.rawArguments);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 31, totalTokens: 71 });
  });
});

describe("a stream of one chunk in a completion's shape (message, not delta)", () => {
  it('is its text and its tool call, not an empty answer', async () => {
    server.script(sse('gateway-whole-message-chunk-stream'));
    const { parts, error } = await collectStream(model('gateway').doStream(ask));
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
    expect(result.usage).toEqual({ inputTokens: 88, outputTokens: 24, totalTokens: 112 });
  });
});

describe('MiniMax: role "" on every delta', () => {
  it('is the reasoning, the text and the call', async () => {
    server.script(sse('minimax-empty-role-stream'));
    const result = finishedResult((await collectStream(model('minimax').doStream(ask))).parts);
    expect(result.reasoning?.[0]?.text).toBe('The user wants the tests run.');
    expect(result.text).toBe('Running the tests.');
    expect(result.toolCalls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['call_function_8kq2m1x7', 'run_command', { cmd: 'pnpm test' }],
    ]);
    expect(result.usage.totalTokens).toBe(274);
  });
});
