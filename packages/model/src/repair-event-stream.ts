type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const CR = 13;
const LF = 10;
const newline = new Uint8Array([LF]);
const blankLine = new Uint8Array([LF, LF]);

/**
 * `chunk` with every SSE line ending (`\r\n`, lone `\r`, `\n`) written as `\n`. `state.afterCR`
 * says the previous chunk ended with a `\r` (already written as `\n`), so a `\n` that starts this
 * chunk is the second half of that `\r\n`.
 */
function normalizeLineEnds(chunk: Uint8Array, state: { afterCR: boolean }): Uint8Array {
  if (!state.afterCR && chunk.indexOf(CR) === -1) return chunk;
  const out = new Uint8Array(chunk.length);
  let length = 0;
  for (let index = 0; index < chunk.length; index++) {
    const byte = chunk[index] as number;
    if (byte === LF && state.afterCR) {
      state.afterCR = false;
      continue;
    }
    state.afterCR = byte === CR;
    out[length++] = byte === CR ? LF : byte;
  }
  return out.subarray(0, length);
}

const dataField = [100, 97, 116, 97, 58]; // `data:`
const SPACE = 32;
const TAB = 9;

/**
 * At a line start: the index after an empty `data:` line (`data:`, spaces, `\n`), `-1` when the
 * line is something else, `-2` when the bytes end before that is known.
 */
function emptyDataLineEnd(bytes: Uint8Array, start: number): number {
  let index = start;
  for (const byte of dataField) {
    if (index === bytes.length) return -2;
    if (bytes[index++] !== byte) return -1;
  }
  while (index < bytes.length && (bytes[index] === SPACE || bytes[index] === TAB)) index++;
  if (index === bytes.length) return -2;
  return bytes[index] === LF ? index + 1 : -1;
}

/** Whether `bytes` may hold an empty `data:` line: a `:` followed by spaces and `\n`, or a cut line. */
function mayHoldEmptyData(bytes: Uint8Array): boolean {
  for (let colon = bytes.indexOf(58); colon !== -1; colon = bytes.indexOf(58, colon + 1)) {
    let index = colon + 1;
    while (index < bytes.length && (bytes[index] === SPACE || bytes[index] === TAB)) index++;
    if (index === bytes.length || bytes[index] === LF) return true;
  }
  const lastLine = bytes.lastIndexOf(LF) + 1;
  return lastLine < bytes.length && emptyDataLineEnd(bytes, lastLine) === -2;
}

/**
 * `chunk` (line ends already `\n`) without its empty `data:` lines: a keep-alive `data: ` is an
 * event with empty data, which JSON streams cannot mean — the AI SDK's parser failed the answer on
 * it. A line the chunk ends in the middle of, that may still be one, waits in `state.carry`.
 */
function dropEmptyDataLines(
  chunk: Uint8Array,
  state: { carry: Uint8Array; atLineStart: boolean },
): Uint8Array {
  let bytes = chunk;
  if (state.carry.length > 0) {
    bytes = new Uint8Array(state.carry.length + chunk.length);
    bytes.set(state.carry);
    bytes.set(chunk, state.carry.length);
    state.carry = new Uint8Array(0);
  } else if (!mayHoldEmptyData(chunk)) {
    state.atLineStart = chunk[chunk.length - 1] === LF;
    return chunk;
  }
  const out = new Uint8Array(bytes.length);
  let length = 0;
  let index = 0;
  let atLineStart = state.atLineStart;
  while (index < bytes.length) {
    if (atLineStart) {
      const end = emptyDataLineEnd(bytes, index);
      if (end >= 0) {
        index = end;
        continue;
      }
      if (end === -2) {
        state.carry = bytes.slice(index);
        break;
      }
    }
    const lineEnd = bytes.indexOf(LF, index);
    const stop = lineEnd === -1 ? bytes.length : lineEnd + 1;
    out.set(bytes.subarray(index, stop), length);
    length += stop - index;
    index = stop;
    atLineStart = lineEnd !== -1;
  }
  state.atLineStart = state.carry.length > 0 || atLineStart;
  return out.subarray(0, length);
}

const eventField = [101, 118, 101, 110, 116, 58]; // `event:`
const done = [91, 68, 79, 78, 69, 93]; // `[DONE]`
const errorField = [101, 114, 114, 111, 114, 58]; // `error:`
const errorObject = [123, 34, 101, 114, 114, 111, 114, 34]; // `{"error"`
const terminals = ['message_stop', 'response.completed', 'response.incomplete', 'response.failed'];
const encoder = new TextEncoder();
const terminalTypes = terminals.map((type) => [...encoder.encode(`{"type":"${type}"`)]);
const terminalNames = terminals.map((name) => [...encoder.encode(name)]);

/** Whether `bytes` at `start` (before `end`) holds `field`. */
function startsWith(bytes: Uint8Array, start: number, end: number, field: readonly number[]): boolean {
  if (end - start < field.length) return false;
  for (let index = 0; index < field.length; index++) if (bytes[start + index] !== field[index]) return false;
  return true;
}

/** The index after a field name's optional space. */
function valueStart(bytes: Uint8Array, start: number, end: number): number {
  return start < end && bytes[start] === SPACE ? start + 1 : start;
}

/** What {@link readEvent} found in one event. */
enum EventKind {
  /** Data, or neither a name nor data (comments, `id:`, `retry:`): passed on. */
  Pass = 0,
  /** A name without data: the SSE specification dispatches nothing; the SDKs failed on it. */
  Empty = 1,
  /** The stream's terminal event: `data: [DONE]`, `message_stop`, `response.completed`, … */
  Terminal = 2,
  /**
   * An `error:` line and no data: llama.cpp's server (builds through 2025) sent a stream's error
   * in this field, which no SSE parser reads — the error was lost, and the answer so far, ended
   * by `[DONE]`, read as complete. Or a line `{"error"…` without `data:` (Lemonade forwards its
   * backend's JSON error unframed): a context overflow read as a retryable cut stream. Passed on
   * as the data `{"error": …}`.
   */
  ErrorField = 3,
}

/** What the event in `bytes[start, end)` is (see {@link EventKind}). */
function readEvent(bytes: Uint8Array, start: number, end: number): EventKind {
  let hasData = false;
  let hasName = false;
  let hasError = false;
  for (let line = start; line < end; ) {
    let lineEnd = bytes.indexOf(LF, line);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    if (startsWith(bytes, line, lineEnd, dataField)) {
      hasData = true;
      const value = valueStart(bytes, line + dataField.length, lineEnd);
      if (lineEnd - value === done.length && startsWith(bytes, value, lineEnd, done))
        return EventKind.Terminal;
      if (bytes[value] === 123 && terminalTypes.some((type) => startsWith(bytes, value, lineEnd, type)))
        return EventKind.Terminal;
    } else if (startsWith(bytes, line, lineEnd, eventField)) {
      hasName = true;
      const value = valueStart(bytes, line + eventField.length, lineEnd);
      if (
        terminalNames.some(
          (name) => lineEnd - value === name.length && startsWith(bytes, value, lineEnd, name),
        )
      )
        return EventKind.Terminal;
    } else if (startsWith(bytes, line, lineEnd, errorField) || startsWith(bytes, line, lineEnd, errorObject))
      hasError = true;
    line = lineEnd + 1;
  }
  if (hasData) return EventKind.Pass;
  if (hasError) return EventKind.ErrorField;
  return hasName ? EventKind.Empty : EventKind.Pass;
}

/** The event `data: {"error": …}` for an event whose error is in an `error:` line or unframed (see {@link EventKind}). */
function errorFieldData(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const text = new TextDecoder().decode(bytes.subarray(start, end));
  const unframed = /^\{"error".*$/m.exec(text)?.[0];
  if (unframed !== undefined) {
    try {
      const parsed: unknown = JSON.parse(unframed);
      if (parsed !== null && typeof parsed === 'object')
        return new TextEncoder().encode(`data: ${unframed}\n\n`);
    } catch {
      // Cut JSON: its text is the message.
    }
  }
  const value = /^error:[ ]?(.*)$/m.exec(text)?.[1]?.trim() ?? unframed ?? '';
  let error: unknown = { message: value };
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed !== null && typeof parsed === 'object') error = parsed;
  } catch {
    // Not JSON: the text is the message.
  }
  return new TextEncoder().encode(`data: ${JSON.stringify({ error })}\n\n`);
}

/**
 * `chunk` (line ends `\n`, empty `data:` lines dropped) as whole events: the text after its last
 * blank line waits in `state.carry` for the rest of its event (the SDKs dispatch nothing before
 * that blank line anyway); an event with a name and no data is dropped, one with only an `error:`
 * line becomes the data `{"error": …}`; after the stream's
 * terminal event (`data: [DONE]`, `message_stop`, `response.completed`/`incomplete`/`failed`)
 * nothing is passed on and `state.ended` is set — a proxy that replays the stream or appends to
 * it after its end added to the answer. A read of whole events that all pass is passed as is.
 */
function wholeEvents(chunk: Uint8Array, state: { carry: Uint8Array; ended: boolean }): Uint8Array {
  let bytes = chunk;
  if (state.carry.length > 0) {
    bytes = new Uint8Array(state.carry.length + chunk.length);
    bytes.set(state.carry);
    bytes.set(chunk, state.carry.length);
  }
  // Until an event is dropped, what passes is `bytes` up to `start` (no copy).
  let out: Uint8Array | undefined;
  let length = 0;
  let start = 0;
  let search = 0;
  while (search < bytes.length) {
    const lf = bytes.indexOf(LF, search);
    if (lf === -1) break;
    // A blank line ends the event (a `\n` that starts one is an empty event of its own).
    if (lf !== start && bytes[lf + 1] !== LF) {
      search = lf + 1;
      continue;
    }
    const end = lf === start ? lf + 1 : lf + 2;
    const kind = readEvent(bytes, start, end);
    if (kind === EventKind.ErrorField) {
      const data = errorFieldData(bytes, start, end);
      const grown = new Uint8Array(
        length + (out === undefined ? start : 0) + data.length + bytes.length - end,
      );
      if (out === undefined) grown.set(bytes.subarray(0, start));
      else grown.set(out.subarray(0, length));
      if (out === undefined) length = start;
      grown.set(data, length);
      length += data.length;
      out = grown;
    } else if (kind === EventKind.Empty && out === undefined) {
      out = new Uint8Array(bytes.length);
      out.set(bytes.subarray(0, start));
      length = start;
    } else if (kind !== EventKind.Empty && out !== undefined) {
      out.set(bytes.subarray(start, end), length);
      length += end - start;
    }
    start = end;
    search = end;
    if (kind === EventKind.Terminal) {
      state.ended = true;
      break;
    }
  }
  // After the terminal event, `carry` holds what came after it (only to tell that something did).
  state.carry = start === bytes.length ? new Uint8Array(0) : bytes.slice(start);
  if (out !== undefined) return out.subarray(0, length);
  return start === bytes.length ? bytes : bytes.subarray(0, start);
}

/**
 * The bytes that close the stream's last event, `last` (the text after its last blank line), when
 * the server ended the stream without the blank line that dispatches it and its data is whole —
 * JSON, or `[DONE]`; else none. The SSE specification drops such an event, and so do the SDKs'
 * parsers: an answer's finish reason and usage, a `response.completed`, a stream error event were
 * lost and a complete answer failed as a cut stream. An event whose data is cut stays
 * unterminated (the stream reads as cut).
 */
function closingBytes(last: string): Uint8Array | undefined {
  const data = last
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
  if (data.trim() === '') return undefined;
  if (data.trim() !== '[DONE]') {
    try {
      JSON.parse(data);
    } catch {
      return undefined;
    }
  }
  return last.endsWith('\n') ? newline : blankLine;
}

/**
 * A server-sent event stream as every SSE parser reads it the same way: each line ending —
 * `\r\n`, a lone `\r`, `\n`, mixed in one stream, split across network reads — written as `\n`,
 * and a last event the server sent without its closing blank line closed when its data is whole
 * (JSON or `[DONE]`); a keep-alive's empty `data:` line dropped (JSON streams cannot mean empty
 * data, and the AI SDK failed the answer on it). The AI SDK's parser (eventsource-parser) holds a
 * `\r` that ends a read until the next one, so a stream with lone-`\r` line endings lost its last
 * event; and every SDK drops an unterminated last event (the finish reason, the usage, the
 * terminal event, an error event). Events are passed on whole; one with a name and no data (a
 * gateway's `event: ping` keep-alive) is dropped, as the specification does — the SDKs parsed its
 * empty data as JSON and failed the answer; a byte order mark at the start is dropped; and after
 * the stream's terminal event (`data: [DONE]`, `message_stop`, `response.completed`,
 * `response.incomplete`, `response.failed`) nothing more is read — what a proxy replayed or
 * appended there was merged into the answer. Byte scans only: no text decoding per read.
 *
 * @example
 * ```ts
 * const repaired = new Response(repairEventStream(response.body), response);
 * ```
 */
export function repairEventStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const lineEnds = { afterCR: false };
  const dataLines = { carry: new Uint8Array(0), atLineStart: true };
  const events = { carry: new Uint8Array(0), ended: false };
  let atStart = true;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        // Bytes after the terminal event: not read, and the connection is released (a proxy
        // that holds it open after the answer). A stream that simply ends keeps its connection.
        if (events.ended) return controller.terminate();
        let bytes = chunk;
        // A byte order mark opens the stream: the SSE decoder strips one there.
        if (atStart && bytes.length > 0) {
          atStart = false;
          if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
        }
        const whole = wholeEvents(dropEmptyDataLines(normalizeLineEnds(bytes, lineEnds), dataLines), events);
        if (whole.length > 0) controller.enqueue(whole);
        if (events.ended && events.carry.length > 0) controller.terminate();
      },
      flush(controller) {
        // A cut line that was still possibly an empty `data:` line is not one: pass it on.
        const whole = wholeEvents(dataLines.carry, events);
        if (whole.length > 0) controller.enqueue(whole);
        if (events.ended) return;
        // The last event, sent without its closing blank line.
        const last = events.carry;
        const kind = last.length === 0 ? EventKind.Empty : readEvent(last, 0, last.length);
        if (kind === EventKind.Empty) return;
        if (kind === EventKind.ErrorField) return controller.enqueue(errorFieldData(last, 0, last.length));
        controller.enqueue(last);
        const closing = closingBytes(new TextDecoder().decode(last));
        if (closing) controller.enqueue(closing);
      },
    }),
  );
}

/** Whether a request asks for a stream: `"stream": true` in its JSON body, or `alt=sse` (Gemini). */
function asksForStream(input: string | URL | Request, init: RequestInit | undefined): boolean {
  const body = init?.body;
  if (typeof body === 'string' && /"stream"\s*:\s*true/.test(body)) return true;
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  return /[?&]alt=sse(?:&|$)/.test(url);
}

/**
 * Whether `response` is a server-sent event stream: labelled `text/event-stream`, or a 200 to a
 * streaming request (`"stream": true`, `alt=sse`) labelled as neither JSON nor HTML — proxies and
 * small servers send streams as `text/plain` or `application/octet-stream`, and the SDKs read
 * them as events all the same.
 */
export function isEventStreamResponse(
  response: Response,
  request: { input: string | URL | Request; init?: RequestInit | undefined },
): boolean {
  if (response.body === null) return false;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream')) return true;
  if (response.status !== 200 || /json|html|xml/i.test(type)) return false;
  return asksForStream(request.input, request.init);
}

/**
 * Wraps `fetch` so the body of every event stream ({@link isEventStreamResponse}) goes through
 * {@link repairEventStream}: any SSE line ending is read as one, and a last event sent without its
 * closing blank line is kept when its data is whole. Other responses pass through unchanged. Every
 * closedloop adapter reads its provider's streams through it.
 *
 * @example
 * ```ts
 * const client = new Anthropic({ fetch: withRepairedEventStreams(fetch) });
 * ```
 */
export function withRepairedEventStreams(fetchImpl: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!isEventStreamResponse(response, { input, init }) || response.body === null) return response;
    return new Response(repairEventStream(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
