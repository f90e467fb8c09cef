import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@closedloop/cortex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedis, connectRedis, pingRedis } from './redis-connection';
import { redisKeys } from './redis-keys';
import { createStepTranscripts } from './step-transcripts';
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
    await transcripts.append('job-1', 'attempt-a', [event('s1', 'c1'), event('s1', 'c2')]);
    // Attempt B takes over (attempt A's worker froze past its lock).
    const earlier = await transcripts.claim('job-1', 'attempt-b');
    expect(earlier.map((entry) => [entry.attempt, (entry.event as { callId: string }).callId])).toEqual([
      ['attempt-a', 'c1'],
      ['attempt-a', 'c2'],
    ]);
    // A wakes up: it can no longer journal.
    await expect(
      transcripts.append('job-1', 'attempt-a', [event('s1', 'c3'), event('s1', 'c4')]),
    ).rejects.toMatchObject({ code: 'step-fenced' });
    await transcripts.append('job-1', 'attempt-b', [event('s1', 'c3')]);
    await transcripts.append('job-1', 'attempt-b', [event('s1', 'c4'), event('s1', 'c5')]);
    expect(
      (await transcripts.read('job-1', 'attempt-b')).map((entry) => (entry as { callId: string }).callId),
    ).toEqual(['c3', 'c4', 'c5']);
    // The fenced group left nothing: A's entries are the two it appended before B claimed the job.
    expect(await transcripts.read('job-1', 'attempt-a')).toHaveLength(2);
    await transcripts.remove(['job-1']);
    expect(await transcripts.claim('job-1', 'attempt-c')).toEqual([]);
    await closeRedis(client);
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
