import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClosedloopError } from '@closedloop/model/error';
import type { z } from 'zod';

const marker = Symbol.for('closedloop.demo.http-error');

/** The code of an {@link HttpError}: `http-` and its status (`http-404`). */
export type HttpErrorCode = `http-${number}`;

/** The `details` of an {@link HttpError}: the status and the extra headers of the answer. */
export type HttpErrorDetails = {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
};

/**
 * An HTTP answer other than 2xx, with the message the page shows as is (a complete sentence:
 * what was wrong and what to do). `HttpError.isInstance(e)` works across module copies.
 */
export class HttpError extends ClosedloopError<HttpErrorCode, HttpErrorDetails> {
  readonly [marker] = true;
  override readonly name = 'HttpError';
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super({ code: `http-${status}`, message, details: { status, headers } });
    this.status = status;
    this.headers = headers;
  }

  /** True for an `HttpError` from any copy of this module. */
  static override isInstance(error: unknown): error is HttpError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/** Writes a JSON answer. */
export function sendJson(
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

/** Zod issues as one sentence for a 400 answer. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join('.');
      if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

const maxBodyBytes = 64 * 1024;

/** Reads a JSON body (415 for another type, 413 beyond 64 KiB, 400 for bad JSON). */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
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

/** Parses a JSON body with a schema; 400 names every problem. */
export async function readBody<T>(request: IncomingMessage, schema: z.ZodType<T>, what: string): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(request));
  if (!parsed.success) throw new HttpError(400, `Invalid ${what}: ${formatIssues(parsed.error)}.`);
  return parsed.data;
}
