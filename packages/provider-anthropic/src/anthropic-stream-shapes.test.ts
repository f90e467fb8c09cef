import { ModelError } from '@closedloop/model';
import { collectStream, finishedResult, replayFixtures, streamResult } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createAnthropic } from './anthropic-provider';

// Anthropic-format streams from proxies that translate other APIs, replayed through the SDK.
const { server, sse, read } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = {
  messages: [{ role: 'user' as const, content: 'Read the README.' }],
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ],
};

describe('a tool_use input sent whole in content_block_start, with no input_json_delta', () => {
  it('is the call arguments (not {}), and the deltas add up to them', async () => {
    server.script(sse('proxy-input-in-block-start-stream'));
    const model = createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: server.url })(
      'claude-sonnet-4-5',
    );
    const { parts: collected, result } = await streamResult(model.doStream(ask));
    expect(result.toolCalls).toEqual([
      {
        id: 'toolu_proxy_9f8e',
        name: 'read_file',
        arguments: { path: 'README.md' },
        rawArguments: '{"path":"README.md"}',
      },
    ]);
    expect(
      collected.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : [])).join(''),
    ).toBe('{"path":"README.md"}');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toMatchObject({ inputTokens: 318, outputTokens: 21 });
  });
});

const model = () =>
  createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: server.url })('claude-sonnet-4-5');

describe('a stream that ends after the message_delta with the stop reason, without message_stop (a proxy)', () => {
  it('is the whole answer: the text, the call, the stop reason and usage', async () => {
    server.script(sse('proxy-missing-message-stop-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe("I'll read the README first.");
    expect(result.toolCalls).toEqual([
      {
        id: 'toolu_01NoStopRead',
        name: 'read_file',
        arguments: { path: 'README.md' },
        rawArguments: '{"path": "README.md"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.rawFinishReason).toBe('tool_use');
    expect(result.usage).toMatchObject({ inputTokens: 412, outputTokens: 48 });
  });

  it('the same stream ended before its message_delta is still a retryable network error', async () => {
    const recorded = read('proxy-missing-message-stop-stream');
    const body = recorded.body.slice(0, recorded.body.indexOf('event: message_delta'));
    server.script([{ type: 'response', response: { ...recorded, body }, chunking: 'events' }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('a tool_use block left open at the end is not a call (a retryable network error)', async () => {
    const recorded = read('proxy-missing-message-stop-stream');
    const body = recorded.body.replace(
      /event: content_block_stop\ndata: \{"type":"content_block_stop","index":1\}\n\n/,
      '',
    );
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('CRLF line endings and UTF-8 characters split across network reads', () => {
  it('are the same text, stop reason and usage', async () => {
    expect(read('crlf-multibyte-stream').body).toContain('\r\n\r\n');
    server.script(sse('crlf-multibyte-stream', { chunking: 'bytes' }));
    const { result } = await streamResult(model().doStream(ask));
    expect(result.text).toBe('Café ☕ — 日本語 😀 déjà vu.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 7 });
    expect(result.response?.requestId).toBe('req_crlf_utf8');
  });
});

describe('a text or thinking block started without its empty text (a proxy translating another API)', () => {
  it('is the streamed text, not "undefined" before it', async () => {
    server.script(sse('proxy-block-start-without-text-stream'));
    const { parts, result } = await streamResult(model().doStream(ask));
    expect(result.text).toBe('The build passes.');
    expect(result.reasoning?.map((part) => part.text)).toEqual(['Short answer.']);
    expect(parts.every((part) => !('delta' in part) || !String(part.delta).includes('undefined'))).toBe(true);
    expect(result.finishReason).toBe('stop');
  });
});

describe('a stream that never closes', () => {
  const ping = { text: 'event: ping\ndata: {"type": "ping"}\n\n', everyMs: 25 };

  it('after the final message_delta, only pings: the complete answer settles promptly', async () => {
    server.script(sse('proxy-missing-message-stop-stream', { after: 'hold', keepAlive: ping }));
    const model = createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: server.url })(
      'claude-sonnet-4-5',
    );
    const started = performance.now();
    const { result } = await streamResult(model.doStream(ask));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.text).toBe("I'll read the README first.");
    expect(result.toolCalls.map((call) => call.arguments)).toEqual([{ path: 'README.md' }]);
    expect(result.finishReason).toBe('tool-calls');
  });

  it('mid-answer, only pings: a retryable stall error after streamIdleTimeoutMs, not a success', async () => {
    server.script(
      sse('proxy-missing-message-stop-stream', { limitEvents: 3, after: 'hold', keepAlive: ping }),
    );
    const model = createAnthropic({
      apiKey: 'sk-ant-loopback-000000',
      baseURL: server.url,
      streamIdleTimeoutMs: 300,
    })('claude-sonnet-4-5');
    const started = performance.now();
    const { parts, error } = await collectStream(model.doStream(ask));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/stalled \(no event for 300 ms/);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
    // The request was aborted: the server saw the connection close.
    await expect.poll(() => server.requests[0]?.closedEarlyAt).toBeDefined();
  });
});
