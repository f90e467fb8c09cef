import type { EventEmitter } from 'node:events';
import type { RunEvent, StepRunOutcome, StepTask, StepTaskRunner } from '@closedloop/cortex';
import { Queue, type QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { listenToQueue } from './queue-events';
import { checkConnection, closeRedis, connectRedis, type RedisConnection } from './redis-connection';
import { checkPrefix, redisKeys } from './redis-keys';
import { ScaleOutError } from './scale-out-error';
import {
  parseJob,
  type RunSpec,
  type StepJobData,
  type StepJobResult,
  stepJobId,
  stepQueueName,
  stepResultSchema,
} from './step-jobs';
import { createStepTranscripts } from './step-transcripts';

/** Options of {@link createStepDispatcher}. */
export interface StepDispatcherOptions {
  connection: RedisConnection;
  /** Key prefix shared by every process of the deployment. Default `closedloop`. */
  prefix?: string;
  /** Tries of a step job whose worker threw (not a step that failed verification). Default 3. */
  attempts?: number;
  /**
   * How long finished step jobs and their transcripts are kept. A coordinator that takes a run
   * over finds its predecessor's finished steps by job id and adopts them instead of running
   * them again, so keep this longer than a run may wait to be resumed. Default 7 days.
   */
  retentionMs?: number;
}

/** Hands ready steps to the BullMQ step queue and adopts what workers journaled. */
export interface StepDispatcher {
  /**
   * The `stepRunner` (a `createCortex` option) of one run: its steps become jobs carrying `spec`.
   * `fresh`: the run is being started (`cortex.run`, which writes the run's metadata before any
   * step runs), not resumed, so no earlier process can have queued one of its steps: a dispatched
   * step's job is then new, and its state is not looked up after it is added (one Redis round
   * trip less per step). Leave it out (or false) for a run that is resumed or taken over.
   */
  runnerFor(spec: RunSpec, options?: { fresh?: boolean }): StepTaskRunner;
  /** Closes the queues and connections (steps still waited for reject). */
  close(): Promise<void>;
}

const week = 7 * 24 * 60 * 60 * 1000;

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
}

/**
 * The coordinator's side of scale-out. Each ready step becomes a BullMQ job on the `steps`
 * queue (or `steps@<group>` for a run pinned to a group of workers) whose id is derived from
 * the run and the step's `executionId`: a coordinator that takes a run over after a crash gets
 * the same job back — waiting, running or finished — instead of a second one. The worker that
 * completes the job names its attempt; the dispatcher reads that attempt's transcript and
 * `task.adopt`s it, then resolves with the outcome. A job that failed for good (worker errors
 * beyond `attempts`, a step handed over too often) rejects, and the scheduler fails the step.
 * When the run stops, queued step jobs are removed and running ones are told to cancel.
 */
export function createStepDispatcher(options: StepDispatcherOptions): StepDispatcher {
  const connection = checkConnection(options?.connection);
  const prefix = checkPrefix(options.prefix);
  const keys = redisKeys(prefix);
  const attempts = options.attempts ?? 3;
  const retentionMs = options.retentionMs ?? week;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new ScaleOutError({
      code: 'invalid-options',
      message: `attempts must be an integer ≥ 1, got ${attempts}.`,
    });
  }
  if (!Number.isFinite(retentionMs) || retentionMs < 1000) {
    throw new ScaleOutError({
      code: 'invalid-options',
      message: `retentionMs must be ≥ 1000, got ${retentionMs}.`,
    });
  }
  const client = connectRedis(connection, `${prefix}:dispatcher`);
  const transcripts = createStepTranscripts({ client, keys, retentionMs });
  const queues = new Map<
    string,
    { queue: Queue; events: QueueEvents; eventsClient: Redis; ready: Promise<unknown> }
  >();
  let closed = false;

  const queueOf = (group: string | undefined) => {
    const name = stepQueueName(group);
    let entry = queues.get(name);
    if (entry === undefined) {
      const eventsClient = connectRedis(connection, `${prefix}:dispatcher-events`);
      const queue = new Queue(name, { connection: client, prefix });
      const { events, ready } = listenToQueue(name, eventsClient, prefix);
      // Every step waited for listens on both (see `finishOf`).
      queue.setMaxListeners(0);
      entry = {
        queue,
        events,
        eventsClient,
        ready: Promise.all([queue.waitUntilReady(), ready]),
      };
      queues.set(name, entry);
    }
    return entry;
  };

  /**
   * Resolves with the job's result once it completes, rejects once it fails for good (or the
   * queue closes). Listening starts at once, so call it before the job is added: no completion
   * can then go unseen, and only a job that was already finished needs a look at its state.
   */
  function finishOf(queue: Queue, events: QueueEvents, jobId: string) {
    let settle: { resolve: (value: unknown) => void; reject: (error: Error) => void } | undefined;
    const promise = new Promise<unknown>((resolve, reject) => {
      settle = { resolve, reject };
    });
    const onCompleted = (args: { returnvalue: unknown }) => settle!.resolve(args.returnvalue);
    const onFailed = (args: { failedReason?: string } | string) =>
      settle!.reject(
        new Error((typeof args === 'string' ? args : args.failedReason) || `step job ${jobId} failed`),
      );
    const onClosing = () => settle!.reject(new Error(`The queue of step job ${jobId} closed.`));
    // Per-job events (`completed:<id>`, what `job.waitUntilFinished` listens to) are untyped.
    const eventsEmitter = events as unknown as EventEmitter;
    const queueEmitter = queue as unknown as EventEmitter;
    eventsEmitter.on(`completed:${jobId}`, onCompleted);
    eventsEmitter.on(`failed:${jobId}`, onFailed);
    queueEmitter.on('closing', onClosing);
    return {
      promise,
      resolve: (value: unknown) => settle!.resolve(value),
      reject: (error: Error) => settle!.reject(error),
      stop() {
        eventsEmitter.off(`completed:${jobId}`, onCompleted);
        eventsEmitter.off(`failed:${jobId}`, onFailed);
        queueEmitter.off('closing', onClosing);
      },
    };
  }

  /**
   * Adds the job, or finds the one a predecessor added: a finished one hands back its result, a
   * failed one is tried again (only a resumed run dispatches an execution twice).
   */
  async function enqueue(
    queue: Queue,
    jobId: string,
    data: StepJobData,
    finish: ReturnType<typeof finishOf>,
    fresh: boolean,
  ): Promise<void> {
    const job = await queue.add('step', data, {
      jobId,
      attempts,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: { age: Math.ceil(retentionMs / 1000) },
      removeOnFail: { age: Math.ceil(retentionMs / 1000) },
    });
    // A fresh run's job is new: the listeners, attached before it was added, see how it ends.
    if (fresh) return;
    // One look at its state covers what the listeners cannot have seen: an earlier finish.
    const state = await queue.getJobState(jobId);
    if (state === 'failed') {
      // Its starts are still counted: a worker takes a job whose attempts started before as one
      // that may have a transcript to continue from (it claims before it runs).
      await job.retry('failed', { resetAttemptsMade: true });
    } else if (state === 'completed') {
      const finished = await queue.getJob(jobId);
      finish.resolve(finished?.returnvalue);
    } else if (state === 'unknown') {
      finish.reject(new Error(`Step job ${jobId} is gone (removed before it finished).`));
    }
  }

  async function stop(queue: Queue, jobId: string): Promise<void> {
    const job = await queue.getJob(jobId);
    const state = job ? await job.getState() : 'unknown';
    if (state === 'waiting' || state === 'delayed' || state === 'prioritized')
      await job?.remove().catch(() => {});
    await client.publish(keys.cancelSteps, jobId);
  }

  async function dispatch(task: StepTask, spec: RunSpec, fresh: boolean): Promise<StepRunOutcome> {
    if (closed)
      throw new ScaleOutError({ code: 'invalid-options', message: 'The step dispatcher is closed.' });
    const { signal } = task;
    if (signal.aborted) throw abortReason(signal);
    const { queue, events, ready } = queueOf(spec.group);
    await ready;
    const jobId = stepJobId(task.runId, task.executionId);
    const data: StepJobData = {
      version: 1,
      runId: task.runId,
      stepId: task.stepId,
      executionId: task.executionId,
      plan: task.snapshot(),
      spec,
    };
    const finish = finishOf(queue, events, jobId);
    finish.promise.catch(() => {});
    let onAbort: (() => void) | undefined;
    let result: StepJobResult;
    try {
      await enqueue(queue, jobId, data, finish, fresh);
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          void stop(queue, jobId).catch(() => {});
          reject(abortReason(signal));
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      aborted.catch(() => {});
      result = parseJob(stepResultSchema, await Promise.race([finish.promise, aborted]), jobId);
    } finally {
      finish.stop();
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
    // The step's events: what attempts that died journaled, then the finishing attempt's (which
    // continued from them). The stream is fenced: no attempt appends after a later one claimed it.
    // A step that ran in one attempt (nearly all) hands its events back in its result: no read.
    const fromResult = result.continued === 0 && result.journal !== undefined;
    const journal = fromResult ? (result.journal as RunEvent[]) : await transcripts.read(jobId);
    const expected = result.continued + result.events;
    if (journal.length !== expected) {
      throw new ScaleOutError({
        code: 'invalid-job',
        message: `Step job ${jobId} journaled ${expected} events but ${fromResult ? 'its result carries' : 'its transcript holds'} ${journal.length} (${fromResult ? 'damaged' : 'expired or damaged'}).`,
        details: { jobId },
      });
    }
    task.adopt(
      journal,
      result.modelUnavailable !== undefined ? { modelUnavailable: result.modelUnavailable } : {},
    );
    return result.outcome as StepRunOutcome;
  }

  return {
    runnerFor(spec, runnerOptions) {
      const fresh = runnerOptions?.fresh === true;
      return (task) => dispatch(task, spec, fresh);
    },
    async close() {
      closed = true;
      for (const { queue, events, eventsClient } of queues.values()) {
        await events.close();
        await queue.close();
        await closeRedis(eventsClient);
      }
      queues.clear();
      await closeRedis(client);
    },
  };
}
