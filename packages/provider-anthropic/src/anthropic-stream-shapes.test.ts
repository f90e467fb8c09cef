import type { GenerateResult, StreamPart } from '@closedloop/model';
import { fixtureReplies, type LoopbackServer, startLoopbackServer } from '@closedloop/model/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropic } from './anthropic-provider';

// Anthropic-format streams from proxies that translate other APIs, replayed through the SDK.
const { sse } = fixtureReplies(new URL('./__fixtures__/quirks/', import.meta.url));
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

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server.close();
});

async function parts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const collected: StreamPart[] = [];
  for await (const part of stream) collected.push(part);
  return collected;
}

function finished(collected: StreamPart[]): GenerateResult {
  const last = collected.at(-1);
  if (last?.type !== 'finish') throw new Error(`no finish part: ${JSON.stringify(collected)}`);
  return last.result;
}

describe('a tool_use input sent whole in content_block_start, with no input_json_delta', () => {
  it('is the call arguments (not {}), and the deltas add up to them', async () => {
    server.script(sse('proxy-input-in-block-start-stream'));
    const model = createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: server.url })(
      'claude-sonnet-4-5',
    );
    const collected = await parts(model.doStream(ask));
    const result = finished(collected);
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
