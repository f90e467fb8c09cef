import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenToQueue } from './queue-events';
import { closeRedis, connectRedis } from './redis-connection';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Adds one event to the queue's event stream at once and returns how many `events` saw. */
async function seen(events: QueueEvents, prefix: string, writer: Redis): Promise<number> {
  let received = 0;
  events.on('progress', () => {
    received++;
  });
  try {
    await writer.xadd(`${prefix}:q:events`, '*', 'event', 'progress', 'jobId', 'job-1', 'data', '1');
    await sleep(200);
    return received;
  } finally {
    await closeRedis(writer);
  }
}

/** A connection that is up (so adding an event takes one round trip). */
async function connectedWriter(): Promise<Redis> {
  const writer = connectRedis(redis.url);
  await writer.ping();
  return writer;
}

describe('listenToQueue', () => {
  it('sees an event added as soon as it is ready, before its first read is under way', async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const client = connectRedis(redis.url);
    const writer = await connectedWriter();
    const { events, ready } = listenToQueue('q', client, prefix);
    try {
      await ready;
      expect(await seen(events, prefix, writer)).toBe(1);
    } finally {
      await events.close();
      await closeRedis(client);
    }
  });

  it("(why: BullMQ's own start, `$`, is where the first read finds the stream, not where the reader was made ready)", async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const client = connectRedis(redis.url);
    const writer = await connectedWriter();
    const events = new QueueEvents('q', { connection: client, prefix });
    try {
      await events.waitUntilReady();
      expect(await seen(events, prefix, writer)).toBe(0);
    } finally {
      await events.close();
      await closeRedis(client);
    }
  });
});
