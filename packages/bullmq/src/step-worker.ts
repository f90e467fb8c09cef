import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cortex, type CortexOptions, createCortex, type RunEvent } from '@closedloop/cortex';
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, type RedisConnection } from './redis-connection';
import { createRedisWorkspaceLock, type RedisWorkspaceLock } from './redis-workspace-lock';
import { ScaleOutError } from './scale-out-error';
import {
  checkGroup,
  parseJob,
  type RunSpec,
  type StepJobData,
  type StepJobResult,
  stepJobSchema,
  stepQueueName,
} from './step-jobs';
import { createStepTranscripts, type StepTranscripts, UnclaimedTranscriptError } from './step-transcripts';
import { positiveInteger, resolveWorkerSettings } from './worker-settings';

/** Builds a run's cortex options from its spec: the same function for coordinators and workers. */
export type CortexFactory = (
  spec: RunSpec,
  context: { runId: string },
) => Omit<CortexOptions, 'store' | 'stepRunner'> | Promise<Omit<CortexOptions, 'store' | 'stepRunner'>>;

/** What a step worker reports as it works (for logs). */
export type StepWorkerEvent =
  | { type: 'step-taken'; jobId: string; runId: string; stepId: string; attempt: number }
  | { type: 'step-done'; jobId: string; runId: string; stepId: string; status: string; durationMs: number }
  | { type: 'step-error'; jobId: string; runId: string; stepId: string; error: string }
  /**
   * The step waited on the workspace lock of a worker that died, whose own step waits for a slot:
   * it went back to the queue (delayed `delayMs`) to free its slot, and continues from its
   * transcript when taken again.
   */
  | { type: 'step-yielded'; jobId: string; runId: string; stepId: string; delayMs: number }
  | { type: 'worker-error'; error: string };

/** Options of {@link createStepWorker}. */
export interface StepWorkerOptions {
  connection: RedisConnection;
  /** Key prefix shared by every process of the deployment. Default `closedloop`. */
  prefix?: string;
  /** Builds a run's cortex (model, tools over the run's workspace, verifier settings) from its spec. */
  cortex: CortexFactory;
  /** Steps this worker runs at once. Default 4. */
  concurrency?: number;
  /** Take steps from the shared `steps` queue. Default true. */
  shared?: boolean;
  /** Also take the steps of runs pinned to these groups (`spec.group`): runs whose workspace only this machine holds. */
  groups?: readonly string[];
  /**
   * BullMQ lock of a running step: renewed every `lockDurationMs / 2`; a step whose worker stops
   * renewing it (dead, frozen) is handed to another worker after this long. Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** How often this worker looks for steps whose lock expired. Default `lockDurationMs`. */
  stalledIntervalMs?: number;
  /** Hand-overs of one step before it fails for good. Default 5. */
  maxStalledCount?: number;
  /** How long transcripts are kept (match the dispatcher's). Default 7 days. */
  retentionMs?: number;
  /** A name for this worker in Redis `CLIENT LIST` and job records. Default `<host>:<pid>`. */
  name?: string;
  /**
   * Runs once before the worker takes its first step (`ready()` resolves after it): prepare what
   * steps need so the first real ones do not pay for it — load the modules they load lazily
   * (a verifier's parsers), or run a step of your own, with a scripted model and no journal, on a
   * scratch workspace, so the JIT has compiled the executor and verifier. It runs before the
   * worker takes any job and is given none: nothing it does reaches a run or its journal. When it
   * throws, `ready()` rejects and the worker takes no step.
   */
  warmUp?: () => void | Promise<void>;
  onEvent?: (event: StepWorkerEvent) => void;
}

/** A running step worker. */
export interface StepWorker {
  /** Resolves once the worker is connected and taking jobs. */
  ready(): Promise<void>;
  /** Stops taking steps, waits for the running ones, closes the connections. */
  close(): Promise<void>;
}

/**
 * The `journal` of one attempt of a step: the events cortex hands over together (one group
 * commit, handed over back to back) go to Redis as one fenced script call — one round trip and
 * one write per group instead of one per event. Each event's promise resolves once its group is
 * in Redis; groups are written in order, each only after the previous one succeeded, and after a
 * failure (fenced, Redis error) nothing more is written: the transcript stays a prefix of the
 * step's events. Groups are numbered (1, 2, … per attempt): one that ioredis resends after a
 * reconnect (its first reply lost) is appended once. With `claim`, the first group claims the
 * transcript (the job's first attempt, which did not claim it before it started): `unclaimed()`
 * says whether it found events of earlier attempts there instead (nothing written, the step
 * stopped at its first commit point, before it acted).
 */
function transcriptJournal(
  transcripts: StepTranscripts,
  jobId: string,
  attempt: string,
  claim: boolean,
): {
  write: (event: RunEvent, json: string | undefined) => Promise<void>;
  written: () => number;
  unclaimed: () => boolean;
} {
  let written = 0;
  let groups = 0;
  let unclaimed = false;
  let previous: Promise<void> = Promise.resolve();
  let batch: { events: RunEvent[]; json: (string | undefined)[]; done: Promise<void> } | undefined;
  return {
    write(event, json) {
      if (batch === undefined) {
        const events: RunEvent[] = [];
        const texts: (string | undefined)[] = [];
        // Numbered, so a group ioredis resends after a reconnect is appended once.
        const group = ++groups;
        // Sent once the current synchronous run of calls (the group) is over, after the previous group.
        const done = previous.then(async () => {
          batch = undefined;
          try {
            await transcripts.append({
              jobId,
              attempt,
              group,
              events,
              json: texts,
              claim: claim && group === 1,
            });
          } catch (error) {
            unclaimed = error instanceof UnclaimedTranscriptError;
            throw error;
          }
          written += events.length;
        });
        batch = { events, json: texts, done };
        previous = done;
      }
      batch.events.push(event);
      // The event's JSON as cortex serialized it when it was emitted: not serialized again.
      batch.json.push(json);
      return batch.done;
    },
    written: () => written,
    unclaimed: () => unclaimed,
  };
}

/** Why a step's attempt stopped to free its slot (see {@link StepWorkerEvent} `step-yielded`). */
class LockYield extends Error {
  constructor() {
    super('the step waits on a dead holder of the workspace lock whose step waits for a slot');
  }
}

/** Where a workspace keeps its identity (a random id, created by the first worker that needs it). */
const workspaceIdFile = join('.closedloop', 'workspace-id');

/**
 * The identity of the folder `root`: the id in its `.closedloop/workspace-id` (created when
 * missing; two workers creating it at once agree: the first link wins, the other reads it) and
 * that file's inode. The same files reached by another path (a mount point, a link, the same
 * network share on another machine) have the same identity; another folder has another — a copy
 * too, even one that copied the id (its file has another inode).
 */
function workspaceIdentity(root: string): string {
  const file = join(root, workspaceIdFile);
  let id: string;
  try {
    id = readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(join(root, '.closedloop'), { recursive: true });
    // Written whole under a name of its own, then linked into place (link never replaces): a
    // worker on another process or machine sees no file or the whole id, never a half-written one.
    const draft = `${file}.${randomUUID()}`;
    writeFileSync(draft, `${randomUUID()}\n`);
    try {
      linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(draft, { force: true });
    }
    id = readFileSync(file, 'utf8').trim();
  }
  return `${id}@${statSync(file).ino}`;
}

/**
 * A `closedloop worker`: takes step jobs from the BullMQ step queue (any number of workers, on
 * any machine that reaches Redis and the runs' workspaces) and runs each with
 * `cortex.runStep` — the same executor and verifier as in-process — journaling every event to
 * the job's transcript in Redis as it happens. Each attempt first claims the transcript, so an
 * attempt that lost its lock (its worker froze and the step was handed over) can no longer
 * journal and stops. The job completes with the outcome; the coordinator adopts the transcript.
 *
 * A worker that dies mid-step stops renewing the job's lock; BullMQ's stalled-job check (run by
 * every worker) hands the step to another worker, which claims the transcript and runs it again.
 *
 * @example
 * const worker = createStepWorker({
 *   connection: 'redis://127.0.0.1:6379',
 *   cortex: (spec) => ({ model, tools: workspaceTools({ root: spec.workspace! }), workspace: spec.workspace }),
 *   concurrency: 8,
 * });
 */
export function createStepWorker(options: StepWorkerOptions): StepWorker {
  const settings = resolveWorkerSettings(options, { maxStalledCount: 5 });
  const { connection, prefix, keys, name } = settings;
  const retentionMs = positiveInteger(options.retentionMs, 'retentionMs', 7 * 24 * 60 * 60 * 1000);
  const groups = (options.groups ?? []).map((group) => checkGroup(group)!);
  const queueNames = [...(options.shared === false ? [] : [stepQueueName()]), ...groups.map(stepQueueName)];
  if (queueNames.length === 0) {
    throw new ScaleOutError({
      code: 'invalid-options',
      message: 'A worker with shared: false needs at least one group to take steps from.',
    });
  }
  if (options.warmUp !== undefined && typeof options.warmUp !== 'function') {
    throw new ScaleOutError({ code: 'invalid-options', message: 'warmUp must be a function.' });
  }
  const client = connectRedis(connection, `${prefix}:worker`);
  const transcripts = createStepTranscripts({ client, keys, retentionMs });
  const running = new Map<string, AbortController>();
  const cortexes = new Map<string, Promise<{ cortex: Cortex; workspace: string | undefined }>>();

  /**
   * Refuses (for good) a step whose workspace is not the one the run's steps act on: the first
   * worker to run a step of the run records its workspace's identity in Redis; every later step,
   * on any worker, must find the same identity in its own workspace.
   */
  /** Runs whose recorded workspace identity this worker has seen match its own (run id → identity). */
  const matched = new Map<string, string>();
  const checkWorkspace = async (
    data: StepJobData,
    workspace: string | undefined,
  ): Promise<string | undefined> => {
    if (workspace === undefined) return undefined;
    const mine = workspaceIdentity(workspace);
    // The recorded identity never changes once set (`NX`): a run whose steps this worker already
    // found acting on this very workspace needs no round trip (the folder is still checked above).
    if (matched.get(data.runId) === mine) return mine;
    const key = keys.workspace(data.runId);
    // One round trip: record this workspace unless one is recorded, then read what is.
    const replies = await client.pipeline().set(key, mine, 'PX', retentionMs, 'NX').get(key).exec();
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (failed) throw failed;
    const recorded = (replies?.[1]?.[1] as string | null | undefined) ?? null;
    if (recorded !== null && recorded !== mine) {
      const error = new ScaleOutError({
        code: 'workspace-mismatch',
        message: `Worker ${name} refuses step ${data.stepId} of run ${data.runId}: its workspace ${workspace} is not the folder the run's steps act on (workspace id ${mine}, the run's is ${recorded}: another folder or a copy). Point this worker's cortex factory at the run's workspace.`,
        details: { runId: data.runId, stepId: data.stepId, workspace },
      });
      // Not retried: no attempt on this worker can act on the right files.
      throw new UnrecoverableError(`${error.code}: ${error.message}`);
    }
    matched.set(data.runId, mine);
    // A worker serves many runs over its life: remember the latest few.
    if (matched.size > 256) matched.delete(matched.keys().next().value as string);
    return mine;
  };

  const cortexFor = (data: StepJobData): Promise<{ cortex: Cortex; workspace: string | undefined }> => {
    let cortex = cortexes.get(data.runId);
    if (cortex === undefined) {
      cortex = Promise.resolve(options.cortex(data.spec, { runId: data.runId })).then((cortexOptions) => ({
        cortex: createCortex({ ...cortexOptions, store: false }),
        workspace: cortexOptions.workspace,
      }));
      cortex.catch(() => cortexes.delete(data.runId));
      cortexes.set(data.runId, cortex);
      // A worker serves many runs over its life: keep the cortexes of the latest few.
      if (cortexes.size > 32) cortexes.delete(cortexes.keys().next().value as string);
    }
    return cortex;
  };

  const subscriber: Redis = connectRedis(connection, `${prefix}:worker-cancel`);
  const subscribed = subscriber.subscribe(keys.cancelSteps);
  subscriber.on('message', (_channel: string, jobId: string) => {
    running.get(jobId)?.abort(
      new ScaleOutError({
        code: 'step-cancelled',
        message: `Step job ${jobId} was cancelled: its run stopped.`,
      }),
    );
  });

  async function processStep(
    job: Job,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<StepJobResult> {
    const jobId = job.id!;
    const data = parseJob(stepJobSchema, job.data, jobId);
    // Unique per attempt: BullMQ hands a worker's token on to the next job it fetches on
    // completion, so the same job taken again by the same worker (after it went back to the
    // queue) may come with the same token — and a transcript tells attempts apart by this.
    const attempt = `${token ?? name}/${randomUUID().slice(0, 8)}`;
    const started = performance.now();
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener('abort', forward, { once: true });
    running.set(jobId, controller);
    let workspaceLock: RedisWorkspaceLock | undefined;
    options.onEvent?.({
      type: 'step-taken',
      jobId,
      runId: data.runId,
      stepId: data.stepId,
      attempt: job.attemptsStarted,
    });
    try {
      const { cortex, workspace } = await cortexFor(data);
      const identity = await checkWorkspace(data, workspace);
      // The run's steps on this workspace, on every worker, share one readers-writer lock: a call
      // judged on resume by the workspace's fingerprint acts alone (see redis-workspace-lock.ts).
      if (identity !== undefined) {
        workspaceLock = createRedisWorkspaceLock({
          client,
          key: keys.workspaceLock(data.runId, identity),
          queuePrefix: prefix,
          owner: jobId,
          attempt,
          queue: job.queueName,
          ttlMs: settings.lockDuration,
          retentionMs,
          signal: controller.signal,
          onLost: (error) => controller.abort(error),
          onYield: () => controller.abort(new LockYield()),
        });
      }
      // The job's first start (no attempt before it, not a retry): no history to read, so the
      // step's first group claims the transcript (one round trip less). Any later attempt claims
      // first — fencing off earlier attempts — and continues from what they journaled (durable
      // replay), so a killed worker's effects are not repeated.
      const first = job.attemptsStarted <= 1 && !job.stalledCounter && !job.attemptsMade;
      const claimed = async () => (await transcripts.claim(jobId, attempt)).map((entry) => entry.event);
      const runFrom = (history: RunEvent[], journal: ReturnType<typeof transcriptJournal>) =>
        cortex.runStep({
          runId: data.runId,
          request: data.spec.request,
          stepId: data.stepId,
          plan: data.plan,
          history,
          signal: controller.signal,
          journal: journal.write,
          ...(workspaceLock !== undefined ? { workspaceLock } : {}),
        });
      let history: RunEvent[] = first ? [] : await claimed();
      let journal = transcriptJournal(transcripts, jobId, attempt, first);
      let ran: Awaited<ReturnType<typeof runFrom>>;
      try {
        ran = await runFrom(history, journal);
      } catch (error) {
        // The transcript held events after all (an earlier incarnation of the job id): the step
        // stopped at its first commit point, before it acted. Claim, and continue from them.
        if (!journal.unclaimed()) throw error;
        history = await claimed();
        journal = transcriptJournal(transcripts, jobId, attempt, false);
        ran = await runFrom(history, journal);
      }
      const { outcome, events, modelUnavailable } = ran;
      if (controller.signal.aborted) {
        const reason = controller.signal.reason;
        throw ScaleOutError.isInstance(reason) && reason.code === 'step-cancelled'
          ? new UnrecoverableError(reason.message)
          : reason instanceof Error
            ? reason
            : new Error(String(reason));
      }
      options.onEvent?.({
        type: 'step-done',
        jobId,
        runId: data.runId,
        stepId: data.stepId,
        status: outcome.status,
        durationMs: Math.round(performance.now() - started),
      });
      // BullMQ stores the result as JSON (the coordinator reads it back from Redis): no copy needed.
      // The step's events ride along (every one is in the transcript too: the coordinator need
      // not read them back).
      return {
        outcome,
        attempt,
        events: journal.written(),
        journal: events,
        continued: history.length,
        ...(modelUnavailable !== undefined ? { modelUnavailable } : {}),
      };
    } catch (error) {
      if (controller.signal.reason instanceof LockYield && token !== undefined) {
        // Back to the queue, without counting as a failed attempt: the next attempt claims the
        // transcript and continues from it (this one did not start the call it waited for).
        const delayMs = Math.max(50, Math.floor(settings.lockDuration / 2));
        await job.moveToDelayed(Date.now() + delayMs, token);
        options.onEvent?.({ type: 'step-yielded', jobId, runId: data.runId, stepId: data.stepId, delayMs });
        throw new DelayedError();
      }
      options.onEvent?.({
        type: 'step-error',
        jobId,
        runId: data.runId,
        stepId: data.stepId,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      await workspaceLock?.close();
      running.delete(jobId);
      signal?.removeEventListener('abort', forward);
    }
  }

  const queueClients: Redis[] = [];
  const workers = queueNames.map((queueName) => {
    const queueClient = connectRedis(connection, `${prefix}:worker-queue`);
    queueClients.push(queueClient);
    const worker = new Worker(
      queueName,
      (job: Job, token?: string, signal?: AbortSignal) => processStep(job, token, signal),
      {
        connection: queueClient,
        ...settings.bullmq,
        // Started once the warm-up is over (see `started` below).
        autorun: false,
        removeOnComplete: { age: Math.ceil(retentionMs / 1000) },
        removeOnFail: { age: Math.ceil(retentionMs / 1000) },
      },
    );
    // A lost lock means another worker may take the step: stop journaling now.
    worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const jobId of jobIds) running.get(jobId)?.abort(new Error(`lost the lock of step job ${jobId}`));
    });
    // ioredis reconnects by itself; failed jobs are reported as step-error.
    worker.on('error', (error: Error) => options.onEvent?.({ type: 'worker-error', error: error.message }));
    return worker;
  });

  let closing = false;
  // The warm-up runs before any worker takes a job; the workers start only if it succeeded.
  const started = (async () => {
    await options.warmUp?.();
    if (closing) return;
    for (const worker of workers) {
      worker.run().catch((error: unknown) =>
        options.onEvent?.({
          type: 'worker-error',
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  })();
  started.catch(() => {});

  return {
    async ready() {
      await started;
      await subscribed;
      await Promise.all(workers.map((worker) => worker.waitUntilReady()));
    },
    async close() {
      closing = true;
      await started.catch(() => {});
      await Promise.all(workers.map((worker) => worker.close()));
      for (const queueClient of queueClients) await closeRedis(queueClient);
      await closeRedis(subscriber);
      await closeRedis(client);
    },
  };
}
