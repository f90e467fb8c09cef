import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate, ModelError } from '@closedloop/model';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI } from './openai-provider';

/**
 * A server whose model never stops talking (a local model stuck repeating itself, a hostile
 * endpoint): 64 MiB of answer, streamed or as one JSON body — far past any real answer, and
 * bounded here only so that a client without a limit finishes instead of running out of memory.
 */
const total = 64 * 1024 * 1024;
let server: Server | undefined;
const closed: boolean[] = [];

async function endlessServer(): Promise<string> {
  const made = createServer((request, response) => {
    let sent = 0;
    let finished = false;
    response.on('close', () => closed.push(!finished));
    const piece = 'x'.repeat(16 * 1024);
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
      if (stream) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: piece } }] })}\n\n`;
        const pump = () => {
          while (sent < total) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          finished = true;
          response.end(
            `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
          );
        };
        pump();
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(
          '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"',
        );
        const pump = () => {
          while (sent < total) {
            sent += piece.length;
            if (!response.write(piece)) return void response.once('drain', pump);
          }
          finished = true;
          response.end('"}}]}');
        };
        pump();
      }
    });
  });
  server = made;
  await new Promise<void>((resolve) => made.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(made.address() as AddressInfo).port}/v1`;
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
      const model = createOpenAI({ baseURL, apiKey: 'k', maxResponseBytes: 1024 * 1024 })('m', {
        capabilities: {},
      });
      const call = generate(
        model,
        { messages: [{ role: 'user', content: 'hi' }] },
        { retry: { maxAttempts: 3 }, ...(stream ? { onPart: () => {} } : {}) },
      );
      const error = await call.then(
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
