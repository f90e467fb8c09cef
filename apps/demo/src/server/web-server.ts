import { readdir, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { RunEvent } from '@closedloop/cortex';
import { z } from 'zod';
import { webAssets } from '../web/web-assets';
import { createRunChannel, isIndexedEvent, type RunChannel } from './run-channel';
import { formatSseMessage, resolveStreamStart } from './sse';
import { WebServerError } from './web-server-error';

/** How a step may act: `single` = at most one successful tool call per step, `auto` = several. */
export type RunMode = 'single' | 'auto';

/** What the server hands the run backend when the page asks for a run. */
export interface StartRunInput {
  /** The user's task; `undefined` runs the backend's built-in scenario. */
  task?: string;
  mode: RunMode;
  /** Aborted by `POST /api/runs/:id/cancel` (and by `close()`). */
  signal: AbortSignal;
  /** Every event of the run, as it happens (the same stream the CLI renders). */
  onEvent: (event: RunEvent) => void;
}

/** A run the backend started. `result` settles when the run is over (it should not reject). */
export interface StartedRun {
  runId: string;
  result: Promise<unknown>;
}

/** Starts a run (the CLI's `startRun` from `run-task.ts`). */
export type StartRunFunction = (input: StartRunInput) => Promise<StartedRun>;

/** Every journaled event of a run, or `undefined` when there is no such run. */
export type ReadRunFunction = (runId: string) => Promise<RunEvent[] | undefined>;

/** The runs of a store that is not the journal folder (Redis), most recently written first. */
export type ListRunsFunction = () => Promise<{ runId: string; updatedAt: number }[]>;

/**
 * A run's journaled events from index `from` on, then live as they are journaled (a run other
 * processes drive, e.g. on Redis), until `signal` aborts.
 */
export type FollowRunFunction = (
  runId: string,
  options: { from: number; signal: AbortSignal },
) => AsyncIterable<{ index: number; event: RunEvent }>;

/** Options of {@link startWebServer}. */
export interface WebServerOptions {
  /** Interface to bind. Default `127.0.0.1` (loopback only: the UI can start runs that touch files). */
  host?: string;
  /** TCP port; `0` (the default) picks a free one. The bound port is in the returned `url`. */
  port?: number;
  /** The run journals' folder (`<runId>.jsonl`), listed by `GET /api/runs`. */
  journalDir: string;
  startRun: StartRunFunction;
  readRun: ReadRunFunction;
  /** Lists runs from the run store instead of `journalDir` (a Redis store). */
  listRuns?: ListRunsFunction;
  /** Streams runs this server did not start live (other processes drive them) instead of ending at the journal's end. */
  followRun?: FollowRunFunction;
  /** Interval of SSE keep-alive comments. Default 15 000 ms. */
  heartbeatMs?: number;
}

/** A running web server. */
export interface WebServer {
  /** `http://host:port/`, with the port actually bound. */
  url: string;
  /** Cancels the runs still active, ends every event stream, and stops listening. */
  close(): Promise<void>;
}

/** Body of `POST /api/runs`. */
export const startRunBodySchema = z
  .object({
    task: z
      .string()
      .trim()
      .min(1, 'task must not be empty (leave it out to run the built-in scenario)')
      .max(20_000, 'task is longer than 20000 characters')
      .optional(),
    mode: z.enum(['single', 'auto'], { error: 'mode must be "single" or "auto"' }),
  })
  .strict();

/** A run id as the journal accepts it: a safe file name. */
const runIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,128}$/)
  .refine((id) => id !== '.' && id !== '..');

const maxBodyBytes = 64 * 1024;
const closeGraceMs = 5_000;
const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  response.end(text);
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join('.');
      if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(415, `Send the body as JSON with "content-type: application/json" (got "${type}").`);
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) {
    throw new HttpError(413, `The body is larger than ${maxBodyBytes} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBodyBytes) throw new HttpError(413, `The body is larger than ${maxBodyBytes} bytes.`);
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'The body is not valid JSON.');
  }
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

function validateOptions(options: WebServerOptions): { host: string; port: number; heartbeatMs: number } {
  const fail = (message: string): never => {
    throw new WebServerError({ code: 'invalid-options', message: `startWebServer: ${message}` });
  };
  if (typeof options !== 'object' || options === null) fail('options must be an object.');
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  if (typeof host !== 'string' || host === '')
    fail(`host must be a non-empty string, got ${JSON.stringify(host)}.`);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    fail(`port must be an integer 0–65535 (0 = any free port), got ${String(port)}.`);
  }
  if (!Number.isFinite(heartbeatMs) || heartbeatMs < 10)
    fail(`heartbeatMs must be ≥ 10, got ${String(heartbeatMs)}.`);
  if (typeof options.journalDir !== 'string' || options.journalDir === '') {
    fail(`journalDir must be a non-empty path, got ${JSON.stringify(options.journalDir)}.`);
  }
  if (typeof options.startRun !== 'function') fail('startRun must be a function (see run-task.ts).');
  if (typeof options.readRun !== 'function') fail('readRun must be a function (see run-task.ts).');
  return { host, port, heartbeatMs };
}

/**
 * Starts the `closedloop serve` web UI: a `node:http` server (no framework) that serves the page
 * and a small JSON + SSE API over the run backend.
 *
 * | route                          | answer                                                              |
 * | ------------------------------ | ------------------------------------------------------------------- |
 * | `GET /`                        | the page (HTML; CSS and a JS module under `/assets/`)              |
 * | `POST /api/runs` `{task?,mode}` | `201 { runId }`; 400 with a message for a bad body                  |
 * | `GET /api/runs`                | `{ runs: [{ runId, updatedAt, active }] }`, newest first           |
 * | `GET /api/runs/:id`            | `{ runId, active, events }` from the journal; 404 for an unknown run |
 * | `GET /api/runs/:id/events`     | `text/event-stream`: one `RunEvent` per `data:` line, `id:` = its index; resumes after `Last-Event-ID` (or `?from=<index>`); ends with `event: end` |
 * | `POST /api/runs/:id/cancel`    | `202 { runId, cancelling: true }`; 409 when the run is not active   |
 *
 * Bound to loopback it also refuses requests whose `Host` is not a loopback name (DNS rebinding).
 * Several runs may be active at once.
 *
 * @example
 * const server = await startWebServer({ journalDir: '.closedloop/runs', startRun, readRun });
 * console.log(`open ${server.url}`);
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { host, port, heartbeatMs } = validateOptions(options);
  const { journalDir, startRun, readRun, listRuns, followRun } = options;
  const runs = new Map<string, RunChannel>();
  const streams = new Set<ServerResponse>();
  const settling = new Set<Promise<unknown>>();
  const checkHost = loopbackHosts.has(host);

  async function journalEvents(runId: string): Promise<RunEvent[] | undefined> {
    const events = await readRun(runId);
    return events?.filter(isIndexedEvent);
  }

  async function handleStart(request: IncomingMessage, response: ServerResponse) {
    const parsed = startRunBodySchema.safeParse(await readJsonBody(request));
    if (!parsed.success) throw new HttpError(400, `Invalid run request: ${formatIssues(parsed.error)}.`);
    const channel = createRunChannel();
    let started: StartedRun;
    try {
      started = await startRun({
        task: parsed.data.task,
        mode: parsed.data.mode,
        signal: channel.controller.signal,
        onEvent: (event) => channel.push(event),
      });
    } catch (error) {
      channel.end(error instanceof Error ? error.message : String(error));
      throw new HttpError(
        500,
        `The run could not start: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    runs.set(started.runId, channel);
    const done = Promise.resolve(started.result).then(
      () => channel.end(),
      (error: unknown) => channel.end(error instanceof Error ? error.message : String(error)),
    );
    settling.add(done);
    void done.finally(() => settling.delete(done));
    sendJson(response, 201, { runId: started.runId });
  }

  async function handleList(response: ServerResponse) {
    const found = new Map<string, number>();
    if (listRuns) {
      for (const { runId, updatedAt } of await listRuns()) found.set(runId, updatedAt);
    } else
      try {
        for (const entry of await readdir(journalDir, { withFileTypes: true })) {
          if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
          const runId = entry.name.slice(0, -'.jsonl'.length);
          if (!runIdSchema.safeParse(runId).success) continue;
          found.set(runId, (await stat(join(journalDir, entry.name))).mtimeMs);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    for (const [runId, channel] of runs) {
      if (!found.has(runId)) found.set(runId, channel.events.at(-1)?.at ?? Date.now());
    }
    const list = [...found]
      .map(([runId, updatedAt]) => ({ runId, updatedAt, active: runs.get(runId)?.ended === false }))
      .sort((a, b) => b.updatedAt - a.updatedAt);
    sendJson(response, 200, { runs: list });
  }

  async function handleRead(runId: string, response: ServerResponse) {
    const channel = runs.get(runId);
    const events = (await journalEvents(runId)) ?? (channel ? [...channel.events] : undefined);
    if (!events) throw new HttpError(404, `No run "${runId}" in ${journalDir}.`);
    sendJson(response, 200, { runId, active: channel?.ended === false, events });
  }

  async function handleCancel(runId: string, response: ServerResponse) {
    const channel = runs.get(runId);
    if (!channel) {
      if (!(await journalEvents(runId))) throw new HttpError(404, `No run "${runId}" in ${journalDir}.`);
      throw new HttpError(409, `Run "${runId}" is not active in this server; there is nothing to cancel.`);
    }
    if (channel.ended) throw new HttpError(409, `Run "${runId}" has already finished.`);
    channel.controller.abort(new Error('cancelled from the web UI'));
    sendJson(response, 202, { runId, cancelling: true });
  }

  async function handleEvents(runId: string, request: IncomingMessage, response: ServerResponse, url: URL) {
    const channel = runs.get(runId);
    const journal = channel ? undefined : await journalEvents(runId);
    if (!channel && !journal) throw new HttpError(404, `No run "${runId}" in ${journalDir}.`);
    const lastEventId = request.headers['last-event-id'];
    let next = resolveStreamStart({
      lastEventId: Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
      from: url.searchParams.get('from'),
    });

    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
    });
    response.write('retry: 1000\n\n');
    streams.add(response);
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), heartbeatMs);
    let unsubscribe: () => void = () => {};
    const finish = (failure: string | undefined) => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(response);
      if (!response.writableEnded) {
        response.end(formatSseMessage({ event: 'end', data: failure ? { error: failure } : {} }));
      }
    };
    request.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(response);
    });

    const send = (event: RunEvent, index: number) => {
      if (index < next) return;
      response.write(formatSseMessage({ id: index, data: event }));
      next = index + 1;
    };
    if (!channel && followRun) {
      // Another process drives the run: follow the store until the run finishes or the client leaves.
      const controller = new AbortController();
      unsubscribe = () => controller.abort();
      void (async () => {
        // The run is over at a run-finished that is the journal's newest event (a resumed run has several).
        const newest = (journal?.length ?? 0) - 1;
        for await (const { index, event } of followRun(runId, { from: next, signal: controller.signal })) {
          send(event, index);
          if (event.type === 'run-finished' && index >= newest) break;
        }
      })().then(
        () => finish(undefined),
        (error: unknown) => finish(error instanceof Error ? error.message : String(error)),
      );
      return;
    }
    if (!channel) {
      (journal ?? []).forEach(send);
      finish(undefined);
      return;
    }
    channel.events.forEach(send);
    if (channel.ended) {
      finish(channel.failure);
      return;
    }
    unsubscribe = channel.subscribe({ onEvent: send, onEnd: finish });
  }

  function serveAsset(pathname: string, response: ServerResponse): boolean {
    const path = pathname === '/index.html' ? '/' : pathname;
    const asset = Object.hasOwn(webAssets, path) ? webAssets[path] : undefined;
    if (!asset) return false;
    response.writeHead(200, {
      'content-type': asset.contentType,
      'content-length': Buffer.byteLength(asset.body),
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy':
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
    });
    response.end(asset.body);
    return true;
  }

  async function route(request: IncomingMessage, response: ServerResponse) {
    if (checkHost && !loopbackHosts.has(hostnameOf(request.headers.host ?? ''))) {
      throw new HttpError(
        403,
        `Host "${request.headers.host ?? ''}" is not allowed; open the UI via ${host}.`,
      );
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const { pathname } = url;
    const allow = (methods: string) => {
      throw new HttpError(405, `${method} is not allowed on ${pathname}; use ${methods}.`, {
        allow: methods,
      });
    };

    if (!pathname.startsWith('/api/')) {
      if (method !== 'GET' && method !== 'HEAD') allow('GET');
      if (!serveAsset(pathname, response)) throw new HttpError(404, `Nothing at ${pathname}.`);
      return;
    }
    if (pathname === '/api/runs') {
      if (method === 'POST') return handleStart(request, response);
      if (method === 'GET') return handleList(response);
      return allow('GET, POST');
    }
    const match = /^\/api\/runs\/([^/]+)(\/events|\/cancel)?$/.exec(pathname);
    if (!match) throw new HttpError(404, `No API route ${pathname}.`);
    let runId: string;
    try {
      runId = decodeURIComponent(match[1] ?? '');
    } catch {
      throw new HttpError(400, 'The run id is not valid URL encoding.');
    }
    if (!runIdSchema.safeParse(runId).success) {
      throw new HttpError(400, `Invalid run id "${runId}": use 1–128 characters of A–Z a–z 0–9 . _ -.`);
    }
    switch (match[2]) {
      case '/events':
        return method === 'GET' ? handleEvents(runId, request, response, url) : allow('GET');
      case '/cancel':
        return method === 'POST' ? handleCancel(runId, response) : allow('POST');
      default:
        return method === 'GET' ? handleRead(runId, response) : allow('GET');
    }
  }

  const server: Server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendJson(response, status, { error: message }, error instanceof HttpError ? error.headers : {});
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      reject(
        new WebServerError({
          code: 'listen-failed',
          message: `startWebServer: could not listen on ${host}:${port}: ${error.message}`,
          cause: error,
        }),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}/`,
    close() {
      closing ??= (async () => {
        for (const channel of runs.values()) {
          if (!channel.ended) channel.controller.abort(new Error('the web server is closing'));
        }
        // Cancelled runs normally settle within a moment; never let a stuck backend hang close().
        await Promise.race([
          Promise.allSettled([...settling]),
          new Promise((resolve) => setTimeout(resolve, closeGraceMs).unref()),
        ]);
        for (const stream of streams) stream.end();
        streams.clear();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
