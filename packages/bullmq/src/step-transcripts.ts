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

/** One group of events an attempt appends to a step job's transcript (see {@link StepTranscripts.append}). */
export interface TranscriptAppend {
  jobId: string;
  /** The attempt (BullMQ lock token) appending. */
  attempt: string;
  /**
   * The group's number within the attempt: 1 for its first group, then 2, 3… A group whose
   * number the attempt's last entry already carries is in the transcript (a command ioredis
   * resent after a reconnect, its first reply lost): appending it again is a no-op.
   */
  group: number;
  events: readonly RunEvent[];
  /** The events' JSON, when the caller has it already (index for index): written as is. */
  json?: readonly (string | undefined)[];
  /**
   * The first group of an attempt that did not {@link StepTranscripts.claim} the transcript
   * because it knows no attempt of the job started before it (BullMQ's first start of the job):
   * the group claims it — one round trip instead of two. Allowed only while the transcript is
   * unclaimed and empty; owned by another attempt, it rejects `step-fenced`; unowned but holding
   * events (an earlier incarnation of the job), it rejects with {@link UnclaimedTranscriptError}
   * and writes nothing: the attempt must claim and continue from what is there.
   */
  claim?: boolean;
}

/**
 * A group that was to claim the transcript found events of earlier attempts in it (see
 * {@link TranscriptAppend.claim}): nothing was written; claim the transcript and run the step
 * again from its history.
 */
export class UnclaimedTranscriptError extends Error {
  constructor(readonly jobId: string) {
    super(`Step job ${jobId} has a transcript from earlier attempts: claim it first.`);
    this.name = 'UnclaimedTranscriptError';
  }
}

/** The journals of step jobs: every attempt's events, in order, appended only by the attempt that owns the job. */
export interface StepTranscripts {
  /**
   * Makes `attempt` the only one that may append to the job's transcript (a stalled attempt
   * that wakes up is fenced off) and returns what earlier attempts journaled — atomically.
   */
  claim(jobId: string, attempt: string): Promise<TranscriptEntry[]>;
  /**
   * Appends a group of events, in order, in one script call (all or none), once: a group already
   * appended (the same attempt and group number) is not appended again. Resolves with the number
   * of events appended (0 for such a repeat); rejects with `ScaleOutError('step-fenced')` once
   * another attempt owns the job.
   */
  append(group: TranscriptAppend): Promise<number>;
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

// ARGV: the attempt, the retention, the group's number, '1' when the group claims the transcript
// (else '0'), then the events' JSON. Checked before anything is written, so a fenced attempt
// appends nothing; a script runs alone, so no claim falls between two events. A claiming group
// takes only a transcript nobody claimed and nobody wrote (the job's first attempt); it is its
// attempt's from then on. Each entry carries its attempt (a) and group (g): when the stream's last
// entry is this attempt's with this group number or a later one, the group is in already (a
// resent command, the claiming group's included) and nothing is appended — only the owner
// appends, so its last group is last.
const appendScript = `
local owner = redis.call('GET', KEYS[2])
if owner ~= ARGV[1] then
  if ARGV[4] ~= '1' or owner then
    return redis.error_reply('FENCED')
  end
  if redis.call('XLEN', KEYS[1]) > 0 then
    return redis.error_reply('UNCLAIMED')
  end
end
local group = tonumber(ARGV[3])
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
if last ~= nil then
  local fields = last[2]
  local attempt, appended
  for index = 1, #fields, 2 do
    if fields[index] == 'a' then attempt = fields[index + 1] end
    if fields[index] == 'g' then appended = tonumber(fields[index + 1]) end
  end
  if attempt == ARGV[1] and appended ~= nil and appended >= group then
    return 0
  end
end
for index = 5, #ARGV do
  redis.call('XADD', KEYS[1], '*', 'a', ARGV[1], 'e', ARGV[index], 'g', ARGV[3])
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return #ARGV - 4
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
    group: number,
    claim: '0' | '1',
    ...json: string[]
  ): Promise<number>;
};

/**
 * Step transcripts on Redis: one stream per step job (`<prefix>:step:<jobId>:transcript`),
 * entries tagged with their attempt and group number, plus the owning attempt (`…:owner`). Both expire
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
    async append({ jobId, attempt, group, events, json, claim }) {
      if (events.length === 0) return 0;
      try {
        return await client.closedloopJournal(
          keys.transcript(jobId),
          keys.owner(jobId),
          attempt,
          retentionMs,
          group,
          claim === true ? '1' : '0',
          ...events.map((event, index) => json?.[index] ?? JSON.stringify(event)),
        );
      } catch (error) {
        if (error instanceof Error && error.message.includes('UNCLAIMED')) {
          throw new UnclaimedTranscriptError(jobId);
        }
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
