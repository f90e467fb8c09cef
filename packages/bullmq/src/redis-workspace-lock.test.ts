import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedis, connectRedis } from './redis-connection';
import { createRedisWorkspaceLock, type RedisWorkspaceLockOptions } from './redis-workspace-lock';
import { ScaleOutError } from './scale-out-error';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
const clients: Redis[] = [];
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const client of clients) await closeRedis(client).catch(() => undefined);
  await redis.stop();
});

/** A client of its own: each lock below stands for another worker process. */
function connect(): Redis {
  const client = connectRedis(redis.url, 'lock-test');
  clients.push(client);
  return client;
}

const ttlMs = 1000;

/** A lock of one attempt of step job `owner`, on its own connection; `lost` collects onLost calls. */
function lockOf(
  key: string,
  owner: string,
  extra: Partial<RedisWorkspaceLockOptions> = {},
): { lock: ReturnType<typeof createRedisWorkspaceLock>; lost: ScaleOutError[]; client: Redis } {
  const lost: ScaleOutError[] = [];
  const client = extra.client ?? connect();
  const lock = createRedisWorkspaceLock({
    client,
    key,
    queuePrefix: 'lt',
    owner,
    attempt: randomUUID(),
    queue: 'steps',
    ttlMs,
    retentionMs: 60_000,
    onLost: (error) => lost.push(error),
    ...extra,
  });
  closers.push(() => lock.close());
  return { lock, lost, client };
}

/** Resolves `true` when `promise` settles within `ms`, `false` otherwise (it keeps running). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), sleep(ms).then(() => false)]);
}

const freshKey = () => `lt:run:${randomUUID()}:workspace-lock:ws`;

describe('createRedisWorkspaceLock (real Redis, one connection per holder)', () => {
  it('an exclusive grant keeps out every other grant until it is released', async () => {
    const key = freshKey();
    const a = lockOf(key, 'job-a');
    const b = lockOf(key, 'job-b');
    const c = lockOf(key, 'job-c');
    const release = await a.lock.acquire('exclusive');
    const exclusive = b.lock.acquire('exclusive');
    const shared = c.lock.acquire('shared');
    expect(await settlesWithin(exclusive, 300)).toBe(false);
    expect(await settlesWithin(shared, 50)).toBe(false);
    release();
    // b waited first: it goes first, c's shared grant after it.
    const releaseB = await exclusive;
    expect(await settlesWithin(shared, 200)).toBe(false);
    releaseB();
    (await shared)();
    expect(a.lost).toEqual([]);
    expect(b.lost).toEqual([]);
  });

  it('shared grants go together; a waiting exclusive request goes before later shared ones', async () => {
    const key = freshKey();
    const [a, b, c, d] = ['job-a', 'job-b', 'job-c', 'job-d'].map((job) => lockOf(key, job));
    const releaseA = await a!.lock.acquire('shared');
    const releaseB = await b!.lock.acquire('shared');
    const exclusive = c!.lock.acquire('exclusive');
    expect(await settlesWithin(exclusive, 200)).toBe(false);
    const later = d!.lock.acquire('shared');
    expect(await settlesWithin(later, 200)).toBe(false);
    releaseA();
    expect(await settlesWithin(exclusive, 200)).toBe(false);
    releaseB();
    const releaseC = await exclusive;
    expect(await settlesWithin(later, 200)).toBe(false);
    releaseC();
    (await later)();
  });

  it('held grants are renewed: a holder that stays alive past the TTL keeps the lock', async () => {
    const key = freshKey();
    const a = lockOf(key, 'job-a');
    const b = lockOf(key, 'job-b');
    const release = await a.lock.acquire('exclusive');
    const waiting = b.lock.acquire('exclusive');
    expect(await settlesWithin(waiting, ttlMs * 4)).toBe(false);
    expect(a.lost).toEqual([]);
    release();
    (await waiting)();
  });

  it("a dead holder's grant (its worker gone: no renewal) passes to its step's next attempt, not to another step", async () => {
    const key = freshKey();
    // The dead holder's step job is queued (its worker died, BullMQ put it back): a real job.
    const queue = new Queue('steps', { connection: connect(), prefix: 'lt' });
    closers.push(() => queue.close());
    await queue.add('step', {}, { jobId: 'job-a' });
    const dead = lockOf(key, 'job-a');
    await dead.lock.acquire('exclusive');
    // The worker dies: its connection is gone, nothing renews the grant.
    dead.client.disconnect();
    await sleep(ttlMs * 2);
    // Another step without a way to yield keeps waiting: the dead call's change is not settled.
    const patient = lockOf(key, 'job-b').lock.acquire('shared');
    expect(await settlesWithin(patient, ttlMs * 2)).toBe(false);
    let yielded = 0;
    const controller = new AbortController();
    const blocked = lockOf(key, 'job-c', {
      signal: controller.signal,
      onYield: () => {
        yielded++;
        controller.abort(new Error('yield'));
      },
    });
    await expect(blocked.lock.acquire('exclusive')).rejects.toThrow('yield');
    expect(yielded).toBe(1);
    // The step's next attempt (same job, another attempt) takes the dead grant over at once.
    const next = lockOf(key, 'job-a');
    const releaseNext = await next.lock.acquire('exclusive');
    expect([...next.lock.held().values()][0]).toBeGreaterThan(0);
    expect(await settlesWithin(patient, 200)).toBe(false);
    releaseNext();
    (await patient)();
  });

  it('a dead holder whose job is over (completed, failed or gone) is freed by the next acquirer', async () => {
    const key = freshKey();
    const dead = lockOf(key, 'job-gone');
    const started = Date.now();
    await dead.lock.acquire('exclusive');
    dead.client.disconnect();
    const other = lockOf(key, 'job-b');
    const release = await other.lock.acquire('exclusive');
    // Not before the dead grant's TTL ran out (Redis's clock, the same machine's).
    expect(Date.now() - started).toBeGreaterThanOrEqual(ttlMs - 20);
    release();
  });

  it('fencing: a holder whose grant was taken over notices at its next renewal (onLost) and takes nothing more', async () => {
    const key = freshKey();
    const frozen = lockOf(key, 'job-a');
    const epoch = await frozen.lock.acquire('exclusive').then(() => [...frozen.lock.held().values()][0]!);
    // The step's next attempt (the job was handed over while this one froze) takes the grant.
    const next = lockOf(key, 'job-a');
    const releaseNext = await next.lock.acquire('exclusive');
    expect([...next.lock.held().values()][0]).toBeGreaterThan(epoch);
    await sleep(ttlMs);
    expect(frozen.lost.map((error) => error.code)).toEqual(['workspace-lock-lost']);
    expect(frozen.lost[0]!.message).toMatch(/lost its workspace lock/);
    await expect(frozen.lock.acquire('shared')).rejects.toSatisfy(
      (error) => ScaleOutError.isInstance(error) && error.code === 'workspace-lock-lost',
    );
    releaseNext();
  });

  it('refuses a bad mode with a typed error', async () => {
    const { lock } = lockOf(freshKey(), 'job-a');
    await expect(lock.acquire('both' as 'shared')).rejects.toSatisfy(
      (error) => ScaleOutError.isInstance(error) && error.code === 'invalid-options',
    );
  });

  it('scripts run by their SHA; a Redis that forgot them (restart, SCRIPT FLUSH) is sent the text again', async () => {
    const key = freshKey();
    const { lock, client } = lockOf(key, 'job-a');
    const first = await lock.acquire('exclusive');
    first();
    await client.script('FLUSH');
    const second = await lock.acquire('exclusive');
    expect(lock.held().size).toBe(1);
    second();
  });

  it('closing: an attempt with nothing left sends nothing; one that still holds or waits drops it', async () => {
    const key = freshKey();
    const admin = connect();
    const calls = async () => {
      const info = await admin.info('commandstats');
      return [...info.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)].reduce(
        (total, match) => total + Number(match[2]),
        0,
      );
    };
    // Released its grant: close is free, and the next exclusive request goes at once.
    const done = lockOf(key, 'job-a');
    (await done.lock.acquire('shared'))();
    await sleep(50); // the release (sent without waiting) has landed
    const before = await calls();
    await done.lock.close();
    expect(await calls()).toBe(before);
    const other = lockOf(key, 'job-b');
    expect(await settlesWithin(other.lock.acquire('exclusive'), 500)).toBe(true);
    // Still holding at its end: close drops the grant, and the waiting request is granted.
    const holding = lockOf(key, 'job-c');
    await other.lock.close();
    await holding.lock.acquire('shared');
    const waiting = lockOf(key, 'job-d').lock.acquire('exclusive');
    expect(await settlesWithin(waiting, 200)).toBe(false);
    await holding.lock.close();
    expect(await settlesWithin(waiting, 1000)).toBe(true);
  });
});
