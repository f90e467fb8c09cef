import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sanitizeErrorCause } from './sanitize-error-cause';

const key = 'canary-unit-Pq71Hk29Rz';

class APIError extends Error {
  readonly status = 401;
  readonly type = 'authentication_error';
  readonly headers = new Headers({ authorization: `Bearer ${key}` });
  readonly error = { message: `invalid key ${key}` };
  readonly options = { apiKey: key };
}

describe('sanitizeErrorCause', () => {
  it('keeps the class name, redacted message and primitive fields, and drops headers and bodies', () => {
    const copy = sanitizeErrorCause(new APIError(`401 invalid key ${key}`), { secrets: [key] });
    expect(copy).toBeInstanceOf(Error);
    expect(copy.name).toBe('APIError');
    expect(copy.message).toBe('401 invalid key [redacted]');
    expect(copy).toMatchObject({ status: 401, type: 'authentication_error' });
    expect(copy).not.toHaveProperty('headers');
    expect(copy).not.toHaveProperty('error');
    expect(copy).not.toHaveProperty('options');
    const rendered = [
      inspect(copy, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
      JSON.stringify(copy),
      String(copy.stack),
    ];
    for (const text of rendered) expect(text).not.toContain(key);
  });

  it('keeps one inner cause with its code, redacted', () => {
    const socket = Object.assign(new Error(`other side closed (${key})`), { code: 'UND_ERR_SOCKET' });
    const outer = new TypeError('fetch failed', { cause: socket });
    const copy = sanitizeErrorCause(outer, { secrets: [key] });
    expect(copy.name).toBe('TypeError');
    expect(copy.cause).toMatchObject({
      name: 'Error',
      code: 'UND_ERR_SOCKET',
      message: 'other side closed ([redacted])',
    });
  });

  it('wraps non-errors and redacts key-shaped strings without configured secrets', () => {
    const copy = sanitizeErrorCause('failed with sk-proj-abcdefghijklmnop');
    expect(copy).toBeInstanceOf(Error);
    expect(copy.message).toBe('failed with [redacted]');
    expect(sanitizeErrorCause({ code: 7 }).message).toBe('[object Object]');
  });
});
