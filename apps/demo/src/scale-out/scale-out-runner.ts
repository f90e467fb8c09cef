import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createRedisRunStore,
  createRunClient,
  type IndexedEvent,
  pingRedis,
  type RunClient,
  type StoredRun,
} from '@closedloop/bullmq';
import { CortexError, isResumableStop, type RunEvent, type RunResult } from '@closedloop/cortex';
import { DemoError } from '../demo-error';
import type { DemoRunner, RunInfo, StartedRun } from '../runner/demo-runner';
import { ensureFolder } from '../runner/ensure-folder';
import {
  describeSelection,
  type ModelInfo,
  type ModelSelection,
  noModelMessage,
} from '../runner/select-model';
import { isPrimeTask } from '../scenario/is-prime-scenario';
import { scaleOutRunSpec, scaleOutSettings } from './scale-out-cortex';

/** Settings of {@link createScaleOutRunner}. */
export interface ScaleOutRunnerOptions {
  /** The Redis URL (`--store`). */
  store: string;
  /** Where runs work: a path every worker reaches. Default: a fresh temp folder (workers on this machine). */
  workspace?: string | undefined;
  model?: ModelSelection | undefined;
  concurrency?: number;
  maxIterations?: number;
  budgetTokens?: number | undefined;
  /** Only workers of this group run the steps (run affinity: the machines that hold the workspace). */
  group?: string;
  /** Where warnings go (no coordinator or worker connected). */
  warn?: (line: string) => void;
}

/** A runner whose runs live in Redis; coordinators and workers drive them. */
export interface ScaleOutRunner extends DemoRunner {
  /** Runs in the store, most recently written first. */
  listRuns(): Promise<StoredRun[]>;
  /** A run's events from `from` on, then live, until `signal` aborts. */
  followRun(runId: string, options: { from: number; signal: AbortSignal }): AsyncIterable<IndexedEvent>;
  /** Asks the coordinator that drives the run to stop it (`cancelled`; it can be resumed). */
  cancelRun(runId: string): Promise<void>;
  close(): Promise<void>;
}

/** Throws `DemoError('invalid-argument')` unless `store` is a Redis URL. */
export function checkStoreUrl(store: string): string {
  if (!/^rediss?:\/\/./.test(store)) {
    throw new DemoError(
      'invalid-argument',
      `--store must be a Redis URL such as redis://127.0.0.1:6379 (runs on files use --journal), got "${store}".`,
    );
  }
  return store;
}

/** Throws a `DemoError` unless `store` is a Redis URL that answers within 3 s. */
export async function reachStore(store: string): Promise<string> {
  checkStoreUrl(store);
  try {
    await pingRedis(store);
  } catch (error) {
    throw new DemoError('invalid-argument', error instanceof Error ? error.message : String(error));
  }
  return store;
}

const demoModel: ModelInfo = { provider: 'scripted', modelId: 'scripted-is-prime' };

/** Streams a run's journal to `onEvent` from `from` on, until its result is in, then closes the client. */
async function followToResult(
  client: RunClient,
  runId: string,
  from: number,
  signal: AbortSignal,
  onEvent: (event: RunEvent) => void,
): Promise<RunResult> {
  const cancel = () => void client.cancel(runId).catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  const tailing = new AbortController();
  let next = from;
  const tail = (async () => {
    for await (const { index, event } of client.store.tail(runId, {
      from,
      signal: tailing.signal,
      blockMs: 500,
    })) {
      next = index + 1;
      onEvent(event);
    }
  })();
  try {
    const result = await client.result(runId);
    // The run's whole journal is in Redis before its result: deliver what the tail has not yet.
    tailing.abort();
    await tail.catch(() => {});
    for (const { event } of await client.store.readFrom(runId, next)) onEvent(event);
    return result;
  } finally {
    tailing.abort();
    signal.removeEventListener('abort', cancel);
    await client.close();
  }
}

/**
 * The demo's runner on Redis (`--store redis://…`): `startRun` queues the run for a coordinator
 * (`closedloop coordinator`) whose steps workers run (`closedloop worker`), and follows it from
 * Redis; aborting its signal cancels the run wherever it runs. `resumeRun` queues a stopped run
 * again; `readRun`, `describeRun`, `listRuns` and `followRun` read the store — from any machine.
 * Approvals of scale-out runs are answered by the workers and coordinators (denied without a
 * handler there); per-step workspace changes are not recorded.
 */
export function createScaleOutRunner(options: ScaleOutRunnerOptions): ScaleOutRunner {
  const store = checkStoreUrl(options.store);
  // The long-lived connection of listRuns/followRun (the web server's), opened on first use.
  let watcher: ReturnType<typeof createRedisRunStore> | undefined;
  const watch = () => {
    watcher ??= createRedisRunStore({ connection: store });
    return watcher;
  };
  const typedModel = options.model ? describeSelection(options.model) : null;

  const client = async (): Promise<RunClient> => {
    await reachStore(store);
    return createRunClient({ connection: store });
  };
  const warnWhenAlone = async (runs: RunClient) => {
    const { coordinators, workers } = await runs.connected();
    if (coordinators === 0) {
      options.warn?.(
        `No coordinator is connected to ${store}: the run waits in the queue. Start one: closedloop coordinator --store ${store}`,
      );
    }
    if (workers === 0) {
      options.warn?.(
        `No worker is connected to ${store}: steps wait in the queue. Start one: closedloop worker --store ${store}`,
      );
    }
  };
  const modelOf = (settings: ReturnType<typeof scaleOutSettings>): ModelInfo =>
    settings.demo || !settings.selection ? demoModel : describeSelection(settings.selection);

  return {
    journal: store,
    model: typedModel,

    async startRun(input): Promise<StartedRun> {
      const demo = input.task === undefined;
      if (!demo && !options.model) throw new DemoError('no-model', noModelMessage());
      const workspace = options.workspace
        ? ensureFolder(options.workspace, '--workspace')
        : mkdtempSync(join(tmpdir(), 'closedloop-demo-'));
      const settings = {
        demo,
        ...(!demo && options.model ? { selection: options.model } : {}),
        mode: input.mode,
        concurrency: options.concurrency ?? 4,
        maxIterations: options.maxIterations ?? 3,
        ...(options.budgetTokens !== undefined ? { budgetTokens: options.budgetTokens } : {}),
      };
      const runs = await client();
      try {
        await warnWhenAlone(runs);
        const spec = scaleOutRunSpec({ task: input.task ?? isPrimeTask, workspace, settings });
        const { runId } = await runs.submit(
          options.group === undefined ? spec : { ...spec, group: options.group },
        );
        return {
          runId,
          workspace,
          model: modelOf(settings),
          result: followToResult(runs, runId, 0, input.signal, input.onEvent),
        };
      } catch (error) {
        await runs.close();
        throw error;
      }
    },

    async resumeRun(input): Promise<StartedRun> {
      const runs = await client();
      try {
        const events = await runs.store.read(input.runId);
        if (events.length === 0) throw new DemoError('unknown-run', `No run "${input.runId}" in ${store}.`);
        const finished = events.findLast((event) => event.type === 'run-finished');
        if (finished && !isResumableStop(finished.stopReason)) {
          throw new DemoError(
            'not-resumable',
            `Run "${input.runId}" stopped for good (${finished.stopReason}); only cancelled, deadline, budget-exhausted or crashed runs resume.`,
          );
        }
        const spec = await runs.spec(input.runId);
        await warnWhenAlone(runs);
        await runs.resume(input.runId);
        return {
          runId: input.runId,
          workspace: spec?.workspace ?? '(unknown)',
          model: spec ? modelOf(scaleOutSettings(spec)) : demoModel,
          result: followToResult(runs, input.runId, events.length, input.signal, input.onEvent),
        };
      } catch (error) {
        await runs.close();
        throw error;
      }
    },

    async readRun(runId) {
      const reader = createRedisRunStore({ connection: await reachStore(store) });
      try {
        const events = await reader.read(runId);
        return events.length > 0 ? events : undefined;
      } finally {
        await reader.close();
      }
    },

    async inspectRun(runId) {
      const reader = createRedisRunStore({ connection: await reachStore(store) });
      try {
        const events = await reader.read(runId);
        return { exists: events.length > 0, events };
      } catch (error) {
        if (CortexError.isInstance(error)) return { exists: true, events: [], problem: error };
        throw error;
      } finally {
        await reader.close();
      }
    },

    async describeRun(runId): Promise<RunInfo | undefined> {
      const runs = createRunClient({ connection: store });
      try {
        const spec = await runs.spec(runId);
        if (!spec) return undefined;
        const settings = scaleOutSettings(spec);
        return {
          runId,
          workspace: spec.workspace ?? '(unknown)',
          model: modelOf(settings),
          demo: settings.demo,
        };
      } finally {
        await runs.close();
      }
    },

    async readStepChanges() {
      return [];
    },

    async cancelRun(runId) {
      const runs = await client();
      try {
        await runs.cancel(runId);
      } finally {
        await runs.close();
      }
    },

    listRuns: () => watch().runs(),
    followRun: (runId, { from, signal }) => watch().tail(runId, { from, signal }),
    async close() {
      await watcher?.close();
      watcher = undefined;
    },
  };
}
