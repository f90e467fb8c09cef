import { afterAll, beforeAll } from 'vitest';
import type { GenerateResult, StreamPart } from './chat-model';
import { type FixtureReplies, fixtureReplies } from './fixture-replies';
import { type LoopbackServer, type LoopbackServerOptions, startLoopbackServer } from './loopback-server';
import { ModelError } from './model-error';

/**
 * The loopback server of one test file: started in a vitest `beforeAll`, closed in `afterAll`.
 * Call it at the top of the file (or of a `describe`); the object it returns reads through to the
 * started server, so `server.url`, `server.requests` and `server.script(…)` work inside tests
 * (reading them before `beforeAll` has run throws).
 *
 * @example
 * const server = useLoopbackServer();
 * it('…', async () => {
 *   server.script(json('text'));
 *   await createAnthropic({ apiKey: 'k', baseURL: server.url })('claude-sonnet-4-5').doGenerate(ask);
 * });
 */
export function useLoopbackServer(options?: LoopbackServerOptions): LoopbackServer {
  let started: LoopbackServer | undefined;
  beforeAll(async () => {
    started = await startLoopbackServer(options);
  });
  afterAll(async () => {
    await started?.close();
    started = undefined;
  });
  const current = (): LoopbackServer => {
    if (!started)
      throw new Error('the loopback server is started in beforeAll: use it inside a test or hook');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get requests() {
      return current().requests;
    },
    script: (replies, scriptOptions) => current().script(replies, scriptOptions),
    close: () => current().close(),
  };
}

/** What {@link replayFixtures} returns: the file's loopback server and the fixture reply builders. */
export interface FixtureReplay extends FixtureReplies {
  /** The file's loopback server (see {@link useLoopbackServer}). */
  readonly server: LoopbackServer;
}

/**
 * The usual setup of a wire-format test file: a loopback server for the file
 * ({@link useLoopbackServer}) and the reply builders over the `.http` fixtures in `directory`
 * ({@link fixtureReplies}), to replay recorded traffic through a real SDK.
 *
 * @example
 * const { server, json, sse } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
 * it('…', async () => {
 *   server.script(sse('length-mid-tool-call-stream'));
 *   const { parts, error } = await collectStream(model().doStream(ask));
 * });
 */
export function replayFixtures(directory: URL, options?: LoopbackServerOptions): FixtureReplay {
  return { server: useLoopbackServer(options), ...fixtureReplies(directory) };
}

/**
 * Reads a stream to its end or its first error: the parts that arrived, and the error if the
 * stream threw (it does not rethrow).
 */
export async function collectStream(
  stream: AsyncIterable<StreamPart>,
): Promise<{ parts: StreamPart[]; error?: unknown }> {
  const parts: StreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { parts, error };
  }
  return { parts };
}

/** The result of a stream's closing `finish` part; throws when the last part is not one. */
export function finishedResult(parts: readonly StreamPart[]): GenerateResult {
  const last = parts.at(-1);
  if (last?.type !== 'finish') throw new Error(`no finish part: ${JSON.stringify(parts)}`);
  return last.result;
}

/**
 * Reads a stream that must finish: its parts and its `finish` result. Rethrows the stream's error;
 * throws when it ends without a `finish` part.
 */
export async function streamResult(
  stream: AsyncIterable<StreamPart>,
): Promise<{ parts: StreamPart[]; result: GenerateResult }> {
  const outcome = await collectStream(stream);
  if ('error' in outcome) throw outcome.error;
  return { parts: outcome.parts, result: finishedResult(outcome.parts) };
}

/**
 * The `ModelError` a call rejects with. Throws when the call resolves, and rethrows any other
 * error, so a test fails unless the call fails the typed way.
 */
export async function modelRejection(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (ModelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail with a ModelError');
}
