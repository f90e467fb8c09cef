import { VerifierError } from './verifier-error';

/**
 * What to do with an output of a given confidence:
 * - `use` (≥ 0.7): use it directly;
 * - `unverified` (0.4 – 0.7): pass it on marked UNVERIFIED, verify everything;
 * - `withhold` (< 0.4): do not pass it downstream; retry or ask the user.
 */
export type ConfidenceClass = 'use' | 'unverified' | 'withhold';

/** Lower bound of the `use` band. */
export const CONFIDENCE_USE_THRESHOLD = 0.7;
/** Lower bound of the `unverified` band. */
export const CONFIDENCE_UNVERIFIED_THRESHOLD = 0.4;

function checkConfidence(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new VerifierError({
      code: 'invalid-options',
      message: `${what} must be a number in [0, 1], got ${String(value)}.`,
      details: { value },
    });
  }
  return value;
}

/**
 * Classifies a confidence in [0, 1]. Throws `VerifierError('invalid-options')` for values outside it.
 *
 * @example
 * classifyConfidence(0.55); // 'unverified'
 */
export function classifyConfidence(confidence: number): ConfidenceClass {
  const value = checkConfidence(confidence, 'confidence');
  if (value >= CONFIDENCE_USE_THRESHOLD) return 'use';
  if (value >= CONFIDENCE_UNVERIFIED_THRESHOLD) return 'unverified';
  return 'withhold';
}

/**
 * Confidence of an output built on upstream outputs: `min(own, ...upstream)`. Uncertainty only
 * accumulates, it never disappears. Throws `VerifierError('invalid-options')` for values outside [0, 1].
 *
 * @example
 * propagateConfidence(0.9, [0.8, 0.6]); // 0.6
 */
export function propagateConfidence(own: number, upstream: readonly number[] = []): number {
  let result = checkConfidence(own, 'confidence');
  for (const value of upstream) result = Math.min(result, checkConfidence(value, 'upstream confidence'));
  return result;
}
