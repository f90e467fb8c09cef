import { ScaleOutError } from './scale-out-error';

/** The default key prefix of every closedloop key and queue in Redis. */
export const defaultPrefix = 'closedloop';

/** Throws `ScaleOutError('invalid-options')` unless `prefix` is a usable key prefix. */
export function checkPrefix(prefix: unknown): string {
  if (prefix === undefined) return defaultPrefix;
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(prefix)) {
    throw new ScaleOutError({
      code: 'invalid-options',
      message: `prefix must be 1-64 characters of [A-Za-z0-9._-], got ${JSON.stringify(prefix)}.`,
      details: { prefix },
    });
  }
  return prefix;
}

/** Every Redis key closedloop uses, under one prefix (BullMQ's queues use the same prefix). */
export function redisKeys(prefix: string) {
  return {
    prefix,
    /** Sorted set of run ids, scored by the time of their last write (epoch ms). */
    runs: `${prefix}:runs`,
    /** Stream of a run's events; entry id `0-<n>` is the n-th event (1-based). */
    events: (runId: string) => `${prefix}:run:${runId}:events`,
    /** A run's metadata (JSON). */
    meta: (runId: string) => `${prefix}:run:${runId}:meta`,
    /** The identity of the workspace a run's steps act on (`.closedloop/workspace-id` of the first worker's). */
    workspace: (runId: string) => `${prefix}:run:${runId}:workspace`,
    /**
     * The readers-writer lock of a run's steps on one workspace (JSON state, changed by Lua):
     * `workspace` is the folder's identity (`.closedloop/workspace-id` and its inode).
     */
    workspaceLock: (runId: string, workspace: string) => `${prefix}:run:${runId}:workspace-lock:${workspace}`,
    /** A run's lease: its one live owner (JSON holder), expiring unless renewed. */
    lease: (runId: string) => `${prefix}:run:${runId}:lease`,
    /** Stream of one step job's journaled events, every attempt's, each entry tagged with its attempt. */
    transcript: (jobId: string) => `${prefix}:step:${jobId}:transcript`,
    /** The attempt that owns a step job's transcript (only it may append). */
    owner: (jobId: string) => `${prefix}:step:${jobId}:owner`,
    /** Pub/sub channel: a step job id to cancel. */
    cancelSteps: `${prefix}:cancel-steps`,
    /** Pub/sub channel: a run id to cancel. */
    cancelRuns: `${prefix}:cancel-runs`,
  };
}

/** The keys of one prefix. */
export type RedisKeys = ReturnType<typeof redisKeys>;
