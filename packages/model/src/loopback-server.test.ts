import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConformanceError } from './conformance-error';
import { fixtureReplies } from './fixture-replies';
import {
  type LoopbackServer,
  parseRecordedResponse,
  readRecordedResponse,
  startLoopbackServer,
} from './loopback-server';

const sseBody = ['data: {"n":1}', 'data: {"n":2}', 'data: {"n":3}', 'data: [DONE]']
  .map((event) => `${event}\n\n`)
  .join('');
const sseResponse = parseRecordedResponse(`HTTP/1.1 200 OK\ncontent-type: text/event-stream\n\n${sseBody}`);
const jsonResponse = parseRecordedResponse(
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-request-id: req_1\r\n\r\n{"ok":true}',
);

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('parseRecordedResponse / readRecordedResponse', () => {
  it('parses the status line, lower-cased headers and the body verbatim (CRLF tolerated)', () => {
    expect(jsonResponse).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' },
      body: '{"ok":true}',
    });
    expect(parseRecordedResponse('HTTP/1.1 204 No Content\n').body).toBe('');
    expect(sseResponse.body).toBe(sseBody);
  });

  it('rejects a bad status line, a bad header line and an unreadable file with invalid-fixture', () => {
    for (const bad of ['200 OK\n\n{}', 'HTTP/1.1 200 OK\nno colon here\n\n{}']) {
      const error = errorOf(() => parseRecordedResponse(bad));
      expect(ConformanceError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'invalid-fixture' });
    }
    const missing = errorOf(() => readRecordedResponse(join(tmpdir(), 'no-such-fixture.http')));
    expect(missing).toMatchObject({ code: 'invalid-fixture', message: /cannot read fixture/ });
  });
});

describe('fixtureReplies', () => {
  it('builds whole and event-by-event replies from a folder of .http files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopback-fixtures-'));
    writeFileSync(join(dir, 'hello.http'), 'HTTP/1.1 200 OK\ncontent-type: application/json\n\n{"hi":1}');
    writeFileSync(join(dir, 'broken.http'), 'not a response');
    const replies = fixtureReplies(pathToFileURL(dir));
    expect(replies.read('hello').body).toBe('{"hi":1}');
    expect(replies.json('hello')).toEqual([{ type: 'response', response: replies.read('hello') }]);
    expect(replies.sse('hello', { limitEvents: 2, after: 'hold' })).toEqual([
      {
        type: 'response',
        response: replies.read('hello'),
        chunking: 'events',
        limitEvents: 2,
        after: 'hold',
      },
    ]);
    expect(errorOf(() => replies.json('broken'))).toMatchObject({
      code: 'invalid-fixture',
      message: /broken\.http: fixture does not start with an HTTP status line/,
    });
  });
});

describe('startLoopbackServer', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('replays a JSON response and records the request', async () => {
    server.script([{ type: 'response', response: jsonResponse }]);
    const response = await fetch(`${server.url}/v1/things?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Api-Key': 'k' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toEqual({ ok: true });
    const [request] = server.requests;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/things?x=1',
      body: '{"a":1}',
      json: { a: 1 },
      closedEarlyAt: undefined,
    });
    expect(request?.headers['x-api-key']).toBe('k');
    expect(request?.receivedAt).toBeGreaterThan(0);
  });

  it('writes SSE event by event, and can stop after N events', async () => {
    server.script([
      { type: 'response', response: sseResponse, chunking: 'events' },
      { type: 'response', response: sseResponse, chunking: 'events', limitEvents: 2 },
    ]);
    expect(await (await fetch(server.url)).text()).toBe(sseBody);
    expect(await (await fetch(server.url)).text()).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
  });

  it('keeps a CRLF body byte for byte, event by event too', async () => {
    const body = 'data: {"n":1}\r\n\r\ndata: [DONE]\r\n\r\n';
    const crlf = parseRecordedResponse(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n${body}`);
    expect(crlf.body).toBe(body);
    server.script([{ type: 'response', response: crlf, chunking: 'events' }]);
    expect(await (await fetch(server.url)).text()).toBe(body);
  });

  it('keeps lone-CR line endings and a last event without its blank line byte for byte', async () => {
    const cr = 'data: {"n":1}\r\rdata: {"n":2}\r\r';
    const unterminated = 'data: {"n":1}\n\ndata: {"n":2}';
    server.script([
      { type: 'response', response: { ...sseResponse, body: cr }, chunking: 'events', limitEvents: 1 },
      { type: 'response', response: { ...sseResponse, body: unterminated }, chunking: 'events' },
      { type: 'response', response: { ...sseResponse, body: `\n\n${unterminated}\n` }, chunking: 'events' },
    ]);
    expect(await (await fetch(server.url)).text()).toBe('data: {"n":1}\r\r');
    expect(await (await fetch(server.url)).text()).toBe(unterminated);
    expect(await (await fetch(server.url)).text()).toBe(`\n\n${unterminated}\n`);
  });

  it('frames a recorded reply itself: transfer-encoding, content-length and connection are dropped', async () => {
    const recorded = parseRecordedResponse(
      'HTTP/2 200\ncontent-type: application/json\ntransfer-encoding: chunked\ncontent-length: 5\nconnection: keep-alive\nx-request-id: req_2\n\n{"ok":true}',
    );
    expect(recorded.status).toBe(200);
    for (const chunking of ['whole', 'events', 'bytes'] as const) {
      server.script([{ type: 'response', response: recorded, chunking }]);
      const response = await fetch(server.url);
      expect(response.headers.get('x-request-id')).toBe('req_2');
      expect(await response.text()).toBe('{"ok":true}');
    }
  });

  it('encodes a body recorded decoded under content-encoding gzip, deflate or br, flushed event by event', async () => {
    for (const encoding of ['gzip', 'x-gzip', 'deflate', 'br', 'identity']) {
      const headers = { 'content-type': 'text/event-stream', 'content-encoding': encoding };
      server.script([
        { type: 'response', response: { status: 200, headers, body: sseBody } },
        { type: 'response', response: { status: 200, headers, body: sseBody }, chunking: 'events' },
        {
          type: 'response',
          response: { status: 200, headers, body: sseBody },
          limitEvents: 1,
          chunking: 'events',
          after: 'hold',
        },
      ]);
      expect(await (await fetch(server.url)).text()).toBe(sseBody);
      expect(await (await fetch(server.url)).text()).toBe(sseBody);
      // The first event reaches the client while the stream is held open (not stuck in the compressor).
      const controller = new AbortController();
      const held = await fetch(server.url, { signal: controller.signal });
      const reader = (held.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!text.endsWith('\n\n')) text += Buffer.from((await reader.read()).value ?? []).toString('utf8');
      expect(text).toBe('data: {"n":1}\n\n');
      controller.abort();
    }
    const error = errorOf(() => parseRecordedResponse('HTTP/1.1 200 OK\ncontent-encoding: zstd\n\n{}'));
    expect(error).toMatchObject({ code: 'invalid-fixture', message: /unsupported content-encoding "zstd"/ });
  });

  it('bytes: writes each event in two parts cut inside its first multi-byte character', async () => {
    const body = 'data: {"t":"caf\u00e9"}\n\ndata: {"t":"\u{1F600}"}\n\ndata: [DONE]\n\n';
    server.script([{ type: 'response', response: { ...sseResponse, body }, chunking: 'bytes' }]);
    const response = await fetch(server.url);
    const reads: Uint8Array[] = [];
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) reads.push(chunk);
    expect(Buffer.concat(reads).toString('utf8')).toBe(body);
    // Two writes per event (TCP may still join them): the client gets every byte in order.
    expect(reads.length).toBeGreaterThan(0);
  });

  it('resets connections, before a byte or mid-stream', async () => {
    server.script([
      { type: 'reset' },
      { type: 'response', response: sseResponse, chunking: 'events', limitEvents: 1, after: 'destroy' },
    ]);
    await expect(fetch(server.url)).rejects.toThrow(/fetch failed/);
    const cut = await fetch(server.url);
    await expect(cut.text()).rejects.toThrow();
    expect(server.requests.every((request) => request.closedEarlyAt !== undefined)).toBe(true);
  });

  it('records when a client gives up on a hanging or held response', async () => {
    server.script([
      { type: 'hang' },
      { type: 'response', response: sseResponse, chunking: 'events', limitEvents: 1, after: 'hold' },
    ]);
    const hanging = new AbortController();
    const first = fetch(server.url, { signal: hanging.signal });
    while (server.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 1));
    const abortedAt = performance.now();
    hanging.abort();
    await expect(first).rejects.toThrow();
    const held = new AbortController();
    const response = await fetch(server.url, { signal: held.signal });
    const reader = response.body?.getReader();
    await reader?.read();
    held.abort();
    // The server sees the closed socket a moment later (longer on a loaded machine).
    const deadline = performance.now() + 5_000;
    while (server.requests[1]?.closedEarlyAt === undefined && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [a, b] = server.requests;
    // Recorded when the client gave up, not when the hanging response would have ended.
    expect((a?.closedEarlyAt ?? Number.POSITIVE_INFINITY) - abortedAt).toBeLessThan(1_000);
    expect(b?.closedEarlyAt).toBeDefined();
  });

  it('endless: head, the chunk up to totalBytes with backpressure, then tail; an early close is recorded', async () => {
    const endless = {
      type: 'endless',
      headers: { 'content-type': 'text/plain' },
      head: '<',
      chunk: 'x'.repeat(1024),
      tail: '>',
      totalBytes: 4 * 1024 * 1024,
    } as const;
    server.script([endless, endless]);
    const whole = await (await fetch(server.url)).text();
    expect(whole).toBe(`<${'x'.repeat(4 * 1024 * 1024)}>`);
    const reading = new AbortController();
    const reader = (await fetch(server.url, { signal: reading.signal })).body?.getReader();
    await reader?.read();
    reading.abort();
    const deadline = performance.now() + 5_000;
    while (server.requests[1]?.closedEarlyAt === undefined && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(server.requests[0]?.closedEarlyAt).toBeUndefined();
    expect(server.requests[1]?.closedEarlyAt).toBeDefined();
  });

  it('answers unscripted requests with 599, serves a fallback and can stop recording', async () => {
    server.script([]);
    expect((await fetch(server.url)).status).toBe(599);
    server.script([], { fallback: { type: 'response', response: jsonResponse }, record: false });
    expect((await fetch(server.url)).status).toBe(200);
    expect((await fetch(server.url)).status).toBe(200);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects bad scripts and options with invalid-options', async () => {
    const bad = [{ type: 'teapot' }] as unknown as Parameters<LoopbackServer['script']>[0];
    expect(errorOf(() => server.script(bad))).toMatchObject({ code: 'invalid-options' });
    expect(errorOf(() => server.script('x' as unknown as []))).toMatchObject({ code: 'invalid-options' });
    await expect(startLoopbackServer({ keepAliveTimeoutMs: 0 })).rejects.toMatchObject({
      code: 'invalid-options',
    });
  });
});
