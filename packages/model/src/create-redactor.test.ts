import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createRedactor, isSecretEnvName, redactsToItselfWith, registerSecret } from './create-redactor';

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

describe('byte dumps of known values', () => {
  const secret = 'sk-live-4f9Qa2Zx7Lm3Tp8Vw1Rb';
  const redactor = createRedactor({ env: { STRIPE_SECRET_KEY: secret }, registered: false });
  const bytes = [...Buffer.from(secret)];
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, '0'));
  const octal = bytes.map((byte) => byte.toString(8).padStart(3, '0'));

  /** Runs a real dump tool on `input` (its exact output, line wrapping and ASCII column included). */
  function tool(command: string, args: string[], input: string): string {
    return execFileSync(command, args, { input, encoding: 'utf8' });
  }

  // What is left of each dump: `X` stands for the marker (the wrapper around the bytes stays).
  it.each([
    ['colons', hex.join(':'), 'X'],
    ['spaces', hex.join(' '), 'X'],
    ['dashes', hex.join('-'), 'X'],
    ['C/Python escapes', hex.map((pair) => `\\x${pair}`).join(''), 'X'],
    ['an array literal', `{ ${hex.map((pair) => `0x${pair}`).join(', ')} }`, '{ X }'],
    ['upper-case colons', hex.join(':').toUpperCase(), 'X'],
    ['upper-case spaces', hex.join(' ').toUpperCase(), 'X'],
    ['upper-case escapes', hex.map((pair) => `\\x${pair.toUpperCase()}`).join(''), 'X'],
    ['an upper-case array literal', hex.map((pair) => `0X${pair.toUpperCase()}`).join(','), 'X'],
    ['a Node buffer', `<Buffer ${hex.join(' ')}>`, '<Buffer X>'],
    ['a JSON buffer (decimal)', JSON.stringify(Buffer.from(secret)), '{"type":"Buffer","data":[X]}'],
    ['a decimal list', `[${bytes.join(', ')}]`, '[X]'],
    ['octal escapes', octal.map((number) => `\\${number}`).join(''), 'X'],
    ['unicode escapes', hex.map((pair) => `\\u00${pair}`).join(''), 'X'],
    ['HTML entities', hex.map((pair) => `&#x${pair};`).join(''), 'X;'],
    ['quoted strings', hex.map((pair) => `'${pair}'`).join(', '), "'X'"],
  ])('replaces a dump with %s whole', (_name, dump, left) => {
    expect(redactor.redact(`got ${dump} from the socket`)).toBe(
      `got ${left.replace('X', '[REDACTED:STRIPE_SECRET_KEY]')} from the socket`,
    );
  });

  /** What a dump still shows of the secret: any 3 bytes in a row as the tool prints them, or 4 characters of its ASCII column. */
  function readable(out: string, join: (tokens: string[]) => string[]): string[] {
    const found: string[] = [];
    for (let i = 0; i + 4 <= secret.length; i++)
      if (out.includes(secret.slice(i, i + 4))) found.push(secret.slice(i, i + 4));
    for (let i = 0; i + 3 <= bytes.length; i++)
      for (const shown of join(hex.slice(i, i + 4).concat())) if (out.includes(shown)) found.push(shown);
    return found;
  }

  const dumpTools: [string, string, string[], (tokens: string[]) => string[]][] = [
    // xxd groups two bytes: either alignment.
    ['xxd', 'xxd', [], (t) => [`${t[0]}${t[1]} ${t[2]}${t[3]}`, `${t[1]}${t[2]} ${t[3]}`]],
    [
      'xxd -u',
      'xxd',
      ['-u'],
      (t) => [`${t[0]}${t[1]} ${t[2]}`.toUpperCase(), `${t[1]}${t[2]} ${t[3]}`.toUpperCase()],
    ],
    ['hexdump -C', 'hexdump', ['-C'], (t) => [t.slice(0, 3).join(' ')]],
    ['od -An -tx1', 'od', ['-An', '-tx1'], (t) => [t.slice(0, 3).join(' ')]],
    ['od -tx1', 'od', ['-tx1'], (t) => [t.slice(0, 3).join(' ')]],
    [
      'od -b',
      'od',
      ['-b'],
      (t) => [
        t
          .slice(0, 3)
          .map((pair) => Number.parseInt(pair, 16).toString(8).padStart(3, '0'))
          .join(' '),
      ],
    ],
    [
      'od -c',
      'od',
      ['-c'],
      (t) => [
        t
          .slice(0, 3)
          .map((pair) => String.fromCharCode(Number.parseInt(pair, 16)))
          .join('   '),
      ],
    ],
    [
      'xxd -i',
      'xxd',
      ['-i'],
      (t) => [
        t
          .slice(0, 3)
          .map((pair) => `0x${pair}`)
          .join(', '),
      ],
    ],
  ];

  describe.each(dumpTools)('in the real output of %s', (_name, command, args, join) => {
    // Every offset of the secret in its line: its bytes wrap over two or three lines at each.
    it.each(Array.from({ length: 16 }, (_, offset) => offset))(
      'leaves neither its bytes nor its ASCII column readable at offset %i in the line',
      (offset) => {
        const input = `${'#'.repeat(offset)}${secret}\nthe end of the file, nothing else here\n`;
        const dump = tool(command, args, input);
        expect(readable(dump, join).length).toBeGreaterThan(0); // the check can fail
        const out = redactor.redact(dump);
        expect(readable(out, join)).toEqual([]);
        expect(out).toContain('[REDACTED:STRIPE_SECRET_KEY]');
        // The dump of the rest of the file is still there, line for line.
        const rest = tool(
          command,
          args,
          `${'#'.repeat(offset)}${'.'.repeat(secret.length)}\nthe end of the file, nothing else here\n`,
        );
        const lastLines = rest.split('\n').slice(-3).join('\n');
        expect(out.endsWith(lastLines)).toBe(true);
      },
    );
  });

  it('replaces the dump of a short value on one line of xxd, and across two', () => {
    const short = 'pw-4f9Qa2Z';
    const shortRedactor = createRedactor({ env: { DB_PASSWORD: short }, registered: false });
    const pairs = [...Buffer.from(short)].map((byte) => byte.toString(16).padStart(2, '0'));
    for (const offset of [0, 3, 10, 14]) {
      const dump = tool('xxd', ['-g1'], `${'#'.repeat(offset)}${short}\n`);
      const out = shortRedactor.redact(dump);
      expect(out).toContain('[REDACTED:DB_PASSWORD]');
      for (let i = 0; i + 3 <= short.length; i++) {
        expect(out).not.toContain(short.slice(i, i + 3));
        expect(out).not.toContain(pairs.slice(i, i + 3).join(' '));
      }
    }
  });

  it('replaces a dump of a long value (several pieces of 32 bytes) whole', () => {
    const long = `eyJhbGciOiJSUzI1NiJ9.${'Qm9yaXMgYW5kIERvcmlz'.repeat(6)}.c2lnbmF0dXJl`;
    const longRedactor = createRedactor({ env: {}, secrets: [long], registered: false });
    const dump = tool('hexdump', ['-C'], `Authorization-ish: ${long}\n`);
    const out = longRedactor.redact(dump);
    expect(out).toContain('[REDACTED]');
    expect(out).not.toMatch(/Qm9y|YW5k|IERv|cmlz/);
    expect(out).not.toContain(Buffer.from('Qm9y').toString('hex').match(/../g)?.join(' '));
    expect(out.split('\n').length).toBeLessThan(dump.split('\n').length);
  });

  it('leaves dumps of other bytes, hashes, UUIDs, MAC addresses and git SHAs alone', () => {
    const clean = [
      tool('xxd', [], 'hello world, nothing secret in this file at all\n'),
      tool('hexdump', ['-C'], 'sk-live-but-not-the-key-you-know\n'),
      tool('od', ['-An', '-tx1'], secret.slice(0, 10)), // a piece, not the value
      hex.slice(0, 10).join(':'),
      'sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)',
      'id 123e4567-e89b-12d3-a456-426614174000, mac 00:1a:2b:3c:4d:5e and 73:6b:2d:6c:69:76:65',
      'retries: 115, 107, 45; timeout: 30 30 30; 0x73, 0x6b, 0x2d',
      'export const value = await load("x", { retries: 3, timeout: 30 });',
    ];
    for (const text of clean) expect(redactor.redact(text)).toBe(text);
  });

  it('follows the minimum length of known values, and the placeholder', () => {
    const short = 'pw-12345';
    const dump = [...Buffer.from(short)].map((byte) => byte.toString(16)).join(':');
    expect(createRedactor({ env: {}, secrets: [short], registered: false, minLength: 9 }).redact(dump)).toBe(
      dump,
    );
    expect(createRedactor({ env: {}, secrets: [short], registered: false }).redact(`x ${dump} y`)).toBe(
      'x [REDACTED] y',
    );
    expect(
      createRedactor({ env: {}, secrets: [short], registered: false, placeholder: '***' }).redact(
        `x ${dump} y`,
      ),
    ).toBe('x *** y');
  });

  it('makes an event holding a dump not redact to itself, and a clean one still does', () => {
    const dump = tool('xxd', [], `key=${secret}\n`);
    expect(redactsToItselfWith(redactor, { type: 'tool-call-finished', result: { output: dump } })).toBe(
      false,
    );
    expect(redactor.redactValue({ output: dump }).output).not.toContain(hex.slice(4, 6).join(''));
    const clean = { type: 'tool-call-finished', result: { output: tool('xxd', [], 'nothing to see\n') } };
    expect(redactsToItselfWith(redactor, clean)).toBe(true);
  });
});
