import { afterAll, beforeAll } from 'vitest';
import { type Coordinator, createCoordinator } from '../coordinator';
import { type RedisServer, startRedisServer } from '../testing';
import type { FreezePoint } from './freeze-points';
import { type ScaleOutProcess, startProcess } from './scale-out-processes';
import { scenarioCortex } from './scenario';

/** A test file's real redis-server and what its tests start on it (all stopped after the file). */
export interface FailoverWorld {
  /** The file's redis-server (set before its first test). */
  readonly redis: RedisServer;
  /** Processes to kill after the file. */
  readonly processes: ScaleOutProcess[];
  /** Closers to call after the file, last first. */
  readonly closers: Array<() => Promise<void>>;
}

/** Starts a redis-server before the file's tests and stops it, its processes and closers after. */
export function useFailoverWorld(): FailoverWorld {
  let redis: RedisServer | undefined;
  const world: FailoverWorld = {
    get redis() {
      if (redis === undefined) throw new Error('the failover world starts before the first test');
      return redis;
    },
    processes: [],
    closers: [],
  };
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const child of world.processes) await child.kill();
    for (const close of world.closers.reverse()) await close();
    await redis?.stop();
  });
  return world;
}

/** A coordinator of the test scenario in this process, ready (closed after the file). */
export async function startCoordinator(
  world: FailoverWorld,
  prefix: string,
  lockMs: number,
): Promise<Coordinator> {
  const coordinator = createCoordinator({
    connection: world.redis.url,
    prefix,
    cortex: scenarioCortex,
    lockDurationMs: lockMs,
  });
  world.closers.push(() => coordinator.close());
  await coordinator.ready();
  return coordinator;
}

/** A worker process (concurrency 1) that stops dead at `point` inside `stepId`'s edit. */
export async function startFrozenWorker(
  world: FailoverWorld,
  options: {
    prefix: string;
    lockMs: number;
    stepId: string;
    point: FreezePoint;
    env?: Record<string, string>;
  },
): Promise<ScaleOutProcess> {
  const frozen = await startProcess({
    role: 'worker',
    url: world.redis.url,
    prefix: options.prefix,
    concurrency: 1,
    lockMs: options.lockMs,
    env: {
      CLOSEDLOOP_FREEZE: JSON.stringify({ stepId: options.stepId, point: options.point }),
      ...options.env,
    },
  });
  world.processes.push(frozen);
  return frozen;
}
