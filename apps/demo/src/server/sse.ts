/** One Server-Sent Events message. */
export interface SseMessage {
  /** `id:` field: the client sends the last one back as `Last-Event-ID` when it reconnects. */
  id?: string | number;
  /** `event:` field (the browser dispatches it under this name instead of `message`). */
  event?: string;
  /** Serialized as one `data:` line of JSON. */
  data: unknown;
}

/**
 * Frames a message for a `text/event-stream` body: optional `id:` and `event:` lines, one
 * `data:` line of JSON (JSON.stringify never emits a raw newline), and the blank line that ends it.
 */
export function formatSseMessage(message: SseMessage): string {
  let text = '';
  if (message.id !== undefined) text += `id: ${String(message.id).replace(/[\r\n]/g, '')}\n`;
  if (message.event !== undefined) text += `event: ${message.event.replace(/[\r\n]/g, '')}\n`;
  text += `data: ${JSON.stringify(message.data) ?? 'null'}\n\n`;
  return text;
}

/**
 * Where an event stream should start, as an event index: one after `Last-Event-ID` (the header
 * wins: the browser sends it on every automatic reconnect), else the `from` query parameter,
 * else 0. Anything that is not a non-negative integer counts as absent.
 */
export function resolveStreamStart(options: {
  lastEventId?: string | undefined;
  from?: string | null;
}): number {
  const lastId = parseIndex(options.lastEventId);
  if (lastId !== undefined) return lastId + 1;
  return parseIndex(options.from ?? undefined) ?? 0;
}

function parseIndex(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
