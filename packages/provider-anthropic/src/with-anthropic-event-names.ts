type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The `type` of an event's JSON data, or `undefined`. */
function dataType(data: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    const type = (parsed as { type?: unknown } | null)?.type;
    return typeof type === 'string' && /^[a-z_]+$/.test(type) ? type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Adds the `event:` line to every event of a stream that has only `data:` lines, from the data's
 * `type` (`data: {"type":"message_start",…}` → `event: message_start`). Anthropic always names
 * its events and the SDK drops unnamed ones; some Anthropic-compatible gateways leave the names
 * out. Decided on the first event: a stream that names it passes through untouched.
 */
function nameEvents(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let mode: 'undecided' | 'pass' | 'name' = 'undecided';
  let pending = '';
  let named = false;
  const rewrite = (lines: string[]): string => {
    let out = '';
    for (const line of lines) {
      const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
      if (bare === '') named = false;
      else if (bare.startsWith('event:')) named = true;
      else if (!named && bare.startsWith('data:')) {
        const type = dataType(bare.slice(5).trim());
        if (type) out += `event: ${type}\n`;
        named = true;
      }
      out += `${line}\n`;
    }
    return out;
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (mode === 'pass') {
          controller.enqueue(chunk);
          return;
        }
        pending += decoder.decode(chunk, { stream: true });
        if (mode === 'undecided') {
          const first = pending.match(/^(?:event|data):/m);
          if (!first) return;
          mode = first[0] === 'event:' ? 'pass' : 'name';
          if (mode === 'pass') {
            controller.enqueue(encoder.encode(pending));
            pending = '';
            return;
          }
        }
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        controller.enqueue(encoder.encode(rewrite(lines)));
      },
      flush(controller) {
        pending += decoder.decode();
        if (pending === '') return;
        controller.enqueue(encoder.encode(mode === 'name' ? rewrite([pending]).slice(0, -1) : pending));
      },
    }),
  );
}

/**
 * Wraps `fetch` so an event stream whose events carry only `data:` lines (some Anthropic-compatible
 * gateways) reaches the SDK with Anthropic's `event:` names, instead of being dropped event by
 * event by the SDK (an empty answer, then "the stream ended before message_stop"). Streams that
 * name their events, and everything that is not an event stream, pass through untouched.
 */
export function withAnthropicEventNames(fetchImpl: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream'))
      return response;
    return new Response(nameEvents(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
