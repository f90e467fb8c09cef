import { generate, ModelError } from '@closedloop/model';
import { type LoopbackReply, useLoopbackServer } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from './openai-provider';

const server = useLoopbackServer();
const piece = 'x'.repeat(16 * 1024);
const chunk = (choice: object) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, ...choice }] })}\n\n`;

/**
 * A model that never stops talking (a local model stuck repeating itself, a hostile endpoint):
 * 64 MiB of answer, streamed or as one JSON body — far past any real answer, and bounded here only
 * so that a client without a limit finishes instead of running out of memory.
 */
function endless(stream: boolean): LoopbackReply {
  const totalBytes = 64 * 1024 * 1024;
  return stream
    ? {
        type: 'endless',
        headers: { 'content-type': 'text/event-stream' },
        head: '',
        chunk: chunk({ delta: { content: piece } }),
        tail: `${chunk({ delta: {}, finish_reason: 'stop' })}data: [DONE]\n\n`,
        totalBytes,
      }
    : {
        type: 'endless',
        headers: { 'content-type': 'application/json' },
        head: '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"',
        chunk: piece,
        tail: '"}}]}',
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
      const model = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxResponseBytes: 1024 * 1024 })(
        'm',
        { capabilities: {} },
      );
      const error = await generate(
        model,
        { messages: [{ role: 'user', content: 'hi' }] },
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
