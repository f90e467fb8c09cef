import { hostname } from 'node:os';
import { checkConnection, type RedisConnection } from './redis-connection';
import { checkPrefix, type RedisKeys, redisKeys } from './redis-keys';
import { ScaleOutError } from './scale-out-error';

/** Throws `ScaleOutError('invalid-options')` unless `value` is an integer ≥ 1; `fallback` when undefined. */
export function positiveInteger(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ScaleOutError({
      code: 'invalid-options',
      message: `${what} must be an integer ≥ 1, got ${JSON.stringify(value)}.`,
    });
  }
  return value;
}

/** The BullMQ lock settings of a step worker or a coordinator, as given. */
export interface LockOptions {
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
}

/**
 * BullMQ's worker settings from {@link LockOptions}: the lock is renewed every
 * `lockDurationMs / 2`; the stalled-job check runs every `stalledIntervalMs` (default the lock
 * duration); a job stalled more than `maxStalledCount` times fails.
 */
export function resolveLockOptions(
  options: LockOptions,
  defaults: { maxStalledCount: number },
): { lockDuration: number; stalledInterval: number; maxStalledCount: number } {
  const lockDuration = positiveInteger(options.lockDurationMs, 'lockDurationMs', 30_000);
  return {
    lockDuration,
    stalledInterval: positiveInteger(options.stalledIntervalMs, 'stalledIntervalMs', lockDuration),
    maxStalledCount: positiveInteger(options.maxStalledCount, 'maxStalledCount', defaults.maxStalledCount),
  };
}

/** What step workers and coordinators are configured with alike. */
export interface WorkerSettingsInput extends LockOptions {
  connection: RedisConnection;
  prefix?: string;
  cortex: unknown;
  concurrency?: number;
  name?: string;
}

/** The checked settings every step worker and coordinator starts from. */
export interface WorkerSettings {
  connection: RedisConnection;
  prefix: string;
  keys: RedisKeys;
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
  /** In Redis `CLIENT LIST` and job records. */
  name: string;
  /** The same settings as BullMQ `Worker` options (spread them in). */
  bullmq: {
    prefix: string;
    name: string;
    concurrency: number;
    lockDuration: number;
    stalledInterval: number;
    maxStalledCount: number;
  };
}

/**
 * Checks the options step workers and coordinators share (connection, prefix, the cortex
 * factory, concurrency — default 4 —, lock settings, name — default `<host>:<pid>`); throws
 * `ScaleOutError('invalid-options')` for the first bad one.
 */
export function resolveWorkerSettings(
  options: WorkerSettingsInput,
  defaults: { maxStalledCount: number },
): WorkerSettings {
  const connection = checkConnection(options?.connection);
  const prefix = checkPrefix(options.prefix);
  if (typeof options.cortex !== 'function') {
    throw new ScaleOutError({
      code: 'invalid-options',
      message: 'cortex must be a function (spec, { runId }) => CortexOptions for a run.',
    });
  }
  const concurrency = positiveInteger(options.concurrency, 'concurrency', 4);
  const lock = resolveLockOptions(options, defaults);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  return {
    connection,
    prefix,
    keys: redisKeys(prefix),
    concurrency,
    ...lock,
    name,
    bullmq: { prefix, name, concurrency, ...lock },
  };
}
