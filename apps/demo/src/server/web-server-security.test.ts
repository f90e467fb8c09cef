import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeRunBackend } from './__fixtures__/fake-run-backend';
import { isLoopbackHost } from './request-guard';
import { startWebServer, type WebServer, type WebServerOptions } from './web-server';

let journalDir: string;
const servers: WebServer[] = [];
beforeEach(() => {
  journalDir = mkdtempSync(join(tmpdir(), 'closedloop-web-security-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  rmSync(journalDir, { recursive: true, force: true });
});

async function serve(options: Partial<WebServerOptions> & { paceMs?: number } = {}) {
  const { paceMs, ...rest } = options;
  const backend = createFakeRunBackend({ journalDir, paceMs: paceMs ?? 100 });
  const server = await startWebServer({
    journalDir,
    startRun: backend.startRun,
    readRun: backend.readRun,
    ...rest,
  });
  servers.push(server);
  return { server, backend };
}

/** A raw HTTP request (any Host header, any body type), answered with status, headers and body. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {} },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
          // An event stream never ends by itself: the status and headers are what we want.
          if (String(response.headers['content-type']).startsWith('text/event-stream')) request.destroy();
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
        response.on('close', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      reject(error);
    });
    request.end(options.body);
  });
}

const json = { 'content-type': 'application/json' };

describe('cross-site requests are refused (Origin / Sec-Fetch-Site)', () => {
  it('a cross-site text/plain POST cannot cancel a run; a same-origin one can', async () => {
    const { server } = await serve({ paceMs: 200 });
    const base = new URL(server.url);
    const started = await send(new URL('/api/runs', base).href, {
      method: 'POST',
      headers: json,
      body: '{"mode":"auto"}',
    });
    expect(started.status).toBe(201);
    const { runId } = JSON.parse(started.body) as { runId: string };
    const cancel = new URL(`/api/runs/${runId}/cancel`, base).href;
    const crossSite: Record<string, string>[] = [
      { 'content-type': 'text/plain', origin: 'http://evil.example' },
      { 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'application/x-www-form-urlencoded', origin: 'null' },
      { 'sec-fetch-site': 'same-site', origin: `http://${base.host}` },
      { origin: `http://${base.hostname}:1` },
      { origin: `https://${base.host}.evil.example` },
    ];
    for (const headers of crossSite) {
      const answer = await send(cancel, { method: 'POST', headers, body: 'x' });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
    }
    const read = JSON.parse((await send(new URL(`/api/runs/${runId}`, base).href)).body) as {
      active: boolean;
    };
    expect(read.active).toBe(true);
    const sameOrigin = await send(cancel, {
      method: 'POST',
      headers: { origin: `http://${base.host}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(202);
  });

  it('a cross-site POST cannot start a run', async () => {
    const { server, backend } = await serve();
    const answer = await send(new URL('/api/runs', server.url).href, {
      method: 'POST',
      headers: { ...json, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      body: '{"mode":"auto","task":"rm -rf"}',
    });
    expect(answer.status).toBe(403);
    expect(backend.calls).toEqual([]);
  });

  it('keeps refusing foreign Host names on loopback (DNS rebinding)', async () => {
    const { server } = await serve();
    const answer = await send(new URL('/api/runs', server.url).href, {
      headers: { host: 'rebind.evil.example' },
    });
    expect(answer.status).toBe(403);
    expect(isLoopbackHost('127.0.0.2')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
  });
});

describe('a non-loopback host requires a token and keeps the Host check', () => {
  it('generates a token, prints it in the URL, and refuses requests without it', async () => {
    const { server } = await serve({ host: '0.0.0.0' });
    const printed = new URL(server.url);
    const token = printed.searchParams.get('token');
    expect(token).toMatch(/^[A-Za-z0-9_-]{24,}$/);
    const local = `http://127.0.0.1:${printed.port}`;
    expect((await send(`${local}/api/runs`)).status).toBe(401);
    expect((await send(`${local}/`)).status).toBe(401);
    expect(
      (await send(`${local}/api/runs`, { headers: { authorization: 'Bearer wrong-token-0123456789' } }))
        .status,
    ).toBe(401);
    expect((await send(`${local}/api/runs`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    const page = await send(`${local}/?token=${token}`);
    expect(page.status).toBe(200);
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const withCookie = await send(`${local}/api/runs`, {
      headers: { cookie: cookie.split(';')[0] as string },
    });
    expect(withCookie.status).toBe(200);
    // The Host check stays: a DNS name pointing here is refused even with the token.
    const rebound = await send(`${local}/api/runs`, {
      headers: { host: 'rebind.evil.example', authorization: `Bearer ${token}` },
    });
    expect(rebound.status).toBe(403);
  });

  it('uses a given token, and refuses a weak one', async () => {
    const { server } = await serve({ host: '0.0.0.0', token: 'a-strong-enough-token-0123' });
    expect(server.url).toContain('?token=a-strong-enough-token-0123');
    await expect(
      startWebServer({
        host: '0.0.0.0',
        token: 'short',
        journalDir,
        startRun: async () => ({ runId: 'x', result: Promise.resolve() }),
        readRun: async () => undefined,
      }),
    ).rejects.toThrow(/token/);
  });
});

describe('caps', () => {
  it('answers 429 beyond the event-stream cap and 503 beyond the active-run cap', async () => {
    const { server, backend } = await serve({ paceMs: 300, maxEventStreams: 2, maxActiveRuns: 1 });
    const base = new URL(server.url);
    const started = await send(new URL('/api/runs', base).href, {
      method: 'POST',
      headers: json,
      body: '{"mode":"auto"}',
    });
    const { runId } = JSON.parse(started.body) as { runId: string };
    const second = await send(new URL('/api/runs', base).href, {
      method: 'POST',
      headers: json,
      body: '{"mode":"auto"}',
    });
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBeDefined();
    expect(backend.calls).toHaveLength(1);
    // Two open streams (kept open), then a third is refused.
    const events = new URL(`/api/runs/${runId}/events`, base).href;
    const open: (() => void)[] = [];
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve, reject) => {
        const request = httpRequest(events, (response) => {
          expect(response.statusCode).toBe(200);
          open.push(() => request.destroy());
          resolve();
        });
        request.on('error', (error) =>
          (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error),
        );
        request.end();
      });
    }
    const third = await send(events);
    expect(third.status).toBe(429);
    for (const close of open) close();
  });
});
