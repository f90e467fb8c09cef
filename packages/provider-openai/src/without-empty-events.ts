type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const blankLine = /\r?\n\r?\n/;
const dataLine = /(?:^|\n)data:/;
const eventLine = /(?:^|\n)event:/;

/**
 * Drops the events of an event stream that have an `event:` name but no `data:` line — what the
 * SSE specification says a client does with an empty data buffer. The SDK instead parses their
 * empty data as JSON and fails the whole stream, so a gateway's data-less keep-alive
 * (`event: ping`) or an event whose name and data are split by a blank line killed the answer.
 */
function dropEmptyEvents(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        let out = '';
        for (let match = blankLine.exec(pending); match; match = blankLine.exec(pending)) {
          const end = match.index + match[0].length;
          const block = pending.slice(0, end);
          pending = pending.slice(end);
          if (dataLine.test(block) || !eventLine.test(block)) out += block;
        }
        if (out !== '') controller.enqueue(encoder.encode(out));
      },
      flush(controller) {
        pending += decoder.decode();
        if (pending !== '' && (dataLine.test(pending) || !eventLine.test(pending)))
          controller.enqueue(encoder.encode(pending));
      },
    }),
  );
}

/**
 * Wraps `fetch` so events without data (a gateway's `event: ping` keep-alive, an `event:` line
 * separated from its `data:` by a blank line) are dropped from event streams before the SDK
 * reads them, as the SSE specification says, instead of failing the stream with "Unexpected end
 * of JSON input". Every other event, and every response that is not an event stream, passes
 * through unchanged.
 */
export function withoutEmptyEvents(fetchImpl: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream'))
      return response;
    return new Response(dropEmptyEvents(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
