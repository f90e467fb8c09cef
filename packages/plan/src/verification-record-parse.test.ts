import { describe, expect, it } from 'vitest';
import { parseVerificationRecord } from './plan';
import { verificationRecordSchema } from './schema';

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(next: () => number, values: readonly T[]): T => values[Math.floor(next() * values.length)]!;

/** Values every field may take: the right kind most of the time, anything else sometimes. */
const odd = [undefined, null, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'x', true, [], {}, ['a']];

function finding(next: () => number): unknown {
  if (next() < 0.05) return pick(next, odd);
  const value: Record<string, unknown> = {};
  // Keys in a shuffled order, some left out, some extra.
  const keys = ['check', 'priority', 'status', 'message', 'extra'].sort(() => next() - 0.5);
  for (const key of keys) {
    if (next() < 0.05) continue;
    const wrong = next() < 0.05;
    if (key === 'check' || key === 'message') value[key] = wrong ? pick(next, odd) : `text ${next()}`;
    if (key === 'priority') value[key] = wrong ? pick(next, [...odd, 'P3']) : pick(next, ['P0', 'P1', 'P2']);
    if (key === 'status')
      value[key] = wrong ? pick(next, [...odd, 'ok']) : pick(next, ['pass', 'fail', 'warn', 'skip', 'error']);
    if (key === 'extra') value[key] = pick(next, odd);
  }
  return value;
}

function record(next: () => number): unknown {
  if (next() < 0.03) return pick(next, odd);
  const value: Record<string, unknown> = {};
  const keys = ['verdict', 'confidence', 'unverified', 'findings', 'extra'].sort(() => next() - 0.5);
  for (const key of keys) {
    if (next() < 0.3) continue;
    const wrong = next() < 0.08;
    if (key === 'verdict')
      value[key] = wrong
        ? pick(next, [...odd, 'ok'])
        : pick(next, ['success', 'success-with-warnings', 'retry', 'failed', 'unverified']);
    if (key === 'confidence')
      value[key] = wrong ? pick(next, [...odd, -0.1, 1.1]) : pick(next, [0, 1, next(), -0]);
    if (key === 'unverified') value[key] = wrong ? pick(next, odd) : next() < 0.5;
    if (key === 'findings')
      value[key] = wrong
        ? pick(next, odd)
        : Array.from({ length: Math.floor(next() * 4) }, () => finding(next));
    if (key === 'extra') value[key] = pick(next, odd);
  }
  return value;
}

describe('parseVerificationRecord', () => {
  it('gives exactly what verificationRecordSchema.safeParse gives, on 20,000 random records', () => {
    const next = random(16);
    let accepted = 0;
    for (let index = 0; index < 20_000; index++) {
      const input = record(next);
      const fast = parseVerificationRecord(input);
      const zod = verificationRecordSchema.safeParse(input);
      expect(fast.success).toBe(zod.success);
      if (fast.success && zod.success) {
        accepted++;
        expect(fast.data).toStrictEqual(zod.data);
        // Same key order (it reaches the journal as JSON), also inside the findings.
        expect(JSON.stringify(fast.data)).toBe(JSON.stringify(zod.data));
        expect(Object.keys(fast.data)).toEqual(Object.keys(zod.data));
      } else if (!fast.success && !zod.success) {
        expect(fast.error.issues).toEqual(zod.error.issues);
      }
    }
    // Both kinds were exercised.
    expect(accepted).toBeGreaterThan(2_000);
    expect(accepted).toBeLessThan(19_000);
  });

  it('keeps an explicit `confidence: undefined` key as zod does', () => {
    const fast = parseVerificationRecord({ verdict: 'success', confidence: undefined });
    expect(fast.success && Object.keys(fast.data)).toEqual([
      'verdict',
      'confidence',
      'unverified',
      'findings',
    ]);
  });

  it('returns new objects: the input is not kept', () => {
    const input = {
      verdict: 'success',
      findings: [{ check: 'c', priority: 'P0', status: 'pass', message: 'm' }],
    };
    const parsed = parseVerificationRecord(input);
    expect(parsed.success).toBe(true);
    if (!parsed.success) return;
    expect(parsed.data).not.toBe(input);
    expect(parsed.data.findings).not.toBe(input.findings);
    expect(parsed.data.findings[0]).not.toBe(input.findings[0]);
  });
});
