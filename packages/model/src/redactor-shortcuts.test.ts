import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanTexts, leakCases } from './__fixtures__/redaction-corpus';
import { createRedactor, isSecretName, redactorShortcuts, registerSecret } from './create-redactor';

/** Redacts `text` with every shortcut off (a fresh redactor: nothing remembered). */
function fullPath(text: string, env: Record<string, string>, secrets: string[]): string {
  redactorShortcuts.enabled = false;
  try {
    return createRedactor({ env, secrets, registered: false, minLength: 4 }).redact(text);
  } finally {
    redactorShortcuts.enabled = true;
  }
}

afterEach(() => {
  redactorShortcuts.enabled = true;
});

/** Pieces that make patterns (almost) match: needles, separators, key characters. */
const pieces = [
  'pw',
  'PW',
  'pass',
  'Pass-Word',
  's-ecret',
  'api.key',
  'xApiKey',
  'DB_PASS',
  'token',
  'Token ',
  'Bearer ',
  'basic ',
  'cookie',
  'Set-Cookie',
  'AUTHORIZATION',
  'sk-',
  'ghp_',
  'eyJ',
  'AKIA',
  '://',
  'https://',
  '@',
  ':',
  '=',
  ':=',
  '"',
  "'",
  '\\"',
  ' ',
  '\n',
  '\r\n',
  '<pw>',
  '</pw>',
  '-----BEGIN ',
  '-----END ',
  'PRIVATE KEY-----',
  'A'.repeat(64),
  'b'.repeat(70),
  'abc',
  'q7Vd93LmKz2Tx8Rb',
  '0123456789',
  '[REDACTED]',
  '.',
  '-',
  '_',
];
const piece = fc.oneof(
  fc.constantFrom(...pieces),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: fc.constantFrom(...'pwPW=:"\' \nabc-_.@/'), maxLength: 8 }),
);
const noise = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));

// Thousands of fresh redactors each (an index built per run): CPU-bound, slow on a loaded machine.
describe('the redactor shortcuts', { timeout: 90_000 }, () => {
  it('change nothing: corpus texts inside random text redact as on the full path', () => {
    const corpus = [
      ...leakCases.map((testCase) => ({ text: testCase.text, env: testCase.known ?? {} })),
      ...cleanTexts.map((text) => ({ text, env: {} })),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...corpus), noise, noise, ({ text, env }, before, after) => {
        const input = `${before}${text}${after}`;
        const fast = createRedactor({ env, registered: false, minLength: 4 });
        // Twice: the second answer comes from the memo.
        expect(fast.redact(input)).toBe(fullPath(input, env, []));
        expect(fast.redact(input)).toBe(fullPath(input, env, []));
      }),
      { numRuns: 2_000 },
    );
  });

  it('change nothing on short and needle-heavy texts, with known values of any length', () => {
    fc.assert(
      fc.property(
        noise,
        fc.array(fc.string({ minLength: 4, maxLength: 20 }), { maxLength: 2 }),
        (text, secrets) => {
          const fast = createRedactor({ env: {}, secrets, registered: false, minLength: 4 });
          expect(fast.redact(text)).toBe(fullPath(text, {}, secrets));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('change nothing on texts holding fragments and encodings of a known value', () => {
    const encodings = [
      (value: string) => value,
      (value: string) => Buffer.from(value).toString('base64'),
      (value: string) => Buffer.from(value).toString('hex'),
      (value: string) => encodeURIComponent(value),
    ];
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'abcXYZ0123456789+/=-_.:@ '), minLength: 8, maxLength: 40 }),
        fc.constantFrom(...encodings),
        fc.nat(),
        fc.nat(),
        noise,
        noise,
        (secret, encode, from, length, before, after) => {
          const encoded = encode(secret);
          const start = from % encoded.length;
          const fragment = encoded.slice(start, start + 10 + (length % 30));
          const text = `${before}${fragment}${after}`;
          const fast = createRedactor({ env: {}, secrets: [secret], registered: false, minLength: 4 });
          expect(fast.redact(text)).toBe(fullPath(text, {}, [secret]));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('change nothing on word-only texts (ids, types): the shortest token shape is 15 characters', () => {
    const redactor = createRedactor({ env: {}, registered: false });
    expect(redactor.redact('xoxa-0123456789')).toBe('[REDACTED]');
    expect(redactor.redact('xoxa-012345678')).toBe('xoxa-012345678');
    const word = fc.string({
      unit: fc.constantFrom(...'abcpwxoAKIAsk-_0123456789PWxoxbghp'),
      minLength: 1,
      maxLength: 16,
    });
    fc.assert(
      fc.property(
        fc.oneof(
          word,
          fc
            .constantFrom('xoxa-', 'xoxb-', 'sk-', 'ghp_', 'AKIA', 'hf_')
            .chain((prefix) => word.map((rest) => `${prefix}${rest}`)),
        ),
        fc.array(fc.string({ unit: fc.constantFrom(...'abc-_01'), minLength: 4, maxLength: 14 }), {
          maxLength: 2,
        }),
        (text, secrets) => {
          const fast = createRedactor({ env: {}, secrets, registered: false, minLength: 4 });
          expect(fast.redact(text)).toBe(fullPath(text, {}, secrets));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('never skip a short text that a rule changes (the shortest is six characters)', () => {
    const redactor = createRedactor({ env: {}, registered: false });
    expect(redactor.redact('pw=abc')).toBe('pw=[REDACTED]');
    expect(redactor.redact('pw=ab')).toBe('pw=ab');
  });

  it('find every secret name with the needles (names built from secret words with separators)', () => {
    const name = fc
      .array(
        fc.oneof(
          fc.constantFrom('pass', 'word', 'secret', 'api', 'key', 'cred', 'auth', 'token', 'pw', 'd'),
          fc.constantFrom('-', '_', '.', 'X', 'sort', 'max'),
        ),
        { minLength: 1, maxLength: 5 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(name, fc.constantFrom('=', ': ', '="'), (key, separator) => {
        const input = `${key.replace(/^[^A-Za-z_]+/, 'a')}${separator}q7Vd93LmKz2`;
        const fast = createRedactor({ env: {}, registered: false });
        expect(fast.redact(input)).toBe(fullPath(input, {}, []));
      }),
      { numRuns: 2_000 },
    );
  });

  it('forget what was remembered when a secret is registered', () => {
    const redactor = createRedactor({ env: {} });
    const value = 'memo-canary-5Rt8Kw2Qz';
    const text = `the value is ${value} here`;
    expect(redactor.redact(text)).toBe(text);
    registerSecret(value);
    expect(redactor.redact(text)).toBe('the value is [REDACTED] here');
  });

  it('remember isSecretName answers without changing them', () => {
    for (const name of ['DB_PASS', 'SORT_KEY', 'xApiKey', 'MAX_TOKENS', 'pw'])
      expect(isSecretName(name)).toBe(isSecretName(name));
    expect(isSecretName('DB_PASS')).toBe(true);
    expect(isSecretName('SORT_KEY')).toBe(false);
  });
});

describe('redactValue', () => {
  it('redacts an object referenced twice, and one in a cycle, keeping the shape', () => {
    const redactor = createRedactor({ env: {}, registered: false });
    const shared = { note: 'DB_PASS=hunter22' };
    const out = redactor.redactValue({ a: shared, b: shared, list: [shared] });
    expect(JSON.stringify(out)).not.toContain('hunter22');
    expect(out.a).toBe(out.b);
    const cyclic: { s: string; self?: unknown } = { s: 'DB_PASS=hunter22' };
    cyclic.self = cyclic;
    const copy = redactor.redactValue(cyclic) as { s: string; self: { s: string } };
    expect(copy.s).toBe('DB_PASS=[REDACTED]');
    expect(copy.self).toBe(copy);
    expect(cyclic.s).toBe('DB_PASS=hunter22');
  });
});
