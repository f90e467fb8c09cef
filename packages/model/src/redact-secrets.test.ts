import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets';

describe('redactSecrets', () => {
  it('removes OpenAI and Anthropic keys', () => {
    const text = 'keys: sk-proj-AbC123_def-456ghi and sk-ant-api03-XyZ987654321abcdef-_';
    const out = redactSecrets(text);
    expect(out).toBe('keys: [redacted] and [redacted]');
  });

  it('removes bearer tokens and api-key headers but keeps the names', () => {
    expect(redactSecrets('Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig')).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecrets('x-api-key: abcdef1234567890')).toBe('x-api-key: [redacted]');
    expect(redactSecrets('{"api_key": "abcdefghijklmnop"}')).toBe('{"api_key": "[redacted]"}');
    expect(redactSecrets('https://host/v1?apikey=abcdefghijkl&x=1')).toBe(
      'https://host/v1?apikey=[redacted]&x=1',
    );
  });

  it('leaves ordinary text alone', () => {
    const text = 'HTTP 429: rate limit for model gpt-4o, retry in 2s (task-list, sk-8)';
    expect(redactSecrets(text)).toBe(text);
  });

  it('removes literal secrets of any shape, everywhere, but ignores values under 4 characters', () => {
    const key = 'canary-key-Zq81Xw5Lm3Vb7Nt2';
    expect(redactSecrets(`bad key ${key}; echoed: ${key}`, { secrets: [key] })).toBe(
      'bad key [redacted]; echoed: [redacted]',
    );
    expect(redactSecrets(`bad key ${key}`)).toContain(key);
    expect(redactSecrets('a b c abc', { secrets: ['abc', ''] })).toBe('a b c abc');
    expect(redactSecrets('key sk-proj-abcdefghijklmnop and Bearer abcdefghijklmnop', { secrets: [] })).toBe(
      'key [redacted] and Bearer [redacted]',
    );
  });
});
