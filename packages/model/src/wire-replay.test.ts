import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error';
import { errorTurn, ScriptedModel, textTurn } from './scripted-model';
import {
  collectStream,
  finishedResult,
  modelRejection,
  replayFixtures,
  streamResult,
  useLoopbackServer,
} from './wire-replay';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
const overloaded = () => new ModelError({ code: 'overloaded', message: 'busy', provider: 'test' });

describe('useLoopbackServer', () => {
  const server = useLoopbackServer();
  it('reads through to the server started for the file, and replays what is scripted', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    server.script([
      { type: 'response', response: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' } },
    ]);
    const response = await fetch(`${server.url}/v1/anything`, { method: 'POST', body: '{"a":1}' });
    expect([response.status, await response.text()]).toEqual([200, 'ok']);
    expect(server.requests.map((request) => [request.method, request.path, request.json])).toEqual([
      ['POST', '/v1/anything', { a: 1 }],
    ]);
  });
});

describe('replayFixtures', () => {
  const { server, read, json, sse } = replayFixtures(new URL('./__fixtures__/wire-replay/', import.meta.url));
  it('gives the file a server and the reply builders over the folder', async () => {
    expect(json('created')).toEqual([{ type: 'response', response: read('created') }]);
    expect(sse('created')[0]).toMatchObject({ chunking: 'events' });
    server.script(json('created'));
    const response = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect([response.status, await response.json()]).toEqual([201, { ok: true }]);
  });
});

describe('stream and rejection helpers', () => {
  it('collectStream keeps the parts before an error and returns the error instead of throwing', async () => {
    const ok = await collectStream(new ScriptedModel({ turns: [textTurn('hello')] }).doStream(ask));
    expect(ok.error).toBeUndefined();
    expect(finishedResult(ok.parts).text).toBe('hello');
    const failed = await collectStream(new ScriptedModel({ turns: [errorTurn(overloaded())] }).doStream(ask));
    expect(ModelError.isInstance(failed.error)).toBe(true);
    expect(() => finishedResult(failed.parts)).toThrow(/no finish part/);
  });

  it('streamResult returns the finish result and rethrows a stream error', async () => {
    const { result } = await streamResult(new ScriptedModel({ turns: [textTurn('hello')] }).doStream(ask));
    expect(result.text).toBe('hello');
    await expect(
      streamResult(new ScriptedModel({ turns: [errorTurn(overloaded())] }).doStream(ask)),
    ).rejects.toMatchObject({ code: 'overloaded' });
  });

  it('modelRejection returns the ModelError, and fails on success or on any other error', async () => {
    expect((await modelRejection(Promise.reject(overloaded()))).code).toBe('overloaded');
    await expect(modelRejection(Promise.resolve('fine'))).rejects.toThrow(/expected the call to fail/);
    await expect(modelRejection(Promise.reject(new TypeError('boom')))).rejects.toThrow(TypeError);
  });
});
