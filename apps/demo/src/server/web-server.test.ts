import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@closedloop/cortex';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeRunBackend } from './__fixtures__/fake-run-backend';
import { readSse } from './__fixtures__/read-sse';
import { type StartRunFunction, startWebServer, type WebServer } from './web-server';
import { WebServerError } from './web-server-error';

let journalDir: string;
const servers: WebServer[] = [];

beforeEach(() => {
  journalDir = mkdtempSync(join(tmpdir(), 'closedloop-web-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  rmSync(journalDir, { recursive: true, force: true });
});

async function serve(options: { paceMs?: number; failStart?: string; crashAfter?: number } = {}) {
  const backend = createFakeRunBackend({ journalDir, ...options });
  const server = await startWebServer({ journalDir, startRun: backend.startRun, readRun: backend.readRun });
  servers.push(server);
  return { server, backend, url: (path: string) => new URL(path, server.url).href };
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

async function startAndDrain(url: (path: string) => string) {
  const started = await postJson(url('/api/runs'), { mode: 'auto' });
  expect(started.status).toBe(201);
  const runId = started.body.runId as string;
  const stream = await readSse(url(`/api/runs/${runId}/events`));
  return { runId, stream };
}

describe('startWebServer: options', () => {
  it('binds loopback on an ephemeral port by default', async () => {
    const { server } = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(new URL(server.url).port).not.toBe('0');
  });

  it('rejects bad options with a typed error', async () => {
    const backend = createFakeRunBackend({ journalDir });
    const base = { journalDir, startRun: backend.startRun, readRun: backend.readRun };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...base, port: 70_000 }, /port must be an integer 0–65535.*70000/],
      [{ ...base, port: 1.5 }, /port/],
      [{ ...base, host: '' }, /host/],
      [{ ...base, journalDir: '' }, /journalDir/],
      [{ ...base, startRun: 'nope' }, /startRun must be a function/],
      [{ ...base, readRun: undefined }, /readRun must be a function/],
    ];
    for (const [options, message] of cases) {
      const error = await startWebServer(options as never).catch((caught: unknown) => caught);
      expect(WebServerError.isInstance(error), String(message)).toBe(true);
      expect((error as WebServerError).code).toBe('invalid-options');
      expect((error as Error).message).toMatch(message);
    }
  });

  it('reports a port in use as listen-failed', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const backend = createFakeRunBackend({ journalDir });
      const error = await startWebServer({ journalDir, port, ...backend }).catch((caught: unknown) => caught);
      expect(WebServerError.isInstance(error)).toBe(true);
      expect((error as WebServerError).code).toBe('listen-failed');
      expect((error as Error).message).toContain(String(port));
    } finally {
      blocker.close();
    }
  });
});

describe('static page', () => {
  function builtAssets(): string {
    const dir = join(journalDir, 'web');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><script type="module" src="/assets/index-abc.js"></script><link rel="stylesheet" href="/assets/index-abc.css">',
    );
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log("app");');
    writeFileSync(join(dir, 'assets', 'index-abc.css'), 'body { margin: 0 }');
    return dir;
  }

  it('serves the built page and its hashed assets with a strict CSP', async () => {
    const backend = createFakeRunBackend({ journalDir });
    const server = await startWebServer({ journalDir, ...backend, assetsDir: builtAssets() });
    servers.push(server);
    const url = (path: string) => new URL(path, server.url).href;
    const page = await fetch(url('/'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(await page.text()).toContain('/assets/index-abc.js');
    expect((await fetch(url('/index.html'))).status).toBe(200);
    for (const [path, type] of [
      ['/assets/index-abc.js', 'text/javascript'],
      ['/assets/index-abc.css', 'text/css'],
    ] as const) {
      const response = await fetch(url(path));
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toContain(type);
      expect(response.headers.get('cache-control')).toContain('immutable');
    }
    expect((await fetch(url('/assets/../index.html'))).status).toBe(200);
    expect((await fetch(url('/assets/missing.js'))).status).toBe(404);
  });

  it('says how to build the page when it is missing, and the API still works', async () => {
    const backend = createFakeRunBackend({ journalDir });
    const server = await startWebServer({ journalDir, ...backend, assetsDir: join(journalDir, 'not-built') });
    servers.push(server);
    const page = await fetch(new URL('/', server.url));
    expect(page.status).toBe(503);
    expect(((await page.json()) as { error: string }).error).toContain('npm run build');
    expect((await fetch(new URL('/api/runs', server.url))).status).toBe(200);
  });

  it('answers 404 for unknown paths and 405 for wrong methods', async () => {
    const { url } = await serve();
    expect((await fetch(url('/nope.js'))).status).toBe(404);
    expect((await fetch(url('/constructor'))).status).toBe(404);
    const wrong = await fetch(url('/'), { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    const api = await fetch(url('/api/runs'), { method: 'PUT' });
    expect(api.status).toBe(405);
    expect(((await api.json()) as { error: string }).error).toContain('use GET, POST');
  });

  it('refuses a non-loopback Host header (DNS rebinding)', async () => {
    const { server } = await serve();
    const { port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path: '/api/runs', headers: { host: `evil.example:${port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(status).toBe(403);
    expect((await fetch(new URL('/', server.url.replace('127.0.0.1', 'localhost')))).status).toBe(200);
  });
});

describe('POST /api/runs', () => {
  it('starts a run with the validated body and answers 201 { runId }', async () => {
    const { url, backend } = await serve();
    const response = await postJson(url('/api/runs'), { task: '  write fizzbuzz  ', mode: 'single' });
    expect(response.status).toBe(201);
    expect(response.body.runId).toMatch(/^run-/);
    expect(backend.calls).toEqual([{ task: 'write fizzbuzz', mode: 'single' }]);
    const defaulted = await postJson(url('/api/runs'), { mode: 'auto' });
    expect(defaulted.status).toBe(201);
    expect(backend.calls[1]).toEqual({ task: undefined, mode: 'auto' });
  });

  it.each([
    ['no mode', { task: 'x' }, /mode must be "single" or "auto"/],
    ['a bad mode', { mode: 'turbo' }, /mode must be "single" or "auto"/],
    ['an empty task', { task: '   ', mode: 'auto' }, /task must not be empty/],
    ['a task of the wrong type', { task: 42, mode: 'auto' }, /task:/],
    ['an unknown field', { mode: 'auto', model: 'gpt' }, /unknown field\(s\): model/],
    ['an array', [], /Invalid run request/],
  ])('answers 400 for %s', async (_name, body, message) => {
    const { url, backend } = await serve();
    const response = await postJson(url('/api/runs'), body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    expect(backend.calls).toHaveLength(0);
  });

  it('answers 400 for malformed JSON, 415 for another content type, 413 for a huge body', async () => {
    const { url } = await serve();
    const malformed = await postJson(url('/api/runs'), '{"mode": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('The body is not valid JSON.');

    // Same-origin (a browser sends Origin): the body type is what is wrong.
    const form = await fetch(url('/api/runs'), {
      method: 'POST',
      body: 'mode=auto',
      headers: { origin: new URL(url('/')).origin },
    });
    expect(form.status).toBe(415);
    expect(((await form.json()) as { error: string }).error).toContain('application/json');

    const huge = await postJson(url('/api/runs'), { mode: 'auto', task: 'x'.repeat(70_000) });
    expect(huge.status).toBe(413);
  });

  it('answers 500 with the message when the backend cannot start the run', async () => {
    const { url } = await serve({ failStart: 'OPENAI_API_KEY is not set' });
    const response = await postJson(url('/api/runs'), { mode: 'auto' });
    expect(response.status).toBe(500);
    expect(response.body.error).toBe('The run could not start: OPENAI_API_KEY is not set');
  });
});

describe('run routes', () => {
  it('answers 404 for an unknown run and 400 for an unsafe id', async () => {
    const { url } = await serve();
    for (const path of ['/api/runs/run-missing', '/api/runs/run-missing/events']) {
      const response = await fetch(url(path));
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: string }).error).toContain('No run "run-missing"');
    }
    const cancel = await fetch(url('/api/runs/run-missing/cancel'), { method: 'POST' });
    expect(cancel.status).toBe(404);
    const unsafe = await fetch(url('/api/runs/..%2Fetc'));
    expect(unsafe.status).toBe(400);
    expect(((await unsafe.json()) as { error: string }).error).toContain('Invalid run id');
    expect((await fetch(url('/api/runs/a/b/c'))).status).toBe(404);
  });

  it('streams every event as SSE with id = index, then ends; GET returns the same events from the journal', async () => {
    const { url } = await serve({ paceMs: 4 });
    const { runId, stream } = await startAndDrain(url);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toBe('text/event-stream; charset=utf-8');
    expect(stream.raw.startsWith('retry: 1000\n\n')).toBe(true);
    const data = stream.messages.filter((message) => message.event === 'message');
    expect(data.length).toBeGreaterThan(50);
    expect(data.map((message) => message.id)).toEqual(data.map((_, index) => String(index)));
    // Exactly one data line per event, one event per message.
    expect(stream.raw.split('\n').filter((line) => line.startsWith('data: ')).length).toBe(data.length + 1);
    const events = data.map((message) => JSON.parse(message.data) as RunEvent);
    expect(events[0]?.type).toBe('run-started');
    expect(events.at(-1)?.type).toBe('run-finished');
    expect(stream.messages.at(-1)).toEqual({ event: 'end', data: '{}' });

    const read = await fetch(url(`/api/runs/${runId}`));
    expect(read.status).toBe(200);
    const body = (await read.json()) as { runId: string; active: boolean; events: RunEvent[] };
    expect(body.runId).toBe(runId);
    expect(body.active).toBe(false);
    expect(body.events).toEqual(events);
  });

  it('resumes after Last-Event-ID (header wins over ?from=) for live and journal-only runs', async () => {
    const { url } = await serve({ paceMs: 4 });
    const { runId, stream } = await startAndDrain(url);
    const total = stream.messages.filter((message) => message.event === 'message').length;

    const afterFive = await readSse(url(`/api/runs/${runId}/events`), { headers: { 'Last-Event-ID': '5' } });
    const ids = afterFive.messages.filter((m) => m.event === 'message').map((m) => Number(m.id));
    expect(ids[0]).toBe(6);
    expect(ids.at(-1)).toBe(total - 1);
    expect(afterFive.messages.filter((m) => m.event === 'message').map((m) => m.data)).toEqual(
      stream.messages
        .filter((m) => m.event === 'message')
        .slice(6)
        .map((m) => m.data),
    );

    const fromThree = await readSse(url(`/api/runs/${runId}/events?from=3`));
    expect(fromThree.messages[0]?.id).toBe('3');
    const both = await readSse(url(`/api/runs/${runId}/events?from=3`), {
      headers: { 'Last-Event-ID': '10' },
    });
    expect(both.messages[0]?.id).toBe('11');
    const garbage = await readSse(url(`/api/runs/${runId}/events`), { headers: { 'Last-Event-ID': 'abc' } });
    expect(garbage.messages[0]?.id).toBe('0');
    const past = await readSse(url(`/api/runs/${runId}/events`), {
      headers: { 'Last-Event-ID': String(total + 5) },
    });
    expect(past.messages).toEqual([{ event: 'end', data: '{}' }]);

    // A second server over the same journal (the first one restarted): the run is journal-only now.
    const backend = createFakeRunBackend({ journalDir });
    const second = await startWebServer({ journalDir, ...backend });
    servers.push(second);
    const replay = await readSse(new URL(`/api/runs/${runId}/events`, second.url).href, {
      headers: { 'Last-Event-ID': String(total - 3) },
    });
    expect(replay.messages.map((m) => m.id ?? m.event)).toEqual([
      String(total - 2),
      String(total - 1),
      'end',
    ]);
  });

  it('delivers a live run to a late subscriber: backlog first, then live events, no gaps', async () => {
    const { url } = await serve({ paceMs: 20 });
    const started = await postJson(url('/api/runs'), { mode: 'auto' });
    const runId = started.body.runId as string;
    await new Promise((resolve) => setTimeout(resolve, 150));
    const first = await readSse(url(`/api/runs/${runId}/events`), { stopAfter: 8 });
    const lastSeen = first.messages.at(-1)?.id ?? '0';
    const rest = await readSse(url(`/api/runs/${runId}/events`), { headers: { 'Last-Event-ID': lastSeen } });
    const ids = [...first.messages, ...rest.messages]
      .filter((m) => m.event === 'message')
      .map((m) => Number(m.id));
    expect(ids).toEqual(ids.map((_, index) => index));
    expect(JSON.parse(rest.messages.at(-2)?.data ?? '{}').type).toBe('run-finished');
  });

  it('cancels an active run: 202, then run-finished cancelled on the stream; 409 once it is over', async () => {
    const { url } = await serve({ paceMs: 200 });
    const started = await postJson(url('/api/runs'), { mode: 'auto' });
    const runId = started.body.runId as string;
    const streaming = readSse(url(`/api/runs/${runId}/events`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const listed = (await (await fetch(url('/api/runs'))).json()) as {
      runs: Array<{ runId: string; active: boolean }>;
    };
    expect(listed.runs).toContainEqual(expect.objectContaining({ runId, active: true }));

    const cancel = await postJson(url(`/api/runs/${runId}/cancel`), {});
    expect(cancel.status).toBe(202);
    expect(cancel.body).toEqual({ runId, cancelling: true });
    const stream = await streaming;
    const last = JSON.parse(stream.messages.at(-2)?.data ?? '{}') as RunEvent;
    expect(last).toMatchObject({ type: 'run-finished', stopReason: 'cancelled' });
    expect(stream.messages.at(-1)?.event).toBe('end');

    const again = await postJson(url(`/api/runs/${runId}/cancel`), {});
    expect(again.status).toBe(409);
    expect(again.body.error).toContain('already finished');
  });

  it('ends the stream with the error when the run crashes without run-finished', async () => {
    const { url } = await serve({ paceMs: 4, crashAfter: 5 });
    const { stream } = await startAndDrain(url);
    expect(stream.messages.filter((m) => m.event === 'message')).toHaveLength(5);
    expect(stream.messages.at(-1)).toEqual({
      event: 'end',
      data: JSON.stringify({ error: 'backend crashed' }),
    });
  });

  it('drops streaming-only events so that SSE ids match journal indexes', async () => {
    const base = createFakeRunBackend({ journalDir, paceMs: 4 });
    const startRun: StartRunFunction = (input) =>
      base.startRun({
        ...input,
        onEvent: (event) => {
          input.onEvent({
            type: 'text-delta',
            runId: event.runId,
            at: event.at,
            stepId: 'x',
            iteration: 1,
            delta: 'hi',
          });
          input.onEvent(event);
        },
      });
    const server = await startWebServer({ journalDir, startRun, readRun: base.readRun });
    servers.push(server);
    const url = (path: string) => new URL(path, server.url).href;
    const { runId, stream } = await startAndDrain(url);
    const streamed = stream.messages
      .filter((m) => m.event === 'message')
      .map((m) => JSON.parse(m.data) as RunEvent);
    expect(streamed.some((event) => event.type === 'text-delta')).toBe(false);
    const journal = (await base.readRun(runId)) ?? [];
    expect(streamed).toEqual(journal);
  });

  it('lists journaled runs newest first', async () => {
    const { url } = await serve({ paceMs: 4 });
    const first = await startAndDrain(url);
    const second = await startAndDrain(url);
    const body = (await (await fetch(url('/api/runs'))).json()) as {
      runs: Array<{ runId: string; active: boolean }>;
    };
    expect(body.runs.map((run) => run.runId)).toEqual([second.runId, first.runId]);
    expect(body.runs.every((run) => run.active === false)).toBe(true);
  });

  it('close() cancels active runs and ends open streams', async () => {
    const { server, url } = await serve({ paceMs: 500 });
    const started = await postJson(url('/api/runs'), { mode: 'auto' });
    const streaming = readSse(url(`/api/runs/${started.body.runId as string}/events`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const began = Date.now();
    await server.close();
    expect(Date.now() - began).toBeLessThan(2000);
    const stream = await streaming;
    const events = stream.messages
      .filter((m) => m.event === 'message')
      .map((m) => JSON.parse(m.data) as RunEvent);
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', stopReason: 'cancelled' });
    await expect(fetch(url('/'))).rejects.toThrow();
  });
});
