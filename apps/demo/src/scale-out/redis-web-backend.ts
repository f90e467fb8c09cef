import { createRedisRunStore } from '@closedloop/bullmq';
import type { RunOptions } from '../cli-options';
import type {
  FollowRunFunction,
  ListRunsFunction,
  ReadRunFunction,
  StartRunFunction,
} from '../server/web-server';
import { checkStoreUrl, type ScaleOutIo, submitRun } from './scale-out-commands';

/** What `closedloop serve --store redis://…` gives the web server: runs live in Redis, driven by coordinators. */
export interface RedisWebBackend {
  startRun: StartRunFunction;
  readRun: ReadRunFunction;
  listRuns: ListRunsFunction;
  followRun: FollowRunFunction;
  close(): Promise<void>;
}

/**
 * The web server's run backend on Redis: "start" queues the run for a coordinator (the page
 * follows it like a local one; Cancel cancels it wherever it runs), the list and every run's
 * events come from the Redis store, and runs driven by other processes stream live.
 */
export function createRedisWebBackend(options: {
  store: string;
  run: RunOptions;
  io: ScaleOutIo;
}): RedisWebBackend {
  const store = createRedisRunStore({ connection: checkStoreUrl(options.store) });
  return {
    async startRun(input) {
      return submitRun({
        store: options.store,
        task: input.task,
        run: { ...options.run, mode: input.mode, workspace: undefined },
        io: options.io,
        signal: input.signal,
        onEvent: input.onEvent,
      });
    },
    async readRun(runId) {
      const events = await store.read(runId);
      return events.length > 0 ? events : undefined;
    },
    listRuns: () => store.runs(),
    followRun: (runId, { from, signal }) => store.tail(runId, { from, signal }),
    close: () => store.close(),
  };
}
