import { isResumableStop, type RunEvent } from '@closedloop/cortex';
import { DemoError } from '../demo-error';
import { noModelMessage } from '../runner/select-model';
import { HttpError } from './http';
import type { RunBackend, RunMode, StartedRun } from './run-backend';
import { createRunChannel, isIndexedEvent, type RunChannel } from './run-channel';

const closeGraceMs = 5_000;

/** HTTP status of a refusal by the backend. */
function statusOf(error: unknown): number {
  if (!DemoError.isInstance(error)) return 500;
  switch (error.code) {
    case 'unknown-run':
      return 404;
    case 'not-resumable':
      return 409;
    default:
      return 400;
  }
}

/** The runs this server started or resumed, each with its channel. */
export interface RunRegistry {
  readonly channels: ReadonlyMap<string, RunChannel>;
  start(input: { task?: string | undefined; mode: RunMode }): Promise<string>;
  resume(runId: string): Promise<string>;
  /** The journaled events (from the backend's journal), `undefined` for an unknown run. */
  journalEvents(runId: string): Promise<RunEvent[] | undefined>;
  /** True when the run is not active here and stopped without finishing for good. */
  isResumable(runId: string, events: readonly RunEvent[]): boolean;
  /** Cancels the active runs and waits (a bounded time) for them to settle. */
  close(): Promise<void>;
}

export function createRunRegistry(backend: RunBackend): RunRegistry {
  const channels = new Map<string, RunChannel>();
  const settling = new Set<Promise<unknown>>();

  const follow = (channel: RunChannel, started: StartedRun) => {
    channels.set(started.runId, channel);
    const done = Promise.resolve(started.result).then(
      () => channel.end(),
      (error: unknown) => channel.end(error instanceof Error ? error.message : String(error)),
    );
    settling.add(done);
    void done.finally(() => settling.delete(done));
  };

  const refuse = (what: string, error: unknown, channel: RunChannel): never => {
    const message = error instanceof Error ? error.message : String(error);
    channel.end(message);
    const status = statusOf(error);
    throw new HttpError(status, status === 500 ? `The run could not ${what}: ${message}` : message);
  };

  const approvalsOf = (channel: RunChannel) => (request: { approvalId: string; signal: AbortSignal }) =>
    channel.waitForApproval(request.approvalId, request.signal);

  return {
    channels,

    async start(input) {
      if (input.task !== undefined && backend.model === null) throw new HttpError(400, noModelMessage());
      const channel = createRunChannel();
      let started: StartedRun;
      try {
        started = await backend.startRun({
          task: input.task,
          mode: input.mode,
          signal: channel.controller.signal,
          onEvent: (event) => channel.push(event),
          onApproval: approvalsOf(channel),
        });
      } catch (error) {
        return refuse('start', error, channel);
      }
      follow(channel, started);
      return started.runId;
    },

    async resume(runId) {
      if (!backend.resumeRun) throw new HttpError(501, 'This server cannot resume runs.');
      const current = channels.get(runId);
      if (current && !current.ended)
        throw new HttpError(409, `Run "${runId}" is already running in this server.`);
      const history = await this.journalEvents(runId);
      if (!history) throw new HttpError(404, `No run "${runId}" in the journal.`);
      if (!this.isResumable(runId, history)) {
        throw new HttpError(409, `Run "${runId}" stopped for good; only interrupted runs resume.`);
      }
      const channel = createRunChannel({ history });
      let started: StartedRun;
      try {
        started = await backend.resumeRun({
          runId,
          signal: channel.controller.signal,
          onEvent: (event) => channel.push(event),
          onApproval: approvalsOf(channel),
        });
      } catch (error) {
        return refuse('resume', error, channel);
      }
      follow(channel, started);
      return started.runId;
    },

    async journalEvents(runId) {
      const events = await backend.readRun(runId);
      return events?.filter(isIndexedEvent);
    },

    isResumable(runId, events) {
      if (!backend.resumeRun) return false;
      const channel = channels.get(runId);
      if (channel && !channel.ended) return false;
      const finished = events.findLast((event) => event.type === 'run-finished');
      return finished ? isResumableStop(finished.stopReason) : events.length > 0;
    },

    async close() {
      for (const channel of channels.values()) {
        if (!channel.ended) channel.controller.abort(new Error('the web server is closing'));
      }
      // Cancelled runs normally settle within a moment; never let a stuck backend hang close().
      await Promise.race([
        Promise.allSettled([...settling]),
        new Promise((resolve) => setTimeout(resolve, closeGraceMs).unref()),
      ]);
    },
  };
}
