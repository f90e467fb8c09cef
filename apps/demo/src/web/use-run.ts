import type { RunEvent } from '@closedloop/cortex';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { applyRunEvent, createRunState, type RunState } from '../run-state/run-state';
import type { ModelInfo } from '../runner/select-model';
import { parseShownJson } from '../view/bidi-controls';
import { api, runPath } from './api';

/** A run as the page follows it. */
export interface FollowedRun {
  runId: string | null;
  state: RunState;
  /** Bumped on every change (the state is mutated in place by the shared fold). */
  revision: number;
  active: boolean;
  resumable: boolean;
  model: ModelInfo | null;
  workspace: string | null;
  connection: 'none' | 'connecting' | 'live' | 'reconnecting';
  /** The first answer of `GET /api/runs/:id` arrived. */
  loaded: boolean;
  /** The server ended the event stream (the run stopped, or it is not running here). */
  ended: boolean;
  /** Why the run's process failed, when the stream said so. */
  crash: string | null;
  loadError: string | null;
  /** How many loads of `GET /api/runs/:id` this page has finished (any run): `reload()` adds one. */
  loads: number;
  /** Loads the run again (after a resume). */
  reload(): void;
}

/** What the hook keeps about the run it follows (mutated as events arrive). */
type Followed = Omit<FollowedRun, 'runId' | 'revision' | 'reload' | 'loads'> & { forRunId: string | null };

function blank(runId: string | null): Followed {
  return {
    forRunId: runId,
    state: createRunState(),
    active: false,
    resumable: false,
    model: null,
    workspace: null,
    connection: 'none',
    ended: false,
    crash: null,
    loadError: null,
    loaded: false,
  };
}

/**
 * Loads a run's journaled events (`GET /api/runs/:id`), folds them with the shared fold, then
 * follows the run live over SSE from where the journal ended: journaled events by index (a
 * reconnect resumes after the last one), live-only ones (`text-delta`) as they come.
 */
export function useRun(runId: string | null): FollowedRun {
  const [revision, setRevision] = useState(0);
  const [load, setLoad] = useState(0);
  const ref = useRef<Followed>(blank(null));
  const loads = useRef(0);
  const frame = useRef(0);
  // Deltas can come by the hundred per second: repaint at most once per animation frame.
  const bump = useCallback(() => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setRevision((value) => value + 1);
    });
  }, []);

  useEffect(() => {
    const current = blank(runId);
    ref.current = current;
    setRevision((value) => value + 1);
    if (runId === null) return;
    let closed = false;
    let source: EventSource | undefined;
    let next = 0;
    const refreshInfo = async () => {
      try {
        const info = await api.readRun(runId);
        if (closed) return;
        current.active = info.active;
        current.resumable = info.resumable;
        current.model = info.model;
        bump();
      } catch {
        // The page keeps what it has.
      }
    };
    const subscribe = () => {
      source = new EventSource(`${runPath(runId)}/events?from=${next}`);
      current.connection = 'connecting';
      source.onopen = () => {
        current.connection = 'live';
        bump();
      };
      source.onmessage = (message) => {
        const index = Number(message.lastEventId);
        if (Number.isInteger(index) && index < next) return;
        applyRunEvent(current.state, parseShownJson(message.data) as RunEvent);
        next = Number.isInteger(index) ? index + 1 : next + 1;
        bump();
      };
      source.addEventListener('live', (message) => {
        applyRunEvent(current.state, parseShownJson((message as MessageEvent<string>).data) as RunEvent);
        bump();
      });
      source.addEventListener('end', (message) => {
        source?.close();
        current.connection = 'none';
        current.ended = true;
        current.active = false;
        const data = parseShownJson((message as MessageEvent<string>).data || '{}') as { error?: string };
        if (data.error) current.crash = data.error;
        bump();
        void refreshInfo();
      });
      source.onerror = () => {
        if (source?.readyState === EventSource.CLOSED) return;
        current.connection = 'reconnecting';
        bump();
      };
    };
    (async () => {
      try {
        const answer = await api.readRun(runId);
        if (closed) return;
        for (const event of answer.events) applyRunEvent(current.state, event);
        next = answer.events.length;
        current.active = answer.active;
        current.resumable = answer.resumable;
        current.model = answer.model;
        current.workspace = answer.workspace;
        if (answer.active) subscribe();
        else current.ended = true;
      } catch (error) {
        if (!closed) current.loadError = error instanceof Error ? error.message : String(error);
      }
      current.loaded = true;
      if (!closed) {
        loads.current += 1;
        bump();
      }
    })();
    return () => {
      closed = true;
      source?.close();
    };
  }, [runId, load, bump]);

  const reload = useCallback(() => setLoad((value) => value + 1), []);
  // Until the effect for a new run id ran, show an empty run rather than the previous one.
  if (ref.current.forRunId !== runId) ref.current = blank(runId);
  const { forRunId: _, ...followed } = ref.current;
  return { runId, revision, reload, loads: loads.current, ...followed };
}
