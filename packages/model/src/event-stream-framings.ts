import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatModel, GenerateRequest, GenerateResult } from './chat-model';
import type { LoopbackServer, RecordedResponse } from './loopback-server';
import { readRecordedResponse } from './loopback-server';
import { ModelError } from './model-error';
import { collectStream } from './wire-replay';

/** One way a server frames the same server-sent events (see {@link eventStreamFramings}). */
export interface EventStreamFraming {
  /** What the server does, as the test title. */
  title: string;
  /** The recorded body (SSE events separated by blank lines) framed this way. */
  frame(body: string): string;
  /** The `content-type` the server labels it with, when not the recorded one. */
  contentType?: string;
}

/** A body's events, each as its lines (blank lines and line-ending style dropped). */
function eventsOf(body: string): string[][] {
  const events: string[][] = [];
  let current: string[] = [];
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line !== '') current.push(line);
    else if (current.length > 0) {
      events.push(current);
      current = [];
    }
  }
  if (current.length > 0) events.push(current);
  return events;
}

/**
 * Whether an event (its lines) ends a stream by the wire format's own rule: OpenAI Chat
 * Completions' `data: [DONE]`, Anthropic's `message_stop`, the Responses API's
 * `response.completed` / `response.incomplete` / `response.failed`, a stream `error` event.
 */
export function isTerminalEvent(lines: readonly string[]): boolean {
  const data = lines
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .join('\n');
  if (data === '[DONE]') return true;
  return /^\{"type":"(?:message_stop|response\.completed|response\.incomplete|response\.failed|error)"/.test(
    data,
  );
}

/**
 * How real servers and proxies frame the same event stream, all of which the SSE specification
 * allows or real traffic shows: `\r\n`, lone `\r` and mixed line endings; a last event without its
 * closing blank line (or without any line ending), also labelled `text/plain`; comment lines (`: keep-alive`) and keep-alive events without data;
 * `data:` and
 * `event:` without the optional space; `id:` and `retry:` fields; a byte order mark at the start;
 * the stream sent again after its terminal event (`[DONE]`, `message_stop`, `response.completed`),
 * which must be ignored, never merged into the answer. An adapter must read every one as it reads
 * the stream as recorded.
 */
export const eventStreamFramings: readonly EventStreamFraming[] = [
  {
    title: 'CRLF line endings',
    frame: (body) =>
      eventsOf(body)
        .map((lines) => `${lines.join('\r\n')}\r\n\r\n`)
        .join(''),
  },
  {
    title: 'lone CR line endings',
    frame: (body) =>
      eventsOf(body)
        .map((lines) => `${lines.join('\r')}\r\r`)
        .join(''),
  },
  {
    title: 'line endings mixed by event (LF, CRLF, lone CR)',
    frame: (body) =>
      eventsOf(body)
        .map((lines, index) => {
          const end = ['\n', '\r\n', '\r'][index % 3] as string;
          return `${lines.join(end)}${end}${end}`;
        })
        .join(''),
  },
  {
    title: 'no blank line after the last event',
    frame: (body) =>
      `${eventsOf(body)
        .map((lines) => lines.join('\n'))
        .join('\n\n')}\n`,
  },
  {
    title: 'lone CR line endings, nothing after the last event',
    frame: (body) =>
      eventsOf(body)
        .map((lines) => lines.join('\r'))
        .join('\r\r'),
  },
  {
    title: 'CRLF line endings, nothing after the last event',
    frame: (body) =>
      eventsOf(body)
        .map((lines) => lines.join('\r\n'))
        .join('\r\n\r\n'),
  },
  {
    title: 'lone CR line endings, nothing after the last event, labelled text/plain (a proxy)',
    contentType: 'text/plain; charset=utf-8',
    frame: (body) =>
      eventsOf(body)
        .map((lines) => lines.join('\r'))
        .join('\r\r'),
  },
  {
    title: 'comment lines in events and keep-alive comments between them',
    frame: (body) =>
      `: stream opened\n\n${eventsOf(body)
        .map((lines) => `: keep-alive\n${lines.join('\n')}\n\n: ping\n\n`)
        .join('')}`,
  },
  {
    title: 'keep-alive events without data between events (`event: ping`, an empty `data: `)',
    frame: (body) =>
      eventsOf(body)
        .map((lines, index) => `${lines.join('\n')}\n\n${index % 2 === 0 ? 'event: ping\n\n' : 'data: \n\n'}`)
        .join(''),
  },
  {
    title: 'a byte order mark at the stream start, before a keep-alive event without data',
    frame: (body) => `\uFEFFevent: ping\n\n${body}`,
  },
  {
    title: 'the stream again after its terminal event (a proxy replaying it, a gateway appending)',
    frame: (body) => {
      const events = eventsOf(body);
      const last = events.at(-1);
      if (!last || !isTerminalEvent(last)) return body;
      const again = events
        .map((lines) =>
          lines.map((line) => line.replace(/"(text|content|delta)":"([^"\\]+)"/g, '"$1":"$2 AGAIN"')),
        )
        .map((lines) => `${lines.join('\n')}\n\n`)
        .join('');
      return `${body.replace(/\s*$/, '\n\n')}${again}`;
    },
  },
  {
    title: '`data:`/`event:` without the space, `id:` and `retry:` fields',
    frame: (body) =>
      `retry: 3000\n\n${eventsOf(body)
        .map(
          (lines, index) =>
            `id: ${index + 1}\n${lines.map((line) => line.replace(/^(data|event): /, '$1:')).join('\n')}\n\n`,
        )
        .join('')}`,
  },
];

/** What a replay came to, compared across framings. */
function summary(outcome: { parts: readonly { type: string }[]; error?: unknown }): unknown {
  if (outcome.error !== undefined) {
    if (!ModelError.isInstance(outcome.error)) return { notAModelError: String(outcome.error) };
    const { code, isRetryable, message } = outcome.error;
    return { error: { code, isRetryable, message } };
  }
  const last = outcome.parts.at(-1) as { type: string; result?: unknown } | undefined;
  if (last?.type !== 'finish') return { noFinishPart: outcome.parts.length };
  const result = last.result as GenerateResult;
  return {
    text: result.text,
    reasoning: result.reasoning,
    toolCalls: result.toolCalls.map((call) => `${call.name} ${call.rawArguments}`),
    finishReason: result.finishReason,
    rawFinishReason: result.rawFinishReason,
    usage: result.usage,
  };
}

/** Whether a recorded response is a successful event stream (not one JSON value labelled so). */
function isRecordedEventStream(response: RecordedResponse): boolean {
  return (
    response.status === 200 &&
    (response.headers['content-type'] ?? '').includes('text/event-stream') &&
    /^\s*[a-z:]/i.test(response.body)
  );
}

/** What an adapter supplies to {@link runEventStreamFramingSuite}. */
export interface EventStreamFramingTarget {
  /** Suite title. */
  name: string;
  /** The file's loopback server (`useLoopbackServer()` or `replayFixtures(...).server`). */
  server: LoopbackServer;
  /** A folder of `.http` fixtures: every successful event stream in it is replayed (not sub-folders). */
  directory: URL;
  /** Which of the folder's event-stream fixtures to replay, by name without `.http`. Default: all. */
  include?: (name: string) => boolean;
  /** The adapter under test against the loopback server (`serverUrl` is the bare origin). */
  createModel(options: { serverUrl: string }): ChatModel;
  /** The request every replay sends. Default: one user message and a few function tools. */
  request?: GenerateRequest;
  /** The framings. Default: {@link eventStreamFramings}. */
  framings?: readonly EventStreamFraming[];
}

const defaultRequest: GenerateRequest = {
  messages: [{ role: 'user', content: 'Write the plan.' }],
  tools: ['read_file', 'write_file', 'run_command', 'get_weather'].map((name) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  })),
};

/**
 * Replays every recorded event stream of a fixture folder through an adapter as recorded, then
 * framed each way of {@link eventStreamFramings}, and expects the same outcome each time — the
 * same text, reasoning, tool calls, finish reason and usage, or the same typed error: the framing
 * of a stream never changes what it means (a lost last event turned complete answers into cut
 * streams, and stream error events into retryable network errors). One test per fixture.
 *
 * @example
 * const server = useLoopbackServer();
 * runEventStreamFramingSuite({ name: 'anthropic', server, directory: new URL('./__fixtures__/', import.meta.url),
 *   createModel: ({ serverUrl }) => createAnthropic({ apiKey: 'k', baseURL: serverUrl })('claude-sonnet-4-5') });
 */
export function runEventStreamFramingSuite(target: EventStreamFramingTarget): void {
  const folder = target.directory.href.endsWith('/')
    ? target.directory
    : new URL(`${target.directory.href}/`);
  const fixtures = readdirSync(folder)
    .filter((file) => file.endsWith('.http'))
    .map((file) => file.slice(0, -'.http'.length))
    .filter((name) => target.include?.(name) ?? true)
    .map((name) => [name, readRecordedResponse(new URL(`${name}.http`, folder))] as const)
    .filter(([, response]) => isRecordedEventStream(response));
  const request = target.request ?? defaultRequest;
  const framings = target.framings ?? eventStreamFramings;
  describe(`${target.name}: event-stream framings`, () => {
    it.each(fixtures.map(([name, response]) => [name, response] as const))(
      '%s means the same in every framing',
      async (_, response) => {
        const replay = async (body: string, contentType?: string) => {
          const headers = contentType
            ? { ...response.headers, 'content-type': contentType }
            : response.headers;
          target.server.script([
            { type: 'response', response: { ...response, headers, body }, chunking: 'events' },
          ]);
          return summary(
            await collectStream(target.createModel({ serverUrl: target.server.url }).doStream(request)),
          );
        };
        const recorded = await replay(response.body);
        for (const framing of framings)
          expect(await replay(framing.frame(response.body), framing.contentType), framing.title).toEqual(
            recorded,
          );
      },
    );
  });
}
