import { QueueEvents, type QueueEventsOptions } from 'bullmq';
import type { Redis } from 'ioredis';

/** A queue's event reader and the promise that it reads. */
export interface QueueListener {
  events: QueueEvents;
  /** Settles once the reader is connected and reads every event added after it was created. */
  ready: Promise<void>;
}

/**
 * Reads the events of BullMQ queue `name` (on its own blocking connection) from the newest event
 * on record when it starts. BullMQ's default start, `$` ("from now"), is kept after every blocking
 * read that times out, so on a quiet queue an event added between two reads is never seen — a
 * finished run or a long step whose completion goes unnoticed, a wait that never ends. From an
 * explicit id, every read continues after the last event it saw.
 */
export function listenToQueue(
  name: string,
  connection: Redis,
  prefix: string,
  /** How long one blocking read waits (BullMQ's default: 10 s). */
  blockingTimeoutMs?: number,
): QueueListener {
  const events = new QueueEvents(name, {
    connection,
    prefix,
    autorun: false,
    ...(blockingTimeoutMs !== undefined ? { blockingTimeout: blockingTimeoutMs } : {}),
  });
  events.setMaxListeners(0);
  const ready = (async () => {
    const [newest] = (await connection.xrevrange(events.keys.events!, '+', '-', 'COUNT', 1)) as [
      string,
      string[],
    ][];
    (events.opts as QueueEventsOptions).lastEventId = newest?.[0] ?? '0-0';
    events.run().catch((error: Error) => events.emit('error', error));
    await events.waitUntilReady();
  })();
  return { events, ready };
}
