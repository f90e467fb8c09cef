import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { type Coordinator, createCoordinator } from '../coordinator';
import { createRunClient, type RunClient } from '../run-client';
import type { RunSpec } from '../step-jobs';
import { createStepWorker } from '../step-worker';
import { type RedisServer, startRedisServer } from '../testing';
import { scenarioSpec } from './final-state';
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

/** A scenario run on an in-process coordinator and step worker (see {@link startInProcessRun}). */
export interface InProcessRun {
  /** The queues' key prefix (fresh per run). */
  prefix: string;
  runs: RunClient;
  runId: string;
  runSpec: RunSpec;
}

/**
 * A coordinator and a step worker (concurrency 2) of the test scenario in this process, on a
 * fresh prefix of the redis-server at `url`, both ready; a run client; and a scenario run with
 * `settings` submitted in a fresh temp workspace. All closed (the workspace removed) after the file.
 */
export async function startInProcessRun(
  world: Pick<FailoverWorld, 'closers'>,
  options: { url: string; lockMs: number; settings: RunSpec['settings']; workspacePrefix: string },
): Promise<InProcessRun> {
  const prefix = `t-${randomUUID().slice(0, 8)}`;
  const common = {
    connection: options.url,
    prefix,
    cortex: scenarioCortex,
    lockDurationMs: options.lockMs,
  };
  const coordinator = createCoordinator(common);
  const worker = createStepWorker({ ...common, concurrency: 2 });
  world.closers.push(
    () => coordinator.close(),
    () => worker.close(),
  );
  await Promise.all([coordinator.ready(), worker.ready()]);
  const runs = createRunClient({ connection: options.url, prefix });
  world.closers.push(() => runs.close());
  const runSpec = scenarioSpec(options.settings, options.workspacePrefix);
  world.closers.push(async () => rmSync(runSpec.workspace!, { recursive: true, force: true }));
  const { runId } = await runs.submit(runSpec);
  return { prefix, runs, runId, runSpec };
}
