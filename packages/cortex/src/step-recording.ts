import type { RecordedTurn } from '@closedloop/executor';
import type { StepId } from '@closedloop/plan';
import type { RecordedProcess } from './leftover-processes';
import type { RunEvent } from './run-events';

/** One attempt of a step as the journal recorded it (a retry after an unverified attempt starts the next). */
export interface RecordedAttempt {
  /** The attempt's model responses in order (what a resume feeds back instead of model calls). */
  turns: RecordedTurn[];
  /** The ledger entries (call ids) the attempt recorded. */
  callIds: string[];
  /** The extra instructions a retry ran with (`step-retried`). */
  instructions?: string;
}

/** What the journal holds of a step's current (interrupted) attempt besides its ledger. */
export interface StepRecording {
  /**
   * The step's attempts since it last went `in_progress`, in order: the first, then one per
   * `step-retried`. The last one is the interrupted one: a resume continues it (the earlier ones
   * were verified already, and their verdicts are in the journal).
   */
  attempts: RecordedAttempt[];
  /** Calls that started running (`tool-call-dispatched`), with the snapshot taken before each. */
  dispatched: Map<string, { before?: unknown; processTag?: string }>;
  /** Processes the calls started (`tool-call-process-started`), by call id. */
  processes: Map<string, RecordedProcess[]>;
}

/**
 * Reads a step's current attempts from a run's journal: everything after the step last went
 * `in_progress` (a resume continues the attempt without a new transition, so every session's
 * part of the attempt counts; a reset or a redesign starts a new attempt with a new transition).
 */
export function readStepRecording(history: readonly RunEvent[], stepId: StepId): StepRecording {
  const start = history.findLastIndex(
    (event) => event.type === 'step-marked' && event.stepId === stepId && event.status === 'in_progress',
  );
  let attempt: RecordedAttempt = { turns: [], callIds: [] };
  const recording: StepRecording = { attempts: [attempt], dispatched: new Map(), processes: new Map() };
  for (let index = Math.max(start, 0); index < history.length; index++) {
    const event = history[index]!;
    if (event.type === 'model-call-finished' && event.stepId === stepId && event.response !== undefined) {
      attempt.turns.push({ purpose: event.purpose, response: event.response });
    } else if (event.type === 'tool-call-started' && event.stepId === stepId) {
      attempt.callIds.push(event.callId);
    } else if (event.type === 'step-retried' && event.stepId === stepId) {
      attempt = {
        turns: [],
        callIds: [],
        ...(event.instructions !== undefined ? { instructions: event.instructions } : {}),
      };
      recording.attempts.push(attempt);
    } else if (event.type === 'tool-call-dispatched' && event.stepId === stepId) {
      recording.dispatched.set(event.callId, {
        ...(event.before === undefined ? {} : { before: event.before }),
        ...(event.processTag === undefined ? {} : { processTag: event.processTag }),
      });
    } else if (event.type === 'tool-call-process-started' && event.stepId === stepId) {
      const list = recording.processes.get(event.callId) ?? [];
      list.push({ pid: event.pid, ...(event.identity !== undefined ? { identity: event.identity } : {}) });
      recording.processes.set(event.callId, list);
    }
  }
  return recording;
}
