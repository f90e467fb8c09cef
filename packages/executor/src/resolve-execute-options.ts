import { ExecutorError } from './executor-error';

/** The two execution modes: one successful tool round (`single`) or up to five (`auto`). */
export type ExecutionMode = 'single' | 'auto';

/** Loop limits; every field is optional. */
export interface ExecutionLimits {
  /** Hard cap on model turns, successful or not. Default 10. */
  maxIterations?: number;
  /**
   * Successful tool rounds before the summary turn: a model response counts as one success when
   * it had at least one tool call (other than `mark_step`) and all of them succeeded.
   * Default 1 in `single` mode, 5 in `auto` mode.
   */
  maxSuccesses?: number;
  /** The same tool with the same (canonical JSON) arguments this many times stops the step. Default 3. */
  maxRepeatedCalls?: number;
}

/** Resolved numbers the loop runs with. */
export interface ResolvedLimits {
  maxIterations: number;
  maxSuccesses: number;
  maxRepeatedCalls: number;
}

function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ExecutorError({
      code: 'invalid-options',
      message: `${name} must be an integer >= 1, got ${JSON.stringify(value) ?? String(value)}.`,
      details: { option: name, value },
    });
  }
  return value;
}

/** Validates the mode and limits; throws `ExecutorError('invalid-options')` naming the bad one. */
export function resolveLimits(mode: unknown, limits: ExecutionLimits | undefined): ResolvedLimits {
  if (mode !== 'single' && mode !== 'auto') {
    throw new ExecutorError({
      code: 'invalid-options',
      message: `mode must be 'single' or 'auto', got ${JSON.stringify(mode) ?? String(mode)}.`,
      details: { option: 'mode', value: mode },
    });
  }
  return {
    maxIterations: positiveInteger('limits.maxIterations', limits?.maxIterations ?? 10),
    maxSuccesses: positiveInteger('limits.maxSuccesses', limits?.maxSuccesses ?? (mode === 'single' ? 1 : 5)),
    maxRepeatedCalls: positiveInteger('limits.maxRepeatedCalls', limits?.maxRepeatedCalls ?? 3),
  };
}

/** Checks an optional positive-integer option (returns the default when undefined). */
export function resolvePositiveInteger(name: string, value: unknown, fallback: number): number {
  return positiveInteger(name, value ?? fallback);
}

/** Checks an optional positive number of milliseconds. */
export function resolveOptionalMs(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ExecutorError({
      code: 'invalid-options',
      message: `${name} must be a positive number of milliseconds, got ${JSON.stringify(value) ?? String(value)}.`,
      details: { option: name, value },
    });
  }
  return value;
}
