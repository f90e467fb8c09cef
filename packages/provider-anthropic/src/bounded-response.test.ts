import { generate, ModelError } from '@closedloop/model';
import { type LoopbackReply, useLoopbackServer } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createAnthropic } from './anthropic-provider';

const server = useLoopbackServer();
const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const piece = 'x'.repeat(16 * 1024);

/**
 * A model that never stops talking: 64 MiB of answer, streamed or as one JSON body — bounded only
 * so that a client without a limit finishes instead of running out of memory.
 */
function endless(stream: boolean): LoopbackReply {
  const totalBytes = 64 * 1024 * 1024;
  if (!stream)
    return {
      type: 'endless',
      headers: { 'content-type': 'application/json' },
      head: '{"id":"m","type":"message","role":"assistant","model":"claude","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"text","text":"',
      chunk: piece,
      tail: '"}]}',
      totalBytes,
    };
  return {
    type: 'endless',
    headers: { 'content-type': 'text/event-stream' },
    head:
      event('message_start', {
        type: 'message_start',
        message: {
          id: 'm',
          type: 'message',
          role: 'assistant',
          model: 'claude',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }) +
      event('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }),
    chunk: event('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: piece },
    }),
    tail:
      event('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 2 },
      }) +
      event('message_stop', { type: 'message_stop' }),
    totalBytes,
  };
}

describe('a model answer that never ends', () => {
  it.each([
    ['streamed', true],
    ['as one JSON body', false],
  ] as const)(
    'is cut at maxResponseBytes (%s): a non-retryable invalid-response, the connection closed',
    async (_how, stream) => {
      server.script([endless(stream)], { fallback: endless(stream) });
      const model = createAnthropic({ baseURL: server.url, apiKey: 'k', maxResponseBytes: 1024 * 1024 })(
        'claude-sonnet-4-5',
      );
      const error = await generate(
        model,
        { messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 1000 },
        { retry: { maxAttempts: 3 }, ...(stream ? { onPart: () => {} } : {}) },
      ).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ModelError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ code: 'invalid-response', isRetryable: false });
      expect((error as Error).message).toMatch(/1048576 bytes/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Once, not retried, and cut before the 64 MiB were sent.
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.closedEarlyAt).toBeDefined();
    },
  );
});
