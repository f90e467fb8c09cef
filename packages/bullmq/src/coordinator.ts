import { createCortex, type RunEvent, type RunResult } from '@closedloop/cortex';
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, type RedisConnection } from './redis-connection';
import { createRedisRunStore } from './redis-run-store';
import { createStepDispatcher } from './step-dispatcher';
import { parseJob, runJobSchema, runQueueName } from './step-jobs';
import type { CortexFactory } from './step-worker';
import { resolveWorkerSettings } from './worker-settings';

/** What a coordinator reports as it works (for logs). */
export type CoordinatorEvent =
  | { type: 'run-taken'; runId: string; resumed: boolean }
  | { type: 'run-done'; runId: string; stopReason: string; durationMs: number }
  | { type: 'run-error'; runId: string; error: string }
  | { type: 'coordinator-error'; error: string };

/** Options of {@link createCoordinator}. */
export interface CoordinatorOptions {
  connection: RedisConnection;
  /** Key prefix shared by every process of the deployment. Default `closedloop`. */
  prefix?: string;
  /** Builds a run's cortex from its spec: the same function the step workers use. */
  cortex: CortexFactory;
  /** Runs this coordinator drives at once. Default 4. */
  concurrency?: number;
  /**
   * BullMQ lock of a run job: renewed every `lockDurationMs / 2`; a run whose coordinator stops
   * renewing it is taken over by another coordinator after this long. Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** How often this coordinator looks for runs whose lock expired. Default `lockDurationMs`. */
  stalledIntervalMs?: number;
  /** Take-overs of one run before it fails for good. Default 10. */
  maxStalledCount?: number;
  /** Step jobs: tries after worker errors, and how long finished ones are kept (see `createStepDispatcher`). */
  steps?: { attempts?: number; retentionMs?: number };
  /** A name in Redis `CLIENT LIST` and job records. Default `<host>:<pid>`. */
  name?: string;
  onEvent?: (event: CoordinatorEvent) => void;
  /** Every event of the runs this coordinator drives, live (journaled ones are in the store too). */
  onRunEvent?: (event: RunEvent) => void;
}

/** A running coordinator. */
export interface Coordinator {
  /** Resolves once it is connected and taking runs. */
  ready(): Promise<void>;
  /**
   * Stops taking runs, stops the ones it drives (they go back on the queue for another
   * coordinator to resume) and closes its connections.
   */
  close(): Promise<void>;
}

/** The BullMQ job id of a run (BullMQ refuses purely numeric custom ids). */
export function runJobId(runId: string): string {
  return `run/${runId}`;
}

/**
 * A `closedloop coordinator`: takes run jobs from the `runs` queue and drives each run with
 * cortex — planning, scheduling, replanning, goal checks — while its steps go to the step queue
 * (`createStepDispatcher`) for step workers. The run's journal is the Redis run store.
 *
 * A run is a BullMQ job: while a coordinator drives it, it renews the job's lock. When the
 * coordinator dies, the lock expires, BullMQ's stalled-job check (run by every coordinator)
 * puts the run back on the queue, and another coordinator resumes it from the store — steps
 * that were queued or running are found again by their job ids and adopted, not run twice.
 *
 * @example
 * const coordinator = createCoordinator({ connection: 'redis://127.0.0.1:6379', cortex: (spec) => ({ model, tools, workspace: spec.workspace }) });
 * await coordinator.ready();
 */
export function createCoordinator(options: CoordinatorOptions): Coordinator {
  const settings = resolveWorkerSettings(options, { maxStalledCount: 10 });
  const { connection, prefix, keys, name } = settings;
  const store = createRedisRunStore({ connection, prefix });
  const dispatcher = createStepDispatcher({ connection, prefix, ...options.steps });
  const running = new Map<string, AbortController>();
  let closing = false;
  const report = (event: CoordinatorEvent) => options.onEvent?.(event);

  const subscriber: Redis = connectRedis(connection, `${prefix}:coordinator-cancel`);
  const subscribed = subscriber.subscribe(keys.cancelRuns);
  subscriber.on('message', (_channel: string, runId: string) => {
    running.get(runId)?.abort(new Error('cancelled from another process'));
  });

  async function driveRun(job: Job, signal: AbortSignal | undefined): Promise<RunResult> {
    const { runId, spec } = parseJob(runJobSchema, job.data, job.id);
    const started = performance.now();
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener('abort', forward, { once: true });
    running.set(runId, controller);
    try {
      const [meta, journal] = await Promise.all([store.readMeta(runId), store.read(runId)]);
      const resumed = meta !== undefined || journal.length > 0;
      report({ type: 'run-taken', runId, resumed });
      const cortex = createCortex({
        ...(await options.cortex(spec, { runId })),
        store,
        // A run started here (nothing of it in the store) has no step jobs queued before.
        stepRunner: dispatcher.runnerFor(spec, { fresh: !resumed }),
        ...(options.onRunEvent ? { onEvent: options.onRunEvent } : {}),
      });
      const result = resumed
        ? await cortex.resume(runId, { signal: controller.signal })
        : await cortex.run(spec.request, { runId, signal: controller.signal });
      if (closing && result.stopReason === 'cancelled') {
        // Stopped because this coordinator shuts down: fail the job, so another one resumes the run.
        throw new Error(`coordinator ${name} shut down while driving run ${runId}`);
      }
      report({
        type: 'run-done',
        runId,
        stopReason: result.stopReason,
        durationMs: Math.round(performance.now() - started),
      });
      return JSON.parse(JSON.stringify(result)) as RunResult;
    } catch (error) {
      report({ type: 'run-error', runId, error: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      running.delete(runId);
      signal?.removeEventListener('abort', forward);
    }
  }

  const queueClient = connectRedis(connection, `${prefix}:coordinator`);
  const worker = new Worker(
    runQueueName,
    (job: Job, _token?: string, signal?: AbortSignal) => driveRun(job, signal),
    { connection: queueClient, ...settings.bullmq },
  );
  worker.on('error', (error: Error) => report({ type: 'coordinator-error', error: error.message }));
  // A lost lock means another coordinator may take the run: stop driving it here.
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const jobId of jobIds)
      running.get(jobId.slice('run/'.length))?.abort(new Error(`lost the lock of ${jobId}`));
  });

  return {
    async ready() {
      await subscribed;
      await worker.waitUntilReady();
    },
    async close() {
      closing = true;
      for (const controller of running.values())
        controller.abort(new Error(`coordinator ${name} shuts down`));
      await worker.close();
      await closeRedis(queueClient);
      await closeRedis(subscriber);
      await dispatcher.close();
      await store.close();
    },
  };
}
