import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@closedloop/cortex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLostReplyProxy } from './__fixtures__/lost-reply-proxy';
import { closeRedis, connectRedis, pingRedis } from './redis-connection';
import { redisKeys } from './redis-keys';
import { createStepTranscripts, UnclaimedTranscriptError } from './step-transcripts';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});

const event = (stepId: string, callId: string): RunEvent => ({
  type: 'guard-decided',
  runId: 'run-1',
  at: 1,
  stepId,
  callId,
  tool: 'write_file',
  decision: { action: 'allow' },
});

describe('step transcripts', () => {
  it('a new attempt fences the old one off and reads what it journaled', async () => {
    const client = connectRedis(redis.url);
    const transcripts = createStepTranscripts({
      client,
      keys: redisKeys(`t-${randomUUID().slice(0, 8)}`),
      retentionMs: 60_000,
    });
    expect(await transcripts.claim('job-1', 'attempt-a')).toEqual([]);
    await transcripts.append({
      jobId: 'job-1',
      attempt: 'attempt-a',
      group: 1,
      events: [event('s1', 'c1'), event('s1', 'c2')],
    });
    // Attempt B takes over (attempt A's worker froze past its lock).
    const earlier = await transcripts.claim('job-1', 'attempt-b');
    expect(earlier.map((entry) => [entry.attempt, (entry.event as { callId: string }).callId])).toEqual([
      ['attempt-a', 'c1'],
      ['attempt-a', 'c2'],
    ]);
    // A wakes up: it can no longer journal.
    await expect(
      transcripts.append({
        jobId: 'job-1',
        attempt: 'attempt-a',
        group: 2,
        events: [event('s1', 'c3'), event('s1', 'c4')],
      }),
    ).rejects.toMatchObject({ code: 'step-fenced' });
    // B's first group is appended although the stream's last entry is A's first group.
    await transcripts.append({ jobId: 'job-1', attempt: 'attempt-b', group: 1, events: [event('s1', 'c3')] });
    await transcripts.append({
      jobId: 'job-1',
      attempt: 'attempt-b',
      group: 2,
      events: [event('s1', 'c4'), event('s1', 'c5')],
    });
    expect(
      (await transcripts.read('job-1', 'attempt-b')).map((entry) => (entry as { callId: string }).callId),
    ).toEqual(['c3', 'c4', 'c5']);
    // The fenced group left nothing: A's entries are the two it appended before B claimed the job.
    expect(await transcripts.read('job-1', 'attempt-a')).toHaveLength(2);
    await transcripts.remove(['job-1']);
    expect(await transcripts.claim('job-1', 'attempt-c')).toEqual([]);
    await closeRedis(client);
  });

  it("a job's first attempt claims the transcript with its first group: only one nobody claimed or wrote", async () => {
    const client = connectRedis(redis.url);
    const keys = redisKeys(`t-${randomUUID().slice(0, 8)}`);
    const transcripts = createStepTranscripts({ client, keys, retentionMs: 60_000 });
    const callIds = async () =>
      (await transcripts.read('job-3')).map((entry) => (entry as { callId: string }).callId);
    const first = {
      jobId: 'job-3',
      attempt: 'attempt-a',
      group: 1,
      events: [event('s1', 'c1')],
      claim: true,
    };
    expect(await transcripts.append(first)).toBe(1);
    // Sent again (its reply lost): appended once, and A still owns the transcript.
    expect(await transcripts.append(first)).toBe(0);
    expect(
      await transcripts.append({
        jobId: 'job-3',
        attempt: 'attempt-a',
        group: 2,
        events: [event('s1', 'c2')],
      }),
    ).toBe(1);
    // Another attempt that takes itself for the first cannot claim what A owns…
    await expect(
      transcripts.append({
        jobId: 'job-3',
        attempt: 'attempt-b',
        group: 1,
        events: [event('s1', 'x')],
        claim: true,
      }),
    ).rejects.toMatchObject({ code: 'step-fenced' });
    // …a claim can, and fences A off.
    expect((await transcripts.claim('job-3', 'attempt-b')).map((entry) => entry.attempt)).toEqual([
      'attempt-a',
      'attempt-a',
    ]);
    await expect(
      transcripts.append({ jobId: 'job-3', attempt: 'attempt-a', group: 3, events: [event('s1', 'c3')] }),
    ).rejects.toMatchObject({ code: 'step-fenced' });
    // A transcript with events but no owner (an earlier incarnation of the job id): a claiming
    // group writes nothing and says so; the attempt must claim and continue from it.
    await client.del(keys.owner('job-3'));
    const unclaimed = transcripts.append({
      jobId: 'job-3',
      attempt: 'attempt-c',
      group: 1,
      events: [event('s1', 'c9')],
      claim: true,
    });
    await expect(unclaimed).rejects.toBeInstanceOf(UnclaimedTranscriptError);
    expect(await callIds()).toEqual(['c1', 'c2']);
    expect(await client.exists(keys.owner('job-3'))).toBe(0);
    await closeRedis(client);
  });

  it('appends a group once: the same group sent twice, or resent by ioredis after its reply was lost, is a no-op', async () => {
    const keys = redisKeys(`t-${randomUUID().slice(0, 8)}`);
    const direct = connectRedis(redis.url);
    const proxy = await startLostReplyProxy(redis.port);
    const proxied = connectRedis(proxy.url);
    try {
      const transcripts = createStepTranscripts({ client: direct, keys, retentionMs: 60_000 });
      const callIds = async () =>
        (await transcripts.read('job-2')).map((entry) => (entry as { callId: string }).callId);
      await transcripts.claim('job-2', 'attempt-a');
      const first = { jobId: 'job-2', attempt: 'attempt-a', group: 1, events: [event('s1', 'c1')] };
      expect(await transcripts.append(first)).toBe(1);
      expect(await transcripts.append(first)).toBe(0);
      expect(await callIds()).toEqual(['c1']);

      // The real thing: the script runs, its reply is lost with the connection, ioredis
      // reconnects and sends the same command again.
      const overProxy = createStepTranscripts({ client: proxied, keys, retentionMs: 60_000 });
      await proxied.ping();
      const lost = proxy.loseReplyTo('lost-reply-c2');
      const second = {
        jobId: 'job-2',
        attempt: 'attempt-a',
        group: 2,
        events: [event('s1', 'lost-reply-c2'), event('s1', 'c3')],
      };
      const appended = overProxy.append(second);
      await lost;
      expect(await appended).toBe(0);
      expect(await callIds()).toEqual(['c1', 'lost-reply-c2', 'c3']);

      // Later groups still go in; an earlier group sent again does not.
      expect(
        await transcripts.append({
          jobId: 'job-2',
          attempt: 'attempt-a',
          group: 3,
          events: [event('s1', 'c4')],
        }),
      ).toBe(1);
      expect(await transcripts.append(first)).toBe(0);
      expect(await callIds()).toEqual(['c1', 'lost-reply-c2', 'c3', 'c4']);
    } finally {
      await closeRedis(proxied);
      await closeRedis(direct);
      await proxy.close();
    }
  });

  it('pingRedis fails fast with a typed error when nothing answers', async () => {
    await pingRedis(redis.url);
    const started = Date.now();
    await expect(pingRedis('redis://127.0.0.1:1', { timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'redis-unreachable',
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
