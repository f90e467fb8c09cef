import type { RunEvent } from '@closedloop/cortex';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys';
import { ScaleOutError } from './scale-out-error';

/** One entry of a step job's transcript. */
export interface TranscriptEntry {
  /** The attempt (BullMQ lock token) that journaled it. */
  attempt: string;
  event: RunEvent;
}

/** The journals of step jobs: every attempt's events, in order, appended only by the attempt that owns the job. */
export interface StepTranscripts {
  /**
   * Makes `attempt` the only one that may append to the job's transcript (a stalled attempt
   * that wakes up is fenced off) and returns what earlier attempts journaled — atomically.
   */
  claim(jobId: string, attempt: string): Promise<TranscriptEntry[]>;
  /**
   * Appends events, in order, in one script call (all or none); rejects with
   * `ScaleOutError('step-fenced')` once another attempt owns the job.
   */
  append(jobId: string, attempt: string, events: readonly RunEvent[]): Promise<void>;
  /** The events one attempt journaled, in order; without `attempt`, every attempt's, in order. */
  read(jobId: string, attempt?: string): Promise<RunEvent[]>;
  /** Deletes the transcripts of these jobs. */
  remove(jobIds: readonly string[]): Promise<void>;
}

const claimScript = `
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('XRANGE', KEYS[1], '-', '+')
`;

// ARGV: the attempt, the retention, then the events' JSON. Checked before anything is written, so
// a fenced attempt appends nothing; a script runs alone, so no claim falls between two events.
const appendScript = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return redis.error_reply('FENCED')
end
for index = 3, #ARGV do
  redis.call('XADD', KEYS[1], '*', 'a', ARGV[1], 'e', ARGV[index])
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return #ARGV - 2
`;

type Entry = [id: string, fields: string[]];

function parse([, fields]: Entry): TranscriptEntry {
  const attempt = fields[fields.indexOf('a') + 1] ?? '';
  return { attempt, event: JSON.parse(fields[fields.indexOf('e') + 1] ?? 'null') as RunEvent };
}

type TranscriptClient = Redis & {
  closedloopClaim(stream: string, owner: string, attempt: string, ttlMs: number): Promise<Entry[]>;
  closedloopJournal(
    stream: string,
    owner: string,
    attempt: string,
    ttlMs: number,
    ...json: string[]
  ): Promise<number>;
};

/**
 * Step transcripts on Redis: one stream per step job (`<prefix>:step:<jobId>:transcript`),
 * entries tagged with their attempt, plus the owning attempt (`…:owner`). Both expire
 * `retentionMs` after the last write, like the jobs they belong to.
 */
export function createStepTranscripts(options: {
  client: Redis;
  keys: RedisKeys;
  retentionMs: number;
}): StepTranscripts {
  const { keys, retentionMs } = options;
  const client = options.client as TranscriptClient;
  if (typeof client.closedloopClaim !== 'function') {
    client.defineCommand('closedloopClaim', { numberOfKeys: 2, lua: claimScript });
    client.defineCommand('closedloopJournal', { numberOfKeys: 2, lua: appendScript });
  }
  return {
    async claim(jobId, attempt) {
      const entries = await client.closedloopClaim(
        keys.transcript(jobId),
        keys.owner(jobId),
        attempt,
        retentionMs,
      );
      return entries.map(parse);
    },
    async append(jobId, attempt, events) {
      if (events.length === 0) return;
      try {
        await client.closedloopJournal(
          keys.transcript(jobId),
          keys.owner(jobId),
          attempt,
          retentionMs,
          ...events.map((event) => JSON.stringify(event)),
        );
      } catch (error) {
        if (error instanceof Error && error.message.includes('FENCED')) {
          throw new ScaleOutError({
            code: 'step-fenced',
            message: `Step job ${jobId} now belongs to another attempt: this one lost its lock and stops.`,
            details: { jobId, attempt },
          });
        }
        throw error;
      }
    },
    async read(jobId, attempt) {
      const entries = (await client.xrange(keys.transcript(jobId), '-', '+')) as Entry[];
      return entries
        .map(parse)
        .filter((entry) => attempt === undefined || entry.attempt === attempt)
        .map((entry) => entry.event);
    },
    async remove(jobIds) {
      if (jobIds.length === 0) return;
      await client.del(...jobIds.flatMap((jobId) => [keys.transcript(jobId), keys.owner(jobId)]));
    },
  };
}
