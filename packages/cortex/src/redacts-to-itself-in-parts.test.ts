import { createRedactor } from '@closedloop/model';
import { describe, expect, it } from 'vitest';
import { redactsToItselfInParts } from './redacts-to-itself-in-parts';

const redactor = createRedactor({ env: {}, secrets: ['hunter2-hunter2-hunter2'] });
const steps = (count: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: count }, (_, index) => ({
    id: `s${index}`,
    description: `Step ${index}.`,
    ledger: [{ callId: `c${index}`, input: { path: `f${index}.txt` }, output: 'ok' }],
    findings: [{ check: 'execution', priority: 'P0', status: 'pass', message: 'fine' }],
    ...extra,
  }));

describe('redactsToItselfInParts', () => {
  it('finds a clean plan of thousands of steps clean (one check alone cannot tell past 4,096 objects)', () => {
    const plan = { id: 'p', title: 'big', steps: steps(2000) };
    expect(redactsToItselfInParts(redactor, plan)).toBe(true);
    expect(redactor.redactValue(plan)).toEqual(plan);
  });

  it('finds a secret anywhere: in one step of many, at the top, under a secret-named key', () => {
    const late = steps(2000);
    (late[1999]!.ledger[0]! as { output: string }).output = 'the key is hunter2-hunter2-hunter2';
    expect(redactsToItselfInParts(redactor, { steps: late })).toBe(false);
    expect(redactsToItselfInParts(redactor, { title: 'hunter2-hunter2-hunter2', steps: steps(3) })).toBe(
      false,
    );
    expect(redactsToItselfInParts(redactor, { steps: steps(3, { password: 'plain-looking-value' }) })).toBe(
      redactor.redactValue({ password: 'plain-looking-value' }).password === 'plain-looking-value',
    );
    expect(redactsToItselfInParts(redactor, { steps: ['hunter2-hunter2-hunter2'] })).toBe(false);
  });

  it('answers like one check for what is not a plain object', () => {
    expect(redactsToItselfInParts(redactor, 'plain')).toBe(true);
    expect(redactsToItselfInParts(redactor, 'hunter2-hunter2-hunter2')).toBe(false);
    expect(redactsToItselfInParts(redactor, Object.assign(Object.create(null), { steps: [] }))).toBe(false);
    expect(redactsToItselfInParts(redactor, { [Symbol('x')]: 1, steps: [] })).toBe(false);
  });
});
