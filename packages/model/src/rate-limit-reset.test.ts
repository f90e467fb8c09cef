import { describe, expect, it } from 'vitest';
import { parseRateLimitReset } from './rate-limit-reset';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('parseRateLimitReset', () => {
  it('waits for the spent limit only (OpenAI/Groq durations)', () => {
    const headers = new Headers({
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '1.5s',
      'x-ratelimit-remaining-tokens': '88000',
      'x-ratelimit-reset-tokens': '6m0s',
    });
    expect(parseRateLimitReset({ headers }, now)).toBe(1500);
    expect(
      parseRateLimitReset(
        { headers: { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '2m59.56s' } },
        now,
      ),
    ).toBe(179_560);
    expect(
      parseRateLimitReset(
        { headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20ms' } },
        now,
      ),
    ).toBe(20);
  });

  it('reads Anthropic RFC 3339 resets and the longest spent limit wins', () => {
    const headers = {
      'anthropic-ratelimit-input-tokens-remaining': '0',
      'anthropic-ratelimit-input-tokens-reset': '2026-01-01T00:00:08Z',
      'anthropic-ratelimit-output-tokens-remaining': '0',
      'anthropic-ratelimit-output-tokens-reset': '2026-01-01T00:00:03Z',
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:30Z',
    };
    expect(parseRateLimitReset({ headers }, now)).toBe(8000);
  });

  it('reads a bare x-ratelimit-reset as epoch ms, epoch s or seconds, also from a body (OpenRouter)', () => {
    expect(
      parseRateLimitReset(
        { bodyHeaders: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(now + 4000) } },
        now,
      ),
    ).toBe(4000);
    expect(parseRateLimitReset({ headers: { 'x-ratelimit-reset': String(now / 1000 + 5) } }, now)).toBe(5000);
    expect(parseRateLimitReset({ headers: { 'x-ratelimit-reset': '12' } }, now)).toBe(12_000);
    expect(
      parseRateLimitReset({ headers: { 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '12' } }, now),
    ).toBeUndefined();
  });

  it('falls back to the wait the message names, and is undefined when nothing says', () => {
    expect(
      parseRateLimitReset({
        message:
          'Rate limit reached for gpt-4.1 on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2.004s.',
      }),
    ).toBe(2004);
    expect(parseRateLimitReset({ message: 'Please try again in 650ms.' })).toBe(650);
    expect(
      parseRateLimitReset({
        message:
          'Requests to the ChatCompletions_Create Operation have exceeded the rate limit. Please retry after 20 seconds.',
      }),
    ).toBe(20_000);
    expect(
      parseRateLimitReset({ message: 'slow down', headers: { 'x-ratelimit-remaining-requests': '5' } }),
    ).toBeUndefined();
    expect(parseRateLimitReset({})).toBeUndefined();
  });
});
