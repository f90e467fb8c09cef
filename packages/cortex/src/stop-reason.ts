/**
 * Every way a run ends. A run always ends with exactly one of these, never with a bare throw.
 *
 * | reason                    | meaning                                                                 |
 * | ------------------------- | ----------------------------------------------------------------------- |
 * | `completed`               | every step completed and every goal check passed                        |
 * | `completed-with-warnings` | only P2 checks failed/warned, or some step output is unverified         |
 * | `failed`                  | a P0 goal check failed, the planner could not produce a valid plan, a model failed for good, or the journal could not be written |
 * | `blocked`                 | a step is blocked: the replanner gave up, attempts ran out, or a human said no |
 * | `model-unavailable`       | the model cannot be reached at all (no or bad key, connection refused, unknown model) |
 * | `max-iterations`          | P1 checks still fail at the iteration cap (after the one ×1.5 extension) |
 * | `stalled`                 | the same error 3× in a row, or 5 iterations without progress            |
 * | `loop-detected`           | a state seen before came back, or the results oscillate                 |
 * | `budget-exhausted`        | the token or cost budget is used up                                     |
 * | `deadline`                | the run deadline passed                                                 |
 * | `cancelled`               | the caller's `AbortSignal` aborted, or another process took the run's lease |
 */
export const stopReasons = [
  'completed',
  'completed-with-warnings',
  'failed',
  'blocked',
  'model-unavailable',
  'max-iterations',
  'stalled',
  'loop-detected',
  'budget-exhausted',
  'deadline',
  'cancelled',
] as const;

/** Why a run stopped. See {@link stopReasons}. */
export type StopReason = (typeof stopReasons)[number];

/** True when `value` is one of the {@link stopReasons}. */
export function isStopReason(value: unknown): value is StopReason {
  return typeof value === 'string' && (stopReasons as readonly string[]).includes(value);
}
