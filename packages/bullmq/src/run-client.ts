import { createRunId, type RunResult } from '@closedloop/cortex';
import { assertRunId } from '@closedloop/cortex/store';
import { Job, Queue } from 'bullmq';
import { runJobId } from './coordinator';
import { listenToQueue, type QueueListener } from './queue-events';
import { checkConnection, closeRedis, connectRedis, type RedisConnection } from './redis-connection';
import { checkPrefix, redisKeys } from './redis-keys';
import { createRedisRunStore, type RedisRunStore } from './redis-run-store';
import { ScaleOutError } from './scale-out-error';
import {
  type RunJobData,
  type RunSpec,
  type RunSpecInput,
  runJobSchema,
  runQueueName,
  runSpecSchema,
  stepQueueName,
} from './step-jobs';

/** How often `result()` checks that the run job still exists while it waits. */
const lostCheckMs = 1000;

/** Options of {@link createRunClient}. */
export interface RunClientOptions {
  connection: RedisConnection;
  /** Key prefix shared by every process of the deployment. Default `closedloop`. */
  prefix?: string;
  /** How long finished run jobs (and their results) are kept. Default 7 days. */
  retentionMs?: number;
}

/** Submits runs to coordinators and watches them, from any machine that reaches Redis. */
export interface RunClient {
  /** The run store: `runs()`, `read(runId)`, `tail(runId)` to watch. */
  readonly store: RedisRunStore;
  /**
   * Queues a run for a coordinator. Throws `ScaleOutError('invalid-options')` for a bad spec,
   * `CortexError('invalid-run-id')` for a bad id, `ScaleOutError('run-exists')` for a known one.
   */
  submit(spec: RunSpecInput, options?: { runId?: string }): Promise<{ runId: string }>;
  /** The spec a run was submitted with (its workspace, settings), while its run job is kept. */
  spec(runId: string): Promise<RunSpec | undefined>;
  /**
   * The run's result once a coordinator finishes it. Rejects when its job failed for good,
   * `ScaleOutError('run-cancelled')` when it was cancelled before it started, and
   * `ScaleOutError('run-lost')` when its job vanished from Redis while waited for (Redis lost its
   * data): it never waits for a result that can no longer come.
   */
  result(runId: string): Promise<RunResult>;
  /** Asks the coordinator driving the run to stop it (`cancelled`; `resume` continues it). */
  cancel(runId: string): Promise<void>;
  /** Queues a run that stopped (cancelled, deadline, budget, or failed for good) to be resumed. */
  resume(runId: string): Promise<void>;
  /** Coordinators and step workers connected now (BullMQ's worker registry). */
  connected(): Promise<{ coordinators: number; workers: number }>;
  close(): Promise<void>;
}

/**
 * The client side of scale-out: queue runs, wait for results, cancel or resume them, and read
 * or tail their journals — no coordinator or worker needed in this process.
 *
 * @example
 * const client = createRunClient({ connection: 'redis://127.0.0.1:6379' });
 * const { runId } = await client.submit({ request: 'Add isPrime with tests', workspace: '/shared/ws/1' });
 * for await (const { event } of client.store.tail(runId, { signal })) console.log(event.type);
 */
export function createRunClient(options: RunClientOptions): RunClient {
  const connection = checkConnection(options?.connection);
  const prefix = checkPrefix(options.prefix);
  const keys = redisKeys(prefix);
  const retentionSeconds = Math.ceil((options.retentionMs ?? 7 * 24 * 60 * 60 * 1000) / 1000);
  const client = connectRedis(connection, `${prefix}:client`);
  const eventsClient = connectRedis(connection, `${prefix}:client-events`);
  const store = createRedisRunStore({ connection, prefix });
  const queue = new Queue(runQueueName, { connection: client, prefix });
  const steps = new Queue(stepQueueName(), { connection: client, prefix });
  let events: QueueListener | undefined;

  const jobOf = async (runId: string) => {
    assertRunId(runId);
    return Job.fromId(queue, runJobId(runId));
  };

  return {
    store,
    async submit(input, submitOptions = {}) {
      const parsed = runSpecSchema.safeParse(input);
      if (!parsed.success) {
        throw new ScaleOutError({
          code: 'invalid-options',
          message: `The run spec is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
        });
      }
      const runId = submitOptions.runId ?? createRunId();
      assertRunId(runId);
      if (
        (await queue.getJobState(runJobId(runId))) !== 'unknown' ||
        (await store.readMeta(runId)) !== undefined
      ) {
        throw new ScaleOutError({
          code: 'run-exists',
          message: `Run "${runId}" already exists; resume it or pick another id.`,
          details: { runId },
        });
      }
      const data: RunJobData = { version: 1, runId, spec: parsed.data };
      await queue.add('run', data, {
        jobId: runJobId(runId),
        attempts: 10,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: retentionSeconds },
        removeOnFail: { age: retentionSeconds },
      });
      return { runId };
    },
    async spec(runId) {
      const job = await jobOf(runId);
      if (!job) return undefined;
      const parsed = runJobSchema.safeParse(job.data);
      return parsed.success ? parsed.data.spec : undefined;
    },
    async result(runId) {
      const job = await jobOf(runId);
      if (!job)
        throw new ScaleOutError({
          code: 'invalid-job',
          message: `No run job for "${runId}".`,
          details: { runId },
        });
      events ??= listenToQueue(runQueueName, eventsClient, prefix);
      await events.ready;
      const queueEvents = events.events;
      // A run cancelled while it waited for a coordinator is removed: it never has a result.
      let onRemoved: ((event: { jobId: string }) => void) | undefined;
      const removed = new Promise<never>((_, reject) => {
        onRemoved = (event) => {
          if (event.jobId !== job.id) return;
          reject(
            new ScaleOutError({
              code: 'run-cancelled',
              message: `Run "${runId}" was cancelled before a coordinator started it.`,
              details: { runId },
            }),
          );
        };
        queueEvents.on('removed', onRemoved);
      });
      // Redis that lost its data (restarted without persistence, flushed) loses the job with it:
      // no completion can come any more. Seen twice in a row, so a cancel's `removed` comes first.
      const lostError = () =>
        new ScaleOutError({
          code: 'run-lost',
          message: `The run job of "${runId}" vanished from Redis while its result was awaited (Redis lost its data: restarted without persistence, flushed, or evicting keys). The run has no result.`,
          details: { runId },
        });
      // Also a look at the job every second: one that vanished (twice in a row) is lost, and one
      // that finished without its event reaching this reader still settles the wait.
      let poll: ReturnType<typeof setInterval> | undefined;
      const lost = new Promise<unknown>((resolve, reject) => {
        let missing = 0;
        poll = setInterval(() => {
          queue.getJobState(job.id!).then(
            async (state) => {
              missing = state === 'unknown' ? missing + 1 : 0;
              if (missing >= 2) reject(lostError());
              if (state !== 'completed' && state !== 'failed') return;
              const finished = await Job.fromId(queue, job.id!);
              if (finished === undefined) return;
              if (state === 'completed') resolve(finished.returnvalue);
              else reject(new Error(finished.failedReason || `The run job of "${runId}" failed.`));
            },
            () => {},
          );
        }, lostCheckMs);
      });
      const finished = job.waitUntilFinished(queueEvents).catch((error: unknown) => {
        // BullMQ's own words for a job whose keys are gone.
        if (error instanceof Error && error.message.startsWith('Missing key for job')) throw lostError();
        throw error;
      });
      lost.catch(() => {});
      try {
        return (await Promise.race([finished, removed, lost])) as RunResult;
      } finally {
        clearInterval(poll);
        if (onRemoved) queueEvents.off('removed', onRemoved);
      }
    },
    async cancel(runId) {
      assertRunId(runId);
      const job = await jobOf(runId);
      const state = job ? await job.getState() : 'unknown';
      if (job && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) await job.remove();
      await client.publish(keys.cancelRuns, runId);
    },
    async resume(runId) {
      const job = await jobOf(runId);
      const state = job ? await job.getState() : 'unknown';
      if (job && (state === 'completed' || state === 'failed')) {
        await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
        return;
      }
      if (job) return; // waiting or running already
      const meta = await store.readMeta(runId);
      if (!meta)
        throw new ScaleOutError({
          code: 'invalid-job',
          message: `No run "${runId}" to resume.`,
          details: { runId },
        });
      throw new ScaleOutError({
        code: 'invalid-job',
        message: `Run "${runId}" has no run job any more (older than the retention); submit it again with its spec.`,
        details: { runId },
      });
    },
    async connected() {
      const [coordinators, workers] = await Promise.all([queue.getWorkersCount(), steps.getWorkersCount()]);
      return { coordinators, workers };
    },
    async close() {
      await events?.events.close();
      await queue.close();
      await steps.close();
      await store.close();
      await closeRedis(eventsClient);
      await closeRedis(client);
    },
  };
}
