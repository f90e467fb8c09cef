import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate, ModelError } from '@closedloop/model';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropic } from './anthropic-provider';

/**
 * A server whose model never stops talking: 64 MiB of answer, streamed or as one JSON body —
 * bounded only so that a client without a limit finishes instead of running out of memory.
 */
const total = 64 * 1024 * 1024;
let server: Server | undefined;
const closed: boolean[] = [];

async function endlessServer(): Promise<string> {
  const made = createServer((request, response) => {
    let body = '';
    let sent = 0;
    let finished = false;
    response.on('close', () => closed.push(!finished));
    const piece = 'x'.repeat(16 * 1024);
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
      const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
      const head = stream
        ? event('message_start', {
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
          })
        : '{"id":"m","type":"message","role":"assistant","model":"claude","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"text","text":"';
      const chunk = stream
        ? event('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: piece },
          })
        : piece;
      const tail = stream
        ? event('content_block_stop', { type: 'content_block_stop', index: 0 }) +
          event('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn' },
            usage: { output_tokens: 2 },
          }) +
          event('message_stop', { type: 'message_stop' })
        : '"}]}';
      response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      response.write(head);
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        finished = true;
        response.end(tail);
      };
      pump();
    });
  });
  server = made;
  await new Promise<void>((resolve) => made.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(made.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  closed.length = 0;
});

describe('a model answer that never ends', () => {
  it.each([
    ['streamed', true],
    ['as one JSON body', false],
  ] as const)(
    'is cut at maxResponseBytes (%s): a non-retryable invalid-response, the connection closed',
    async (_how, stream) => {
      const baseURL = await endlessServer();
      const model = createAnthropic({ baseURL, apiKey: 'k', maxResponseBytes: 1024 * 1024 })(
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
      expect(closed).toEqual([true]);
    },
  );
});
