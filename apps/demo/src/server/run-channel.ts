import { type ApprovalDecision, isJournaled, type RunEvent } from '@closedloop/cortex';

/** True for the events the web server indexes (everything cortex journals). */
export function isIndexedEvent(event: RunEvent): boolean {
  return isJournaled(event);
}

/** Receives a run channel's events as they happen. */
export interface RunChannelListener {
  /** One journaled event with its index (its position in the run's journal). */
  onEvent(event: RunEvent, index: number): void;
  /** A live-only event (`text-delta`, `tool-call-progress`…): streamed, never journaled, no index. */
  onLive?(event: RunEvent): void;
  /** The run is over: every event has been delivered. `failure` says why when it crashed. */
  onEnd(failure: string | undefined): void;
}

/** What answering an approval did. */
export type AnswerOutcome = 'answered' | 'unknown' | 'already-resolved';

/** The in-memory side of a run this server runs: its events so far, listeners, abort, approvals. */
export interface RunChannel {
  /** Journaled events so far, in journal order (a resumed run's channel starts with its history). */
  readonly events: readonly RunEvent[];
  /** Aborting it cancels the run (cortex stops with `cancelled`). */
  readonly controller: AbortController;
  /** True once the run's result settled. */
  readonly ended: boolean;
  /** Why the run crashed (its result promise rejected), when it did. */
  readonly failure: string | undefined;
  /** Adds an event (journaled ones get the next index; live-only ones are only fanned out). */
  push(event: RunEvent): void;
  /** Marks the run over, denies the approvals still waiting and tells every listener. Idempotent. */
  end(failure?: string): void;
  subscribe(listener: RunChannelListener): () => void;
  /** The run's approval handler: waits for {@link answerApproval} (or the run's end). */
  waitForApproval(approvalId: string, signal: AbortSignal): Promise<ApprovalDecision>;
  /** A human's answer to an approval the run asked for. */
  answerApproval(approvalId: string, decision: ApprovalDecision): AnswerOutcome;
}

/** A fresh channel for a run about to start, or for a journaled run about to resume (`history`). */
export function createRunChannel(options: { history?: readonly RunEvent[] } = {}): RunChannel {
  const events: RunEvent[] = (options.history ?? []).filter(isIndexedEvent);
  const listeners = new Set<RunChannelListener>();
  const controller = new AbortController();
  const waiting = new Map<string, (decision: ApprovalDecision) => void>();
  /** Answers that arrived between the request event and the handler's call. */
  const early = new Map<string, ApprovalDecision>();
  const answered = new Set<string>();
  let ended = false;
  let failure: string | undefined;

  const each = (call: (listener: RunChannelListener) => void) => {
    for (const listener of listeners) {
      try {
        call(listener);
      } catch {
        // A broken subscriber (a closed socket) must not stop the run or the other viewers.
      }
    }
  };
  const status = (approvalId: string): 'unknown' | 'open' | 'resolved' => {
    let found: 'unknown' | 'open' | 'resolved' = 'unknown';
    for (const event of events) {
      if (event.type === 'approval-requested' && event.approvalId === approvalId) found = 'open';
      if (event.type === 'approval-resolved' && event.approvalId === approvalId) found = 'resolved';
    }
    return found;
  };

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
      if (ended) return;
      if (!isIndexedEvent(event)) {
        each((listener) => listener.onLive?.(event));
        return;
      }
      events.push(event);
      const index = events.length - 1;
      each((listener) => listener.onEvent(event, index));
    },
    end(reason) {
      if (ended) return;
      ended = true;
      failure = reason;
      for (const resolve of waiting.values()) resolve({ approved: false, note: 'the run ended' });
      waiting.clear();
      each((listener) => listener.onEnd(reason));
      listeners.clear();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    waitForApproval(approvalId, signal) {
      const given = early.get(approvalId);
      if (given) {
        early.delete(approvalId);
        return Promise.resolve(given);
      }
      return new Promise((resolve) => {
        const done = (decision: ApprovalDecision) => {
          waiting.delete(approvalId);
          signal.removeEventListener('abort', onAbort);
          resolve(decision);
        };
        const onAbort = () => done({ approved: false, note: 'the run was cancelled' });
        if (signal.aborted || ended) return onAbort();
        waiting.set(approvalId, done);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    answerApproval(approvalId, decision) {
      const state = status(approvalId);
      if (state === 'unknown') return 'unknown';
      if (state === 'resolved' || answered.has(approvalId)) return 'already-resolved';
      answered.add(approvalId);
      const resolve = waiting.get(approvalId);
      if (resolve) resolve(decision);
      else early.set(approvalId, decision);
      return 'answered';
    },
  };
}
