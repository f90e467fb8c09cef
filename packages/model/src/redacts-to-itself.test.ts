import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanTexts, leakCases } from './__fixtures__/redaction-corpus';
import { createRedactor, type Redactor, redactsToItselfWith } from './create-redactor';

/** What a caller that skips the copy on `true` hands on: the value itself, or the redacted copy. */
function shared(redactor: Redactor, value: unknown): unknown {
  return redactsToItselfWith(redactor, value) ? value : redactor.redactValue(value);
}

const text = fc.oneof(
  fc.constantFrom(...cleanTexts, ...leakCases.map((testCase) => testCase.text)),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('password', 'apiKey', 'note', 'x-api-key', 'DB_PASS=hunter22', 'hunter22x', 'id'),
);
const key = fc.oneof(
  fc.constantFrom('password', 'apiKey', 'token', 'note', 'result', 'args', 'id'),
  fc.string({ maxLength: 6 }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('redactsToItselfWith', () => {
  it('is true only when the redacted copy equals the value: skipping the copy never lets a secret through', () => {
    fc.assert(
      fc.property(json, (value) => {
        const redactor = createRedactor({ env: { DB_PASS: 'hunter22x' }, registered: false });
        const full = redactor.redactValue(value);
        if (redactsToItselfWith(redactor, value)) expect(full).toStrictEqual(value);
        // Whatever the answer, what the caller hands on is the redaction.
        expect(JSON.stringify(shared(redactor, value))).toBe(JSON.stringify(full));
      }),
      { numRuns: 3_000 },
    );
  });

  it('is false for every leak case of the corpus, as a field and nested deep', () => {
    for (const testCase of leakCases) {
      const redactor = createRedactor({ env: testCase.known ?? {}, registered: false, minLength: 4 });
      expect(redactsToItselfWith(redactor, testCase.text)).toBe(false);
      expect(redactsToItselfWith(redactor, { type: 'x', nested: [{ result: testCase.text }] })).toBe(false);
    }
  });

  it('is true for secret-free events, and false for a secret-named field whose value is a literal', () => {
    const redactor = createRedactor({ env: {}, registered: false });
    const event = {
      type: 'tool-call-finished',
      stepId: 's3',
      callId: 'call_7',
      status: 'success',
      result: 'waited 0 ms',
      usage: { inputTokens: 1001, outputTokens: 6 },
      args: { step: 's3', ms: 0 },
      pendingCallIds: [],
    };
    expect(redactsToItselfWith(redactor, event)).toBe(true);
    expect(redactsToItselfWith(redactor, { ...event, args: { password: 'hunter22' } })).toBe(false);
    expect(
      redactsToItselfWith(redactor, { ...event, args: { password: ['$', '{PASSWORD}'].join('') } }),
    ).toBe(true);
  });

  it('is false where the copy would differ in shape: symbol keys, errors, cycles, deep nesting', () => {
    const redactor = createRedactor({ env: {}, registered: false });
    expect(redactsToItselfWith(redactor, { a: 'x', [Symbol('s')]: 'hidden' })).toBe(false);
    expect(redactsToItselfWith(redactor, { error: new Error('boom') })).toBe(false);
    const cycle: Record<string, unknown> = { a: 'x' };
    cycle.self = cycle;
    expect(redactsToItselfWith(redactor, cycle)).toBe(false);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(redactsToItselfWith(redactor, deep)).toBe(false);
    // An object shared many times is checked within a budget, then left to the copy.
    let wide: unknown = { leaf: 'x' };
    for (let i = 0; i < 20; i++) wide = { left: wide, right: wide };
    expect(redactsToItselfWith(redactor, wide)).toBe(false);
  });

  it('is false for a redactor not made by createRedactor (it cannot tell)', () => {
    const custom: Redactor = { redact: (t) => t, redactValue: (v) => v, knownSecretCount: 0 };
    expect(redactsToItselfWith(custom, { a: 'x' })).toBe(false);
  });

  it('follows secrets registered later', async () => {
    const { registerSecret } = await import('./create-redactor');
    const redactor = createRedactor({ env: {} });
    const value = { result: 'the value is q9Zr7Kx2Lm4Vt8Wp3Yb' };
    expect(redactsToItselfWith(redactor, value)).toBe(true);
    registerSecret('q9Zr7Kx2Lm4Vt8Wp3Yb');
    expect(redactsToItselfWith(redactor, value)).toBe(false);
  });
});
