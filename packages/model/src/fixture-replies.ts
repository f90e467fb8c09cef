import type { LoopbackReply, RecordedResponse } from './loopback-server';
import { readRecordedResponse } from './loopback-server';

/** Options of an SSE reply built by {@link fixtureReplies}. */
export type StreamReplyOptions = Pick<
  Extract<LoopbackReply, { type: 'response' }>,
  'after' | 'limitEvents' | 'chunking' | 'keepAlive'
>;

/** Reply builders over one adapter's folder of `.http` fixtures. */
export interface FixtureReplies {
  /** The parsed fixture `<name>.http`. */
  read(name: string): RecordedResponse;
  /** The fixture as one reply, written whole (a JSON response). */
  json(name: string): LoopbackReply[];
  /** The fixture as one reply written event by event (an SSE stream); cut or held with `options`. */
  sse(name: string, options?: StreamReplyOptions): LoopbackReply[];
}

/**
 * Reply builders for the `.http` fixtures in `directory` (a folder URL; end it with `/`).
 * Each builder returns a one-element array, so scenario replies read as `json('text')` and
 * sequences as `[...json('rate-limited'), ...json('text')]`.
 *
 * @example
 * const { json, sse } = fixtureReplies(new URL('./__fixtures__/', import.meta.url));
 * server.script(sse('text-stream', { limitEvents: 3, after: 'hold' }));
 */
export function fixtureReplies(directory: URL): FixtureReplies {
  const folder = directory.href.endsWith('/') ? directory : new URL(`${directory.href}/`);
  const read = (name: string) => readRecordedResponse(new URL(`${name}.http`, folder));
  return {
    read,
    json: (name) => [{ type: 'response', response: read(name) }],
    sse: (name, options = {}) => [{ type: 'response', response: read(name), chunking: 'events', ...options }],
  };
}
