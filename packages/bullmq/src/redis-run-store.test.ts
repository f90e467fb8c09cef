import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@closedloop/cortex';
import { runStoreConformance } from '@closedloop/cortex/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedis, connectRedis } from './redis-connection';
import { createRedisRunStore, type RedisRunStore } from './redis-run-store';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
const stores: RedisRunStore[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await redis.stop();
});

function open(prefix = `t-${randomUUID().slice(0, 8)}`): RedisRunStore {
  const store = createRedisRunStore({ connection: redis.url, prefix });
  stores.push(store);
  return store;
}

const started = (runId: string, index: number): RunEvent => ({
  type: 'step-started',
  runId,
  at: index,
  stepId: `s${index}`,
  attempt: 0,
});

describe('createRedisRunStore', () => {
  for (const check of runStoreConformance(() => open(), {
    reopen: (store) => open((store as RedisRunStore).prefix),
  })) {
    it(`conformance: ${check.name}`, check.run);
  }

  it('lists runs most recently written first, with their update time', async () => {
    const store = open();
    await store.append('run-a', [{ seq: 0, event: started('run-a', 0) }]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.append('run-b', [{ seq: 0, event: started('run-b', 0) }]);
    const runs = await store.runs();
    expect(runs.map((run) => run.runId)).toEqual(['run-b', 'run-a']);
    expect(runs[0]!.updatedAt).toBeGreaterThanOrEqual(runs[1]!.updatedAt);
  });

  it('a journal whose last events were deleted after they were written is journal-rolled-back; one with a hole is journal-corrupt', async () => {
    const store = open();
    for (let index = 0; index < 5; index++)
      await store.append('run-a', [{ seq: index, event: started('run-a', index) }]);
    const client = connectRedis(redis.url, 'test-cut');
    try {
      const key = `${store.prefix}:run:run-a:events`;
      expect(await client.xlen(key)).toBe(5);
      // An operator (or a restored key) cuts the stream back: its last id stays where it was.
      await client.xdel(key, '0-5', '0-4');
      await expect(store.read('run-a')).rejects.toMatchObject({
        code: 'journal-rolled-back',
        details: { expectedSeq: 4, foundSeq: 2 },
      });
      // Nothing appends behind the cut: the seq the writer would use next is refused.
      await expect(store.append('run-a', [{ seq: 3, event: started('run-a', 3) }])).rejects.toMatchObject({
        code: 'store-failed',
      });
      await client.xdel(key, '0-2');
      await expect(store.read('run-a')).rejects.toMatchObject({
        code: 'journal-corrupt',
        details: { seq: 2, expected: 1 },
      });
    } finally {
      await closeRedis(client);
    }
  });

  it('reads a range of the journal by position', async () => {
    const store = open();
    for (let index = 0; index < 10; index++)
      await store.append('run-a', [{ seq: index, event: started('run-a', index) }]);
    const tail = await store.readFrom('run-a', 7);
    expect(tail.map((entry) => entry.index)).toEqual([7, 8, 9]);
    expect(tail.map((entry) => entry.event.at)).toEqual([7, 8, 9]);
  });

  it('tails a run live from another connection, from any position, until aborted', async () => {
    const writer = open();
    const reader = open(writer.prefix);
    for (let index = 0; index < 3; index++)
      await writer.append('run-a', [{ seq: index, event: started('run-a', index) }]);
    const controller = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const { index, event } of reader.tail('run-a', {
        from: 1,
        signal: controller.signal,
        blockMs: 200,
      })) {
        expect(event.at).toBe(index);
        seen.push(index);
        if (index === 5) controller.abort();
      }
    })();
    for (let index = 3; index < 6; index++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await writer.append('run-a', [{ seq: index, event: started('run-a', index) }]);
    }
    await done;
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('a damaged entry is a typed journal-corrupt error, not a silent gap', async () => {
    const store = open();
    await store.append('run-a', [{ seq: 0, event: started('run-a', 0) }]);
    const { Redis } = await import('ioredis');
    const raw = new Redis(redis.url);
    await raw.xadd(`${store.prefix}:run:run-a:events`, '0-2', 'e', '{not json');
    await raw.quit();
    await expect(store.read('run-a')).rejects.toMatchObject({ name: 'CortexError', code: 'journal-corrupt' });
  });

  it('skips a retried group, refuses a second writer and a gap (seq)', async () => {
    const store = open();
    const first = [
      { seq: 0, event: started('run-a', 0) },
      { seq: 1, event: started('run-a', 1) },
    ];
    await store.append('run-a', first);
    await store.append('run-a', first);
    expect((await store.read('run-a')).map((event) => event.at)).toEqual([0, 1]);
    await expect(store.append('run-a', [{ seq: 1, event: started('run-a', 9) }])).rejects.toMatchObject({
      code: 'store-failed',
      message: expect.stringMatching(/two processes/),
    });
    await expect(store.append('run-a', [{ seq: 5, event: started('run-a', 5) }])).rejects.toMatchObject({
      message: expect.stringMatching(/records are missing/),
    });
    expect(await store.read('run-a')).toHaveLength(2);
  });

  it('one live owner per run across connections: a second lease is refused, a released one can be taken', async () => {
    const a = open();
    const b = open(a.prefix);
    const lease = await a.acquireLease('run-a', { purpose: 'resume', ttlMs: 5_000 });
    await expect(b.acquireLease('run-a')).rejects.toMatchObject({
      code: 'run-leased',
      message: expect.stringMatching(/run run-a is being resumed by pid \d+ on host /),
    });
    await lease.release();
    const taken = await b.acquireLease('run-a', { ttlMs: 5_000 });
    await taken.release();
  });

  it('a lease not renewed expires and can be taken over; the old holder learns it lost it', async () => {
    const a = open();
    const b = open(a.prefix);
    const stale = await a.acquireLease('run-a', { ttlMs: 150, renewEveryMs: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const fresh = await b.acquireLease('run-a', { ttlMs: 5_000 });
    await expect(stale.renew()).rejects.toMatchObject({ code: 'lease-lost' });
    expect(stale.signal.aborted).toBe(true);
    await fresh.release();
  });

  it('a lease Redis refuses to take or renew (a damaged key) is a typed store-failed error', async () => {
    const store = open();
    const raw = connectRedis(redis.url);
    try {
      const lease = await store.acquireLease('run-a', { ttlMs: 5_000, renewEveryMs: false });
      for (const runId of ['run-a', 'run-b']) await raw.set(`${store.prefix}:run:${runId}:lease`, 'not json');
      await expect(lease.renew()).rejects.toMatchObject({
        code: 'store-failed',
        details: { runId: 'run-a' },
      });
      await expect(store.acquireLease('run-b')).rejects.toMatchObject({
        code: 'store-failed',
        message: expect.stringContaining('Could not take the lease of run run-b in Redis'),
      });
    } finally {
      await closeRedis(raw);
    }
  });

  it('refuses a connection that is not a Redis URL', () => {
    expect(() => createRedisRunStore({ connection: 'http://localhost:6379' })).toThrow(/redis:\/\//);
    expect(() => createRedisRunStore({ connection: 'redis://x', prefix: 'a b' })).toThrow(/prefix/);
  });
});
