/** One parsed SSE message. */
export interface ParsedSseMessage {
  id?: string;
  event: string;
  data: string;
}

/** Parses a `text/event-stream` body (the subset the server writes: id, event, data, retry, comments). */
export function parseSse(text: string): { messages: ParsedSseMessage[]; retry?: number } {
  const messages: ParsedSseMessage[] = [];
  let retry: number | undefined;
  // A block counts once its terminating blank line arrived.
  const complete = text.slice(0, text.lastIndexOf('\n\n') + 1);
  for (const block of complete.split('\n\n')) {
    if (block.trim() === '') continue;
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry') retry = Number(value);
    }
    if (data.length) messages.push({ ...(id === undefined ? {} : { id }), event, data: data.join('\n') });
  }
  return { messages, ...(retry === undefined ? {} : { retry }) };
}

/**
 * Reads an SSE response over real HTTP until the server ends it (or `stopAfter` messages arrived,
 * or `until` holds: then it aborts the request), and returns the raw text, the parsed messages
 * and the headers.
 */
export async function readSse(
  url: string,
  options: {
    headers?: Record<string, string>;
    stopAfter?: number;
    /** Stops (aborting the request) once this holds for the messages so far. */
    until?: (messages: ParsedSseMessage[]) => boolean;
    timeoutMs?: number;
  } = {},
): Promise<{ status: number; contentType: string | null; raw: string; messages: ParsedSseMessage[] }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('readSse timed out')), options.timeoutMs ?? 8000);
  try {
    const response = await fetch(url, { headers: options.headers ?? {}, signal: controller.signal });
    const contentType = response.headers.get('content-type');
    if (!response.body) return { status: response.status, contentType, raw: '', messages: [] };
    const decoder = new TextDecoder();
    let raw = '';
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      const messages = parseSse(raw).messages;
      if (
        (options.stopAfter !== undefined && messages.length >= options.stopAfter) ||
        options.until?.(messages) === true
      ) {
        controller.abort();
        break;
      }
    }
    return { status: response.status, contentType, raw, messages: parseSse(raw).messages };
  } finally {
    clearTimeout(timer);
  }
}
