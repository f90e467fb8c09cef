import { isEventStreamResponse } from '@closedloop/model/provider';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

// SSE line ends are `\r\n`, `\n` or a lone `\r`: a blank line is two of them in a row.
const blankLine = /(?:\r\n|\r|\n)(?:\r\n|\r|\n)/;
const dataLine = /(?:^|[\r\n])data:/;
const eventLine = /(?:^|[\r\n])event:/;
// A `data:` line with a value (not only spaces).
const filledDataLine = /(?:^|[\r\n])data:[ \t]*[^\s]/;

/**
 * Whether an event block reaches the SDK: one with data, or one with neither an `event:` nor a
 * `data:` line (comments, `id:`, `retry:`, which the SDK skips). An `event:` without data, or
 * `data:` lines that are all empty (a keep-alive `data: `), would be parsed as JSON and fail.
 */
function passes(block: string): boolean {
  if (filledDataLine.test(block)) return true;
  return !eventLine.test(block) && !dataLine.test(block);
}

const doneLine = /(?:^|[\r\n])data: ?\[DONE\]/;

/** Streams read through {@link withoutEmptyEvents}, and whether their `data: [DONE]` arrived. */
const ended = new WeakMap<Response, { done: boolean }>();

/**
 * Whether the event stream of `response` has delivered its `data: [DONE]` terminator so far:
 * `true`/`false` for a stream read through {@link withoutEmptyEvents}, `undefined` for any other
 * response (not watched). Tells a server that ended its answer from a connection that closed.
 */
export function streamEndedWithDone(response: Response): boolean | undefined {
  return ended.get(response)?.done;
}

/**
 * Drops the events of an event stream that have an `event:` name but no `data:` line — what the
 * SSE specification says a client does with an empty data buffer — or only empty `data:` lines (a
 * keep-alive `data: `). The SDK instead parses their
 * empty data as JSON and fails the whole stream, so a gateway's data-less keep-alive
 * (`event: ping`) or an event whose name and data are split by a blank line killed the answer.
 * Notes in `state` when the `data: [DONE]` terminator passes.
 */
function dropEmptyEvents(
  body: ReadableStream<Uint8Array>,
  state: { done: boolean },
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  // A body that starts with `{` or `[` is one JSON value under an event-stream content type (a
  // proxy's error, a whole completion), not events: no SSE line starts with `{`, and the SDK
  // would read nothing from it. It is held whole and passed on as the data of one event.
  let json: boolean | undefined;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        if (json === undefined) {
          const start = /[^\s\uFEFF]/.exec(pending);
          if (!start) return;
          json = start[0] === '{' || start[0] === '[';
        }
        if (json) return;
        let out = '';
        for (let match = blankLine.exec(pending); match; match = blankLine.exec(pending)) {
          const end = match.index + match[0].length;
          const block = pending.slice(0, end);
          pending = pending.slice(end);
          if (passes(block)) {
            out += block;
            if (!state.done && block.includes('[DONE]') && doneLine.test(block)) state.done = true;
          }
        }
        if (out !== '') controller.enqueue(encoder.encode(out));
      },
      flush(controller) {
        pending += decoder.decode();
        if (json) {
          const lines = pending.trim().split(/\r\n|\r|\n/);
          controller.enqueue(encoder.encode(`${lines.map((line) => `data: ${line}`).join('\n')}\n\n`));
          return;
        }
        if (pending !== '' && passes(pending)) {
          if (doneLine.test(pending)) state.done = true;
          controller.enqueue(encoder.encode(pending));
        }
      },
    }),
  );
}

/**
 * Wraps `fetch` so events without data (a gateway's `event: ping` keep-alive, an `event:` line
 * separated from its `data:` by a blank line) are dropped from event streams before the SDK
 * reads them, as the SSE specification says, instead of failing the stream with "Unexpected end
 * of JSON input"; and an event stream whose body is one JSON value (a proxy's error or a whole
 * completion sent as `text/event-stream`) reaches the SDK as that value's one event, instead of
 * as no event at all (a cut stream). Every other event, and every response that is not an event
 * stream, passes through unchanged. {@link streamEndedWithDone} tells whether a watched stream's
 * `[DONE]` came.
 */
export function withoutEmptyEvents(fetchImpl: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body || !isEventStreamResponse(response, { input, init })) return response;
    const state = { done: false };
    const filtered = new Response(dropEmptyEvents(response.body, state), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    ended.set(filtered, state);
    return filtered;
  };
}
