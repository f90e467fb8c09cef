import { mkdtempSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type CoordinatorEvent,
  createCoordinator,
  createRunClient,
  createStepWorker,
  pingRedis,
  type RunClient,
  type StepWorkerEvent,
} from '@closedloop/bullmq';
import type { RunEvent, RunResult } from '@closedloop/cortex';
import { CliUsageError, type RunOptions } from '../cli-options';
import { isPrimeTask } from '../scenario/is-prime-scenario';
import { scaleOutCortex, scaleOutSpec } from './scale-out-cortex';

/** Where the commands write. */
export interface ScaleOutIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Throws `CliUsageError` unless `store` is a Redis URL that answers (within 3 s). */
export async function reachStore(store: string): Promise<string> {
  checkStoreUrl(store);
  try {
    await pingRedis(store);
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
  return store;
}

/** Throws `CliUsageError` unless `store` is a Redis URL. */
export function checkStoreUrl(store: string): string {
  if (!/^rediss?:\/\/./.test(store)) {
    throw new CliUsageError(
      `--store must be a Redis URL such as redis://127.0.0.1:6379 (runs on files use --journal), got "${store}".`,
    );
  }
  return store;
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolveAbort) => {
    if (signal.aborted) resolveAbort();
    else signal.addEventListener('abort', () => resolveAbort(), { once: true });
  });
}

function describeWorkerEvent(event: StepWorkerEvent): string {
  switch (event.type) {
    case 'step-taken':
      return `took ${event.stepId} of ${event.runId}${event.attempt > 1 ? ` (attempt ${event.attempt}: taken over)` : ''}`;
    case 'step-done':
      return `${event.status} ${event.stepId} of ${event.runId} in ${event.durationMs} ms`;
    case 'step-error':
      return `step ${event.stepId} of ${event.runId} stopped: ${event.error}`;
    case 'worker-error':
      return `error: ${event.error}`;
  }
}

function describeCoordinatorEvent(event: CoordinatorEvent): string {
  switch (event.type) {
    case 'run-taken':
      return `${event.resumed ? 'resuming' : 'running'} ${event.runId}`;
    case 'run-done':
      return `${event.runId} stopped: ${event.stopReason} (${event.durationMs} ms)`;
    case 'run-error':
      return `${event.runId} failed here: ${event.error}`;
    case 'coordinator-error':
      return `error: ${event.error}`;
  }
}

/** `closedloop worker --store redis://…`: runs steps of any run until `signal` aborts. */
export async function runWorker(options: {
  store: string;
  concurrency: number;
  groups: string[];
  shared: boolean;
  io: ScaleOutIo;
  env?: NodeJS.ProcessEnv;
  signal: AbortSignal;
}): Promise<number> {
  const { io } = options;
  const worker = createStepWorker({
    connection: await reachStore(options.store),
    cortex: scaleOutCortex(options.env),
    concurrency: options.concurrency,
    groups: options.groups,
    shared: options.shared,
    onEvent: (event) => io.stdout.write(`worker: ${describeWorkerEvent(event)}\n`),
  });
  await worker.ready();
  const queues = [...(options.shared ? ['shared'] : []), ...options.groups.map((group) => `group ${group}`)];
  io.stdout.write(
    `closedloop worker: running steps from ${options.store} (${queues.join(', ')}; ${options.concurrency} at once). Ctrl-C to stop.\n`,
  );
  await aborted(options.signal);
  await worker.close();
  return 0;
}

/** `closedloop coordinator --store redis://…`: drives queued runs (and takes over orphaned ones) until `signal` aborts. */
export async function runCoordinator(options: {
  store: string;
  concurrency: number;
  io: ScaleOutIo;
  env?: NodeJS.ProcessEnv;
  signal: AbortSignal;
}): Promise<number> {
  const { io } = options;
  const coordinator = createCoordinator({
    connection: await reachStore(options.store),
    cortex: scaleOutCortex(options.env),
    concurrency: options.concurrency,
    onEvent: (event) => io.stdout.write(`coordinator: ${describeCoordinatorEvent(event)}\n`),
  });
  await coordinator.ready();
  io.stdout.write(
    `closedloop coordinator: driving runs from ${options.store} (${options.concurrency} at once). Ctrl-C to stop.\n`,
  );
  await aborted(options.signal);
  await coordinator.close();
  return 0;
}

/** Streams a run's journal to `onEvent` from `from` on until the run's result is in. */
async function follow(
  client: RunClient,
  runId: string,
  from: number,
  onEvent: (event: RunEvent) => void,
): Promise<RunResult> {
  const controller = new AbortController();
  let next = from;
  const tail = (async () => {
    for await (const { index, event } of client.store.tail(runId, {
      from,
      signal: controller.signal,
      blockMs: 500,
    })) {
      next = index + 1;
      onEvent(event);
    }
  })();
  try {
    const result = await client.result(runId);
    // Everything up to run-finished is in the store before the result: deliver what the tail has not.
    controller.abort();
    await tail.catch(() => {});
    for (const { event } of await client.store.readFrom(runId, next)) onEvent(event);
    return result;
  } finally {
    controller.abort();
  }
}

async function warnWhenAlone(client: RunClient, store: string, io: ScaleOutIo): Promise<void> {
  const { coordinators, workers } = await client.connected();
  if (coordinators === 0) {
    io.stderr.write(
      `No coordinator is connected to ${store}: the run waits in the queue. Start one: closedloop coordinator --store ${store}\n`,
    );
  }
  if (workers === 0) {
    io.stderr.write(
      `No worker is connected to ${store}: steps wait in the queue. Start one: closedloop worker --store ${store}\n`,
    );
  }
}

/** A run queued in Redis: its id and workspace at once, its result when a coordinator stops it. */
export interface QueuedRun {
  runId: string;
  workspace: string;
  result: Promise<RunResult>;
}

/** Follows a queued run until its result, cancelling it when `signal` aborts; closes the client after. */
function followUntilDone(
  client: RunClient,
  runId: string,
  from: number,
  signal: AbortSignal,
  onEvent: (event: RunEvent) => void,
): Promise<RunResult> {
  const cancel = () => void client.cancel(runId).catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  return follow(client, runId, from, onEvent).finally(async () => {
    signal.removeEventListener('abort', cancel);
    await client.close();
  });
}

/**
 * `closedloop run --store redis://…`: queues the run for a coordinator and follows its events
 * until it stops. The workspace must be a path every worker can reach (a shared mount; the
 * default temp folder works when they all run on this machine). Aborting `signal` cancels the run.
 */
export async function submitRun(options: {
  store: string;
  task: string | undefined;
  run: RunOptions;
  io: ScaleOutIo;
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
}): Promise<QueuedRun> {
  const store = await reachStore(options.store);
  const task = options.task ?? (options.run.provider === 'scripted' ? isPrimeTask : undefined);
  if (!task) throw new CliUsageError('Give a task: closedloop run "<task>" (the scripted demo has its own).');
  const workspace = options.run.workspace
    ? resolve(options.run.workspace)
    : mkdtempSync(join(tmpdir(), 'closedloop-demo-'));
  await mkdir(workspace, { recursive: true });
  const client = createRunClient({ connection: store });
  try {
    await warnWhenAlone(client, store, options.io);
    const { runId } = await client.submit(scaleOutSpec(options.run, { task, workspace }));
    return { runId, workspace, result: followUntilDone(client, runId, 0, options.signal, options.onEvent) };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** `closedloop resume <runId> --store redis://…`: queues the run again and follows it from where it stopped. */
export async function resumeRun(options: {
  store: string;
  runId: string;
  io: ScaleOutIo;
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
}): Promise<QueuedRun> {
  const store = await reachStore(options.store);
  const client = createRunClient({ connection: store });
  try {
    const events = await client.store.read(options.runId);
    if (events.length === 0) throw new CliUsageError(`No run "${options.runId}" in ${store}.`);
    await warnWhenAlone(client, store, options.io);
    await client.resume(options.runId);
    return {
      runId: options.runId,
      workspace: (await client.spec(options.runId))?.workspace ?? '(unknown)',
      result: followUntilDone(client, options.runId, events.length, options.signal, options.onEvent),
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** The journal of a run in the Redis store (`closedloop report <runId> --store …`), or `undefined`. */
export async function readStoredRun(store: string, runId: string): Promise<RunEvent[] | undefined> {
  const client = createRunClient({ connection: await reachStore(store) });
  try {
    const events = await client.store.read(runId);
    return events.length > 0 ? events : undefined;
  } finally {
    await client.close();
  }
}
