import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  brotliCompressSync,
  createBrotliCompress,
  createDeflate,
  createGzip,
  deflateSync,
  gzipSync,
} from 'node:zlib';
import { ConformanceError } from './conformance-error';

/** One request the loopback server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The raw body text. */
  body: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
  /** `performance.now()` when the request arrived. */
  receivedAt: number;
  /**
   * `performance.now()` when the connection closed before the response was complete: the client
   * gave up (an abort or a timeout) or the reply was a scripted reset. `undefined` while the
   * response is in flight and after a normal end.
   */
  closedEarlyAt: number | undefined;
}

/** A recorded HTTP response: status, headers and body, as stored in a `.http` fixture. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What the server does with the next request. */
export type LoopbackReply =
  | {
      type: 'response';
      response: RecordedResponse;
      /**
       * How the body is written. `whole`: one write. `events`: one write per SSE event (split on
       * blank lines), each event itself split in two writes mid-line to exercise the SDK's SSE
       * line decoder. `bytes`: like `events`, but each event is cut inside its first multi-byte
       * UTF-8 character (a character split across network reads), in the middle if it has none.
       */
      chunking?: 'whole' | 'events' | 'bytes';
      /**
       * What happens after the last event: `end` (default) ends the response normally, `hold`
       * keeps the connection open (for abort tests), `destroy` resets the socket.
       */
      after?: 'end' | 'hold' | 'destroy';
      /** Write only the first N events, then apply `after`. */
      limitEvents?: number;
      /**
       * With `after: 'hold'`: writes `text` every `everyMs` while the connection is held (a
       * server that trickles keep-alives — `: keep-alive` comments, `event: ping` — and never
       * ends the stream). Stops when the client closes the connection.
       */
      keepAlive?: { text: string; everyMs: number };
    }
  /**
   * Answers from the request itself (simulators: a provider's prompt-cache accounting, a scripted
   * agent loop): `respond` gets the recorded request and returns the response, written whole.
   */
  | { type: 'compute'; respond: (request: RecordedRequest) => RecordedResponse | Promise<RecordedResponse> }
  /**
   * A body that does not stop (a model stuck repeating itself, a hostile endpoint): `head`, then
   * `chunk` again and again (with backpressure) until `totalBytes` were sent, then `tail`. The
   * bound only lets a client without a limit finish; a client with one closes the connection
   * early (`closedEarlyAt`).
   */
  | {
      type: 'endless';
      status?: number;
      headers: Record<string, string>;
      head: string;
      chunk: string;
      tail: string;
      totalBytes: number;
    }
  /** Destroys the socket without sending a byte (a connection reset). */
  | { type: 'reset' }
  /** Never answers (for timeout and abort tests); the socket is closed when the server closes. */
  | { type: 'hang' };

/** A running loopback server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received since the last `script`, in order. */
  readonly requests: RecordedRequest[];
  /**
   * Replaces the reply queue (one reply per expected request) and clears `requests`. With
   * `fallback`, requests beyond the queue get that reply instead of an error (benchmarks);
   * `record: false` stops recording requests (benchmarks). A request with no reply gets a 599.
   */
  script(replies: LoopbackReply[], options?: { fallback?: LoopbackReply; record?: boolean }): void;
  close(): Promise<void>;
}

function invalidFixture(message: string, cause?: unknown): ConformanceError {
  return new ConformanceError({ code: 'invalid-fixture', message, cause });
}

/**
 * Parses a `.http` fixture: a status line (`HTTP/1.1 200 OK`, or `HTTP/2 200` as `curl -i`
 * prints it), header lines, a blank line, then the body verbatim (JSON, or SSE events separated
 * by blank lines), stored decoded: a `content-encoding` of gzip, x-gzip, deflate, br or identity
 * is applied again when the reply is written; any other is an `invalid-fixture`. Throws
 * `ConformanceError('invalid-fixture')` naming the bad line.
 *
 * @example
 * parseRecordedResponse('HTTP/1.1 429 Too Many Requests\nretry-after: 1\n\n{"error":{}}')
 */
export function parseRecordedResponse(text: string): RecordedResponse {
  const split = /\r?\n\r?\n/.exec(text);
  const head = split ? text.slice(0, split.index) : text;
  // The body stays byte for byte (a server's CRLF line endings included).
  const body = split ? text.slice(split.index + split[0].length) : '';
  const [statusLine = '', ...headerLines] = head.split(/\r?\n/);
  const match = /^HTTP\/(?:1\.[01]|2(?:\.0)?|3) (\d{3})/.exec(statusLine);
  if (!match?.[1]) {
    throw invalidFixture(
      `fixture does not start with an HTTP status line such as "HTTP/1.1 200 OK": ${JSON.stringify(statusLine)}`,
    );
  }
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    if (line.trim() === '') continue; // a fixture without a body may end right after its headers
    const colon = line.indexOf(':');
    if (colon <= 0) {
      throw invalidFixture(`bad header line in fixture (expected "name: value"): ${JSON.stringify(line)}`);
    }
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  checkContentEncoding(headers);
  return { status: Number(match[1]), headers, body };
}

/** Reads and parses a `.http` fixture file (`ConformanceError('invalid-fixture')` if unreadable). */
export function readRecordedResponse(path: string | URL): RecordedResponse {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw invalidFixture(`cannot read fixture ${String(path)}: ${(error as Error).message}`, error);
  }
  try {
    return parseRecordedResponse(text);
  } catch (error) {
    if (ConformanceError.isInstance(error)) {
      throw invalidFixture(`${String(path)}: ${error.message}`, error);
    }
    throw error;
  }
}

/**
 * The body's SSE events, each with the blank line that ends it, byte for byte: `\n`, `\r\n` and
 * lone `\r` line endings are kept as recorded, and a last event recorded without its closing blank
 * line is sent without it (real servers end streams that way; the client must not lose it).
 */
function splitEvents(body: string): string[] {
  const events: string[] = [];
  let pending = '';
  let start = 0;
  for (const match of body.matchAll(/(?:\r\n|\r|\n){2,}/g)) {
    const end = match.index + match[0].length;
    pending += body.slice(start, end);
    start = end;
    // Separators before the first event belong to it, not to an event of their own.
    if (pending.trim() !== '') {
      events.push(pending);
      pending = '';
    }
  }
  const rest = pending + body.slice(start);
  if (rest.trim() !== '') events.push(rest);
  else if (rest !== '' && events.length > 0) events[events.length - 1] += rest;
  return events;
}

/**
 * Where to cut an event in two: inside its first multi-byte UTF-8 character when it has one (the
 * client must not decode the halves on their own), else in the middle.
 */
function byteSplit(bytes: Buffer): number {
  const continuation = bytes.findIndex((byte) => (byte & 0xc0) === 0x80);
  return continuation > 0 ? continuation : Math.floor(bytes.length / 2);
}

/** The middle of `text`, moved off the second half of a surrogate pair (an emoji stays whole). */
function textMiddle(text: string): number {
  const middle = Math.floor(text.length / 2);
  const code = text.charCodeAt(middle - 1);
  return code >= 0xd800 && code <= 0xdbff ? middle - 1 : middle;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Headers of a recording that describe how its bytes were framed on the original connection
 * (`content-length` of another body, `transfer-encoding: chunked`, the connection's own
 * keep-alive): the loopback server frames its reply itself, so they are left out.
 */
const framingHeaders = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

type Encoding = 'gzip' | 'deflate' | 'br' | undefined;

const encodings: Readonly<Record<string, Encoding>> = {
  gzip: 'gzip',
  'x-gzip': 'gzip',
  deflate: 'deflate',
  br: 'br',
  identity: undefined,
};

function replayHeaders(recorded: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(recorded)) {
    if (framingHeaders.has(name)) continue;
    if (name === 'content-encoding' && contentEncoding(recorded) === undefined) continue;
    headers[name] = value;
  }
  return headers;
}

/** The fixture's `content-encoding` (its body is stored decoded; the server encodes it again). */
function contentEncoding(headers: Record<string, string>): Encoding {
  const value = headers['content-encoding']?.trim().toLowerCase();
  return value === undefined || value === '' ? undefined : encodings[value];
}

function checkContentEncoding(headers: Record<string, string>): void {
  const value = headers['content-encoding']?.trim().toLowerCase();
  if (value === undefined || value === '' || value in encodings) return;
  throw invalidFixture(
    `unsupported content-encoding ${JSON.stringify(value)} in fixture (the body is stored decoded; the loopback server can encode gzip, x-gzip, deflate, br or identity)`,
  );
}

function encode(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  if (encoding === 'br') return brotliCompressSync(body);
  return body;
}

interface Sink {
  /** Writes `bytes` and, through a compressor, flushes them to the client. */
  write(bytes: Buffer): Promise<void>;
  end(): void;
}

function encoder(res: ServerResponse, encoding: Encoding): Sink {
  if (encoding === undefined) {
    return {
      write: async (bytes) => {
        if (!res.destroyed && !res.writableEnded) res.write(bytes);
      },
      end: () => res.end(),
    };
  }
  const compressor =
    encoding === 'gzip' ? createGzip() : encoding === 'deflate' ? createDeflate() : createBrotliCompress();
  compressor.on('data', (chunk: Buffer) => {
    if (!res.destroyed && !res.writableEnded) res.write(chunk);
  });
  compressor.on('end', () => {
    if (!res.destroyed && !res.writableEnded) res.end();
  });
  compressor.on('error', () => res.destroy());
  res.once('close', () => compressor.destroy());
  return {
    write: (bytes) =>
      new Promise((resolve) => {
        if (compressor.destroyed || compressor.writableEnded) return resolve();
        compressor.write(bytes);
        compressor.flush(() => resolve());
      }),
    end: () => {
      if (!compressor.destroyed) compressor.end();
    },
  };
}

async function writeReply(
  res: ServerResponse,
  reply: LoopbackReply,
  sockets: Set<Socket>,
  request: RecordedRequest,
): Promise<void> {
  if (reply.type === 'compute') {
    const response = await reply.respond(request);
    const body = encode(Buffer.from(response.body), contentEncoding(response.headers));
    res.writeHead(response.status, {
      ...replayHeaders(response.headers),
      'content-length': String(body.length),
    });
    res.end(body);
    return;
  }
  if (reply.type === 'endless') {
    const { head, chunk, tail, totalBytes } = reply;
    res.writeHead(reply.status ?? 200, reply.headers);
    res.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end(tail);
    };
    pump();
    return;
  }
  if (reply.type === 'reset') {
    res.socket?.destroy();
    return;
  }
  if (reply.type === 'hang') {
    if (res.socket) sockets.add(res.socket);
    return;
  }
  const { response, chunking = 'whole', after = 'end', limitEvents } = reply;
  const headers = replayHeaders(response.headers);
  const encoding = contentEncoding(response.headers);
  if (chunking === 'whole' && after === 'end' && limitEvents === undefined) {
    const body = encode(Buffer.from(response.body), encoding);
    headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  // An encoded body goes through one compressor, flushed after every write, so each write
  // reaches the client as soon as it is made (as a compressing server streams SSE).
  const sink = encoder(res, encoding);
  if (chunking === 'whole') {
    await sink.write(Buffer.from(response.body));
  } else {
    const events = splitEvents(response.body).slice(0, limitEvents);
    res.flushHeaders();
    for (const event of events) {
      if (res.destroyed) return;
      const bytes = Buffer.from(event);
      // `bytes`: cut inside the first multi-byte character; `events`: in the middle of the text.
      const cut =
        chunking === 'bytes' ? byteSplit(bytes) : Buffer.byteLength(event.slice(0, textMiddle(event)));
      await sink.write(bytes.subarray(0, cut));
      await tick();
      await sink.write(bytes.subarray(cut));
      await tick();
    }
  }
  if (after === 'end') {
    sink.end();
    return;
  }
  if (after === 'destroy') {
    await tick();
    res.socket?.destroy();
  } else if (res.socket) {
    sockets.add(res.socket);
    const { keepAlive } = reply;
    if (keepAlive) {
      const timer = setInterval(() => {
        if (res.destroyed || res.writableEnded) clearInterval(timer);
        else void sink.write(Buffer.from(keepAlive.text));
      }, keepAlive.everyMs);
      timer.unref();
      res.once('close', () => clearInterval(timer));
    }
  }
}

const replyTypes = new Set(['response', 'compute', 'endless', 'reset', 'hang']);

function checkReply(reply: unknown, where: string): void {
  const type = (reply as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !replyTypes.has(type)) {
    throw new ConformanceError({
      code: 'invalid-options',
      message: `${where} is not a loopback reply (type must be response, compute, endless, reset or hang): ${JSON.stringify(reply)}`,
    });
  }
}

/** Options of {@link startLoopbackServer}. */
export interface LoopbackServerOptions {
  /** HTTP keep-alive timeout in ms; short by default so tests close fast, longer for benchmarks. */
  keepAliveTimeoutMs?: number;
}

/**
 * Starts a `node:http` server on an ephemeral port of 127.0.0.1 that replays recorded provider
 * responses to a real SDK over real HTTP, in the order scripted, and records every request it
 * receives (for snapshots, attempt counts and abort timing).
 *
 * @example
 * const server = await startLoopbackServer();
 * server.script([{ type: 'response', response: readRecordedResponse(fixtureUrl) }]);
 * // … point the SDK's baseURL at server.url …
 * await server.close();
 */
export async function startLoopbackServer(options: LoopbackServerOptions = {}): Promise<LoopbackServer> {
  const { keepAliveTimeoutMs = 1 } = options;
  if (!Number.isFinite(keepAliveTimeoutMs) || keepAliveTimeoutMs <= 0) {
    throw new ConformanceError({
      code: 'invalid-options',
      message: `keepAliveTimeoutMs must be a positive number of milliseconds, got ${String(keepAliveTimeoutMs)}`,
    });
  }
  let queue: LoopbackReply[] = [];
  let fallback: LoopbackReply | undefined;
  let record = true;
  const requests: RecordedRequest[] = [];
  const held = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const receivedAt = performance.now();
      const body = await readBody(req);
      let json: unknown;
      try {
        json = body === '' ? undefined : JSON.parse(body);
      } catch {
        json = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const entry: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers,
        body,
        json,
        receivedAt,
        closedEarlyAt: undefined,
      };
      if (record) {
        requests.push(entry);
        res.once('close', () => {
          if (!res.writableFinished) entry.closedEarlyAt = performance.now();
        });
      }
      const reply = queue.shift() ?? fallback;
      if (!reply) {
        res.writeHead(599, { 'content-type': 'text/plain' });
        res.end('loopback: no reply scripted for this request');
        return;
      }
      await writeReply(res, reply, held, entry);
    })();
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(replies, scriptOptions = {}) {
      if (!Array.isArray(replies)) {
        throw new ConformanceError({
          code: 'invalid-options',
          message: 'script(replies): replies must be an array',
        });
      }
      for (const [index, reply] of replies.entries()) checkReply(reply, `replies[${index}]`);
      if (scriptOptions.fallback !== undefined) checkReply(scriptOptions.fallback, 'fallback');
      for (const socket of held) socket.destroy();
      held.clear();
      queue = [...replies];
      fallback = scriptOptions.fallback;
      record = scriptOptions.record ?? true;
      requests.length = 0;
    },
    close() {
      for (const socket of held) socket.destroy();
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
