import type { StepStatus } from './schema';

/**
 * The legal status transitions of a step (see `stepStatusSchema`). `completed`, `blocked` and
 * `skipped` are terminal.
 */
export const stepTransitions: Readonly<Record<StepStatus, readonly StepStatus[]>> = {
  not_started: ['in_progress', 'blocked', 'skipped'],
  in_progress: ['completed', 'failed', 'blocked', 'skipped', 'not_started'],
  failed: ['blocked', 'not_started'],
  completed: [],
  blocked: [],
  skipped: [],
};

/** True when a step may move from `from` to `to` (a step never "moves" to its own status). */
export function isLegalTransition(from: StepStatus, to: StepStatus): boolean {
  return stepTransitions[from].includes(to);
}

/** Statuses after which a step will not run again: `completed`, `blocked`, `skipped`. */
export function isTerminalStatus(status: StepStatus): boolean {
  return status === 'completed' || status === 'blocked' || status === 'skipped';
}
