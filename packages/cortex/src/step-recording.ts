import type { RecordedTurn } from '@closedloop/executor';
import type { StepId } from '@closedloop/plan';
import type { RecordedProcess } from './leftover-processes';
import type { RunEvent } from './run-events';

/** What the journal holds of a step's current (interrupted) attempt besides its ledger. */
export interface StepRecording {
  /** The attempt's model responses in order (what a resume feeds back instead of model calls). */
  turns: RecordedTurn[];
  /** Calls that started running (`tool-call-dispatched`), with the snapshot taken before each. */
  dispatched: Map<string, { before?: unknown }>;
  /** Processes the calls started (`tool-call-process-started`), by call id. */
  processes: Map<string, RecordedProcess[]>;
}

/**
 * Reads a step's current attempt from a run's journal: everything after the step last went
 * `in_progress` (a resume continues the attempt without a new transition, so every session's
 * part of the attempt counts; a reset or a redesign starts a new attempt with a new transition).
 */
export function readStepRecording(history: readonly RunEvent[], stepId: StepId): StepRecording {
  const start = history.findLastIndex(
    (event) => event.type === 'step-marked' && event.stepId === stepId && event.status === 'in_progress',
  );
  const recording: StepRecording = { turns: [], dispatched: new Map(), processes: new Map() };
  for (let index = Math.max(start, 0); index < history.length; index++) {
    const event = history[index]!;
    if (event.type === 'model-call-finished' && event.stepId === stepId && event.response !== undefined) {
      recording.turns.push({ purpose: event.purpose, response: event.response });
    } else if (event.type === 'tool-call-dispatched' && event.stepId === stepId) {
      recording.dispatched.set(event.callId, event.before === undefined ? {} : { before: event.before });
    } else if (event.type === 'tool-call-process-started' && event.stepId === stepId) {
      const list = recording.processes.get(event.callId) ?? [];
      list.push({ pid: event.pid, ...(event.identity !== undefined ? { identity: event.identity } : {}) });
      recording.processes.set(event.callId, list);
    }
  }
  return recording;
}
