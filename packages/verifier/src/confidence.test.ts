import { describe, expect, it } from 'vitest';
import { classifyConfidence, propagateConfidence } from './confidence';
import { VerifierError } from './verifier-error';

describe('confidence', () => {
  it('classifies by the thresholds (0.7 use, 0.4 unverified)', () => {
    expect(classifyConfidence(1)).toBe('use');
    expect(classifyConfidence(0.7)).toBe('use');
    expect(classifyConfidence(0.69)).toBe('unverified');
    expect(classifyConfidence(0.4)).toBe('unverified');
    expect(classifyConfidence(0.39)).toBe('withhold');
    expect(classifyConfidence(0)).toBe('withhold');
  });

  it('propagates as a minimum: uncertainty only accumulates', () => {
    expect(propagateConfidence(0.9)).toBe(0.9);
    expect(propagateConfidence(0.9, [0.8, 0.6])).toBe(0.6);
    expect(propagateConfidence(0.3, [0.8])).toBe(0.3);
  });

  it('rejects values outside [0, 1] with a typed error', () => {
    for (const bad of [-0.1, 1.1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => classifyConfidence(bad)).toThrow(VerifierError);
    }
    expect(() => propagateConfidence(0.5, [2])).toThrow(/upstream confidence must be a number in \[0, 1\]/);
  });
});
