import { isEventStreamResponse } from '@closedloop/model/provider';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The event name for an event's JSON data: its `type` (`message_start`, `error`, …), or `error`
 * for a bare `{"error": {…}}` (a gateway's own error in OpenAI's shape); `undefined` otherwise.
 */
function dataType(data: string): string | undefined {
  try {
    const parsed = JSON.parse(data) as { type?: unknown; error?: unknown } | null;
    const type = parsed?.type;
    if (typeof type === 'string') return /^[a-z_]+$/.test(type) ? type : undefined;
    return typeof parsed?.error === 'object' && parsed.error !== null ? 'error' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Adds the `event:` line to every event that has only `data:` lines, from the data's `type`
 * (`data: {"type":"message_start",…}` → `event: message_start`). Anthropic always names its
 * events and the SDK drops unnamed ones; some Anthropic-compatible gateways leave the names out —
 * of every event, or only of an error they inject into a named stream (an overload mid-answer
 * that would otherwise read as a cut connection). Named events pass through unchanged; `\n`,
 * `\r\n` and lone `\r` line endings are all read as line ends.
 */
function nameEvents(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  let named = false;
  // A body that starts with `{` is one JSON value under an event-stream content type (a proxy's
  // error body): no SSE line starts with `{`. It is held whole and passed on as one event's data.
  let json: boolean | undefined;
  /** The `event:` line to put before `line`, or `''`. */
  const nameFor = (line: string, end: string): string => {
    if (line === '') named = false;
    else if (line.startsWith('event:')) named = true;
    else if (!named && line.startsWith('data:')) {
      named = true;
      const type = dataType(line.slice(5).trim());
      if (type) return `event: ${type}${end}`;
    }
    return '';
  };
  const rewrite = (final: boolean): string => {
    let out = '';
    let start = 0;
    for (const match of pending.matchAll(/\r\n|\r|\n/g)) {
      // A `\r` that ends the chunk may be the first half of a `\r\n`: wait for the next chunk.
      if (!final && match[0] === '\r' && match.index + 1 === pending.length) break;
      const line = pending.slice(start, match.index);
      out += `${nameFor(line, match[0])}${line}${match[0]}`;
      start = match.index + match[0].length;
    }
    pending = pending.slice(start);
    if (final && pending !== '') {
      out += `${nameFor(pending, '\n')}${pending}`;
      pending = '';
    }
    return out;
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        if (json === undefined) {
          const start = /[^\s\uFEFF]/.exec(pending);
          if (!start) return;
          json = start[0] === '{';
        }
        if (json) return;
        const out = rewrite(false);
        if (out !== '') controller.enqueue(encoder.encode(out));
      },
      flush(controller) {
        pending += decoder.decode();
        if (json) {
          const data = pending
            .trim()
            .split(/\r\n|\r|\n/)
            .map((line) => `data: ${line}\n`)
            .join('');
          // Named from the whole value (a pretty-printed body's first line is only `{`).
          const type = dataType(pending.trim());
          pending = `${type ? `event: ${type}\n` : ''}${data}\n`;
        }
        const out = rewrite(true);
        if (out !== '') controller.enqueue(encoder.encode(out));
      },
    }),
  );
}

/**
 * Wraps `fetch` so an event stream's events that carry only `data:` lines (some
 * Anthropic-compatible gateways, for every event or for an error they inject) reach the SDK with
 * Anthropic's `event:` names, instead of being dropped event by event by the SDK (an empty answer,
 * or an overload read as a cut connection: "the stream ended before message_stop"); an event
 * stream whose body is one JSON error object reaches it as that error's event. Named events, and
 * everything that is not an event stream, pass through unchanged.
 */
export function withAnthropicEventNames(fetchImpl: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body || !isEventStreamResponse(response, { input, init })) return response;
    return new Response(nameEvents(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
