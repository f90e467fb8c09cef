import { existsSync } from 'node:fs';
import { createJsonlRunStore, createRunId, type RunEvent } from '@closedloop/cortex';
import { scriptedRunEvents } from '../../__fixtures__/scripted-run-events';
import type { ReadRunFunction, StartRunFunction } from '../web-server';

/** Options of {@link createFakeRunBackend}. */
export interface FakeRunBackendOptions {
  /** Where the JSONL journals go (cortex's real `createJsonlRunStore`). */
  journalDir: string;
  /** Base delay in ms: model and tool calls take 2× this, other events ¼ of it. Default 100. */
  paceMs?: number;
  /** Makes `startRun` reject (to test the 500 path). */
  failStart?: string;
  /** Makes the result promise reject after this many events (a backend crash without `run-finished`). */
  crashAfter?: number;
}

/** A run backend for tests: replays {@link scriptedRunEvents} with delays, journals them, honours abort. */
export interface FakeRunBackend {
  startRun: StartRunFunction;
  readRun: ReadRunFunction;
  /** Inputs `startRun` received (without the callbacks). */
  calls: Array<{ task: string | undefined; mode: string }>;
}

/**
 * Stands in for `run-task.ts` in the server tests: same interface, real journal files, real
 * timing and cancellation, but a fixed event sequence instead of a cortex run.
 */
export function createFakeRunBackend(options: FakeRunBackendOptions): FakeRunBackend {
  const store = createJsonlRunStore({ dir: options.journalDir });
  const pace = options.paceMs ?? 100;
  const calls: FakeRunBackend['calls'] = [];

  const startRun: StartRunFunction = async ({ task, mode, signal, onEvent }) => {
    calls.push({ task, mode });
    if (options.failStart) throw new Error(options.failStart);
    const runId = createRunId();
    const script = scriptedRunEvents({ runId, request: task ?? 'Add an isPrime(n) function with tests.' });
    const emit = async (event: RunEvent) => {
      const stamped = { ...event, at: Date.now() } as RunEvent;
      await store.append(runId, stamped);
      onEvent(stamped);
    };
    const wait = (ms: number) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });

    const result = (async () => {
      const open = new Map<string, RunEvent & { type: 'tool-call-started' }>();
      const running = new Set<string>();
      let previous: string | undefined;
      let count = 0;
      for (const event of script) {
        await wait(
          previous === 'model-call-started' || previous === 'tool-call-started' ? pace * 2 : pace / 4,
        );
        if (signal.aborted) break;
        if (options.crashAfter !== undefined && count >= options.crashAfter)
          throw new Error('backend crashed');
        await emit(event);
        count += 1;
        previous = event.type;
        if (event.type === 'step-started') running.add(event.stepId);
        if (event.type === 'step-finished') running.delete(event.stepId);
        if (event.type === 'tool-call-started') open.set(event.callId, event);
        if (event.type === 'tool-call-finished') open.delete(event.callId);
      }
      if (signal.aborted) {
        let seq = script.filter((event) => 'seq' in event).length + 1000;
        for (const stepId of running) {
          await emit({
            type: 'step-finished',
            runId,
            at: 0,
            stepId,
            status: 'interrupted',
            unverified: false,
            durationMs: 0,
          });
        }
        for (const call of open.values()) {
          const { runId: id, planId, stepId, callId } = call;
          await emit({
            type: 'tool-call-finished',
            runId: id,
            planId,
            seq: seq++,
            at: 0,
            stepId,
            callId,
            status: 'error',
            error: 'aborted',
          });
        }
        await emit({
          type: 'run-finished',
          runId,
          at: 0,
          stopReason: 'cancelled',
          reason: 'the caller aborted: cancelled from the web UI',
          answer: 'The run was cancelled before it finished.',
          answerSource: 'fallback',
        });
        return { stopReason: 'cancelled' as const };
      }
      return { stopReason: 'completed-with-warnings' as const };
    })();
    return { runId, result };
  };

  const readRun: ReadRunFunction = async (runId) => {
    if (!existsSync(store.pathOf(runId))) return undefined;
    return store.read(runId);
  };

  return { startRun, readRun, calls };
}
