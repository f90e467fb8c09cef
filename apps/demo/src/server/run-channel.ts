import type { RunEvent } from '@closedloop/cortex';

/**
 * Streaming-only event types: cortex never journals them, so they have no index in the run's
 * journal and the web UI does not need them. The channel drops them so that an event's index in
 * the channel is its index in the journal (`readRun`) — the SSE `id:` relies on that.
 */
const liveOnlyEventTypes: ReadonlySet<string> = new Set([
  'text-delta',
  'tool-call-delta',
  'tool-call-progress',
]);

/** True for the events the web server streams and indexes (everything cortex journals). */
export function isIndexedEvent(event: RunEvent): boolean {
  return !liveOnlyEventTypes.has(event.type);
}

/** Receives a run channel's events as they happen. */
export interface RunChannelListener {
  /** One event with its index (its position in the run's journal). */
  onEvent(event: RunEvent, index: number): void;
  /** The run is over: every event has been delivered. `failure` says why when it crashed. */
  onEnd(failure: string | undefined): void;
}

/** The in-memory side of a run this server started: its events so far, its listeners, its abort. */
export interface RunChannel {
  /** Indexed events so far, in journal order. */
  readonly events: readonly RunEvent[];
  /** Aborting it cancels the run (cortex stops with `cancelled`). */
  readonly controller: AbortController;
  /** True once the run's result settled. */
  readonly ended: boolean;
  /** Why the run crashed (its result promise rejected), when it did. */
  readonly failure: string | undefined;
  /** Adds an event (streaming-only types are dropped) and fans it out. */
  push(event: RunEvent): void;
  /** Marks the run over and tells every listener. Idempotent. */
  end(failure?: string): void;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: RunChannelListener): () => void;
}

/** A fresh channel for a run that is about to start. */
export function createRunChannel(): RunChannel {
  const events: RunEvent[] = [];
  const listeners = new Set<RunChannelListener>();
  const controller = new AbortController();
  let ended = false;
  let failure: string | undefined;
  return {
    events,
    controller,
    get ended() {
      return ended;
    },
    get failure() {
      return failure;
    },
    push(event) {
      if (ended || !isIndexedEvent(event)) return;
      events.push(event);
      const index = events.length - 1;
      for (const listener of listeners) {
        try {
          listener.onEvent(event, index);
        } catch {
          // A broken subscriber (a closed socket) must not stop the run or the other viewers.
        }
      }
    },
    end(reason) {
      if (ended) return;
      ended = true;
      failure = reason;
      for (const listener of listeners) {
        try {
          listener.onEnd(reason);
        } catch {
          // Same as above.
        }
      }
      listeners.clear();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
