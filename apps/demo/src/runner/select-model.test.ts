import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from '@closedloop/model';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveModel } from './select-model';

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A loopback OpenAI-compatible server that records each request's headers. */
async function compatibleServer(): Promise<{ baseURL: string; headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    headers.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: 'llama3.1',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, headers };
}

describe('resolveModel (openai-compatible)', () => {
  const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };

  it('never sends OPENAI_API_KEY to an OpenAI-compatible server', async () => {
    const server = await compatibleServer();
    const model = await resolveModel(
      { provider: 'openai-compatible', baseURL: server.baseURL, model: 'llama3.1', source: 'base-url' },
      { OPENAI_API_KEY: 'sk-openai-secret-123456' },
    );
    await generate(model, request, { retry: false });
    expect(server.headers.length).toBeGreaterThan(0);
    for (const h of server.headers) expect(String(h.authorization ?? '')).not.toContain('sk-openai-secret');
  });

  it('sends OPENAI_COMPATIBLE_API_KEY when set', async () => {
    const server = await compatibleServer();
    const model = await resolveModel(
      { provider: 'openai-compatible', baseURL: server.baseURL, model: 'llama3.1', source: 'base-url' },
      { OPENAI_API_KEY: 'sk-openai-secret-123456', OPENAI_COMPATIBLE_API_KEY: 'sk-local-key-7890' },
    );
    await generate(model, request, { retry: false });
    expect(server.headers.at(-1)?.authorization).toBe('Bearer sk-local-key-7890');
  });
});
