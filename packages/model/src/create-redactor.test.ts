import { describe, expect, it } from 'vitest';
import { createRedactor, isSecretEnvName, registerSecret } from './create-redactor';

describe('isSecretEnvName', () => {
  it.each([
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GITHUB_TOKEN',
    'NPM_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'DB_PASSWORD',
    'PASSWORD',
    'SMTP_PASS',
    'STRIPE_SECRET',
    'SENTRY_DSN',
    'MYAPIKEY',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'SESSION_COOKIE',
  ])('flags %s', (name) => {
    expect(isSecretEnvName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'PWD', 'LANG', 'NODE_ENV', 'KEYBOARD_LAYOUT', 'SHELL', 'TERM_SESSION_ID'])(
    'does not flag %s',
    (name) => {
      expect(isSecretEnvName(name)).toBe(false);
    },
  );
});

describe('createRedactor', () => {
  it('replaces values of secret-named variables with their name, longest first', () => {
    const redactor = createRedactor({
      registered: false,
      env: {
        OPENAI_API_KEY: 'abcdefgh12345678',
        LONGER_TOKEN: 'abcdefgh12345678-and-more',
        SHORT_TOKEN: 'abc',
        HOME: '/home/someone',
      },
    });
    expect(redactor.knownSecretCount).toBe(2);
    expect(redactor.redact('k=abcdefgh12345678 l=abcdefgh12345678-and-more')).toBe(
      'k=[REDACTED:OPENAI_API_KEY] l=[REDACTED:LONGER_TOKEN]',
    );
    expect(redactor.redact('short abc stays, /home/someone stays')).toBe(
      'short abc stays, /home/someone stays',
    );
  });

  it('redacts extra values and escapes regex characters in them', () => {
    const redactor = createRedactor({ env: {}, extra: ['p4ss.w0rd+(x)', 'tiny'] });
    expect(redactor.redact('login p4ss.w0rd+(x) and p4ssAw0rd+(x) tiny')).toBe(
      'login [REDACTED] and p4ssAw0rd+(x) tiny',
    );
  });

  it.each([
    ['sk-proj-abcdefghijklmnop1234567890', 'sk-proj'],
    ['sk-ant-api03-abcdefghijklmnopqrstuv', 'sk-ant'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_'],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu', 'github_pat'],
    ['AKIAIOSFODNN7EXAMPLE', 'AKIA'],
    ['AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIza'],
    ['xoxb-123456789012-abcdefghijkl', 'xoxb'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'eyJ'],
    ['Authorization: Bearer abcdef0123456789', 'abcdef0123456789'],
    ['postgres://admin:hunter2hunter2@db.example.com/app', 'hunter2'],
    ['{"apiKey": "abcd1234efgh5678"}', 'abcd1234efgh5678'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', 'MIIEow'],
  ])('redacts the key-shaped string in %j', (text, fragment) => {
    const out = createRedactor({ env: {} }).redact(`before ${text} after`);
    expect(out).not.toContain(fragment);
    expect(out).toContain('REDACTED');
    expect(out.startsWith('before ')).toBe(true);
  });

  it('leaves ordinary text alone', () => {
    const text = 'export const key = "value"; // see https://example.com/docs and skeleton-loader';
    expect(createRedactor({ env: {} }).redact(text)).toBe(text);
  });

  it('defaults to process.env', () => {
    process.env.CLOSEDLOOP_REDACT_TEST_TOKEN = 'canary-from-process-env';
    try {
      expect(createRedactor().redact('x canary-from-process-env y')).toBe(
        'x [REDACTED:CLOSEDLOOP_REDACT_TEST_TOKEN] y',
      );
    } finally {
      delete process.env.CLOSEDLOOP_REDACT_TEST_TOKEN;
    }
  });
});

describe('registerSecret and redactValue', () => {
  it('redacts a registered value in every redactor, made before or after', () => {
    const before = createRedactor({ env: {} });
    const value = 'registered-canary-7Hq2Lm9Vx';
    registerSecret(value);
    expect(before.redact(`a ${value} b`)).toBe('a [REDACTED] b');
    expect(createRedactor({ env: {} }).redact(value)).toBe('[REDACTED]');
    expect(createRedactor({ env: {}, registered: false }).redact(value)).toBe(value);
  });

  it('redacts strings deep inside plain values without changing the input', () => {
    const redactor = createRedactor({ env: { SERVICE_TOKEN: 'deep-canary-0123456789' } });
    const input = { a: ['x deep-canary-0123456789'], b: { c: 'DB_PASS=hunter22' }, n: 1 };
    expect(redactor.redactValue(input)).toEqual({
      a: ['x [REDACTED:SERVICE_TOKEN]'],
      b: { c: 'DB_PASS=[REDACTED]' },
      n: 1,
    });
    expect(input.b.c).toBe('DB_PASS=hunter22');
  });

  it('redacts a string field with a secret name whole, as its JSON text would be redacted', () => {
    const redactor = createRedactor({ env: {}, registered: false });
    const args = {
      password: 'hunter22x',
      apiKey: 'abc123xyz789',
      'x-api-key': 'k-2f9c1e7a',
      headers: { Authorization: 'opaque-value-1' },
      client_secret: 'cs-77aa88bb',
      nested: [{ token: 'q1w2e3r4t5y6' }],
      // Not secrets: placeholders, type names, short values, other names, non-strings.
      secretRef: '{{ secrets.REF }}',
      passwordField: 'string',
      pass: 'no',
      sortKey: 'created-at-desc',
      tokenCount: 1234,
      description: 'password=hunter22x',
    };
    const out = redactor.redactValue(args);
    expect(out).toEqual({
      password: '[REDACTED]',
      apiKey: '[REDACTED]',
      'x-api-key': '[REDACTED]',
      headers: { Authorization: '[REDACTED]' },
      client_secret: '[REDACTED]',
      nested: [{ token: '[REDACTED]' }],
      secretRef: '{{ secrets.REF }}',
      passwordField: 'string',
      pass: 'no',
      sortKey: 'created-at-desc',
      tokenCount: 1234,
      description: 'password=[REDACTED]',
    });
    // The same as redacting the value's JSON text.
    expect(redactor.redact(JSON.stringify(args))).toBe(JSON.stringify(out));
    expect(createRedactor({ env: {}, placeholder: '***' }).redactValue({ password: 'hunter22x' })).toEqual({
      password: '***',
    });
    expect(args.password).toBe('hunter22x');
  });

  it("keeps an own __proto__ field an own, redacted field (not the copy's prototype)", () => {
    const redactor = createRedactor({ env: {}, registered: false });
    const input = JSON.parse('{"__proto__": {"password": "hunter22x"}, "note": "DB_PASS=hunter22"}');
    const out = redactor.redactValue(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"password":"[REDACTED]"},"note":"DB_PASS=[REDACTED]"}');
  });

  it('redacts a value whose getter redacts another one, and recovers after a getter throws', () => {
    const redactor = createRedactor({ env: {}, registered: false });
    const inner = { text: 'DB_PASS=inner1234' };
    const outer = {
      get nested() {
        return redactor.redactValue({ inner, again: inner });
      },
      also: inner,
    };
    const out = redactor.redactValue(outer);
    expect(out.nested).toEqual({
      inner: { text: 'DB_PASS=[REDACTED]' },
      again: { text: 'DB_PASS=[REDACTED]' },
    });
    expect(out.nested.inner).toBe(out.nested.again);
    expect(out.also).toEqual({ text: 'DB_PASS=[REDACTED]' });
    const throwing = {
      first: inner,
      get boom(): string {
        throw new Error('getter failed');
      },
    };
    expect(() => redactor.redactValue(throwing)).toThrow('getter failed');
    const next = redactor.redactValue({ first: inner, second: inner });
    expect(next.first).toEqual({ text: 'DB_PASS=[REDACTED]' });
    expect(next.first).toBe(next.second);
    expect(next.first).not.toBe(out.also);
  });

  it.each([1, 31, 32, 33, 200])(
    'keeps the shape of shared and cyclic objects among %i others (one redacted copy per object)',
    (others) => {
      const redactor = createRedactor({ env: {}, registered: false });
      const shared = { text: 'DB_PASS=hunter22' };
      const fillers = Array.from({ length: others }, (_, i) => ({ i, text: `DB_PASS=filler${i}` }));
      const input: { fillers: unknown[]; first: unknown; second: unknown[]; self?: unknown } = {
        fillers,
        first: shared,
        second: [shared, fillers[0]],
      };
      input.self = input;
      const out = redactor.redactValue(input);
      expect(out).not.toBe(input);
      expect(out.self).toBe(out);
      expect(out.first).toEqual({ text: 'DB_PASS=[REDACTED]' });
      expect(out.first).not.toBe(shared);
      expect(out.second[0]).toBe(out.first);
      expect(out.second[1]).toBe(out.fillers[0]);
      expect(out.fillers).toHaveLength(others);
      expect(out.fillers[others - 1]).toEqual({ i: others - 1, text: 'DB_PASS=[REDACTED]' });
      expect(shared.text).toBe('DB_PASS=hunter22');
    },
  );
});
