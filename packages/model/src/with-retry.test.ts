import { describe, expect, it } from 'vitest';
import { ModelError, type ModelErrorCode } from './model-error';
import { backoffDelay, type RetryEvent, withRetry } from './with-retry';

const fail = (code: ModelErrorCode, extra: { retryAfterMs?: number } = {}) =>
  new ModelError({ code, message: code, ...extra });

/** A fake clock whose sleep advances time instantly and records the delays. */
function fakeTime() {
  let time = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += ms;
    },
    advance: (ms: number) => {
      time += ms;
    },
  };
}

function failing(errors: Error[], value = 'ok') {
  let calls = 0;
  const fn = async () => {
    const error = errors[calls++];
    if (error) throw error;
    return value;
  };
  return { fn, calls: () => calls };
}

describe('backoffDelay', () => {
  it('grows exponentially and is capped', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelay(20)).toBe(20_000);
    expect(backoffDelay(3, { initialDelayMs: 100, factor: 3, maxDelayMs: 500 })).toBe(500);
  });
});

describe('withRetry', () => {
  it('returns the first success without sleeping', async () => {
    const time = fakeTime();
    await expect(withRetry(async () => 42, time)).resolves.toBe(42);
    expect(time.sleeps).toEqual([]);
  });

  it('retries retryable errors with full-jitter exponential backoff', async () => {
    const time = fakeTime();
    const { fn, calls } = failing([fail('overloaded'), fail('network')]);
    const events: RetryEvent[] = [];
    const result = await withRetry(fn, { ...time, random: () => 0.5, onRetry: (e) => events.push(e) });
    expect(result).toBe('ok');
    expect(calls()).toBe(3);
    expect(time.sleeps).toEqual([250, 500]);
    expect(events.map((e) => [e.attempt, e.error.code, e.delayMs])).toEqual([
      [1, 'overloaded', 250],
      [2, 'network', 500],
    ]);
  });

  it('uses the full backoff without jitter', async () => {
    const time = fakeTime();
    const { fn } = failing([fail('timeout'), fail('timeout')]);
    await withRetry(fn, { ...time, jitter: false, initialDelayMs: 100 });
    expect(time.sleeps).toEqual([100, 200]);
  });

  it('honours Retry-After when longer than the backoff', async () => {
    const time = fakeTime();
    const { fn } = failing([
      fail('rate-limited', { retryAfterMs: 7_000 }),
      fail('rate-limited', { retryAfterMs: 1 }),
    ]);
    await withRetry(fn, { ...time, random: () => 0.5 });
    expect(time.sleeps).toEqual([7_000, 500]);
  });

  it('throws the error when Retry-After exceeds maxRetryAfterMs', async () => {
    const time = fakeTime();
    const error = fail('rate-limited', { retryAfterMs: 120_000 });
    const { fn, calls } = failing([error]);
    await expect(withRetry(fn, time)).rejects.toBe(error);
    expect(calls()).toBe(1);
    expect(time.sleeps).toEqual([]);
  });

  it('does not retry non-retryable errors', async () => {
    for (const code of ['auth', 'bad-request', 'context-length', 'invalid-response'] as const) {
      const time = fakeTime();
      const error = fail(code);
      const { fn, calls } = failing([error]);
      await expect(withRetry(fn, time)).rejects.toBe(error);
      expect(calls()).toBe(1);
    }
  });

  it('does not retry plain errors', async () => {
    const error = new Error('bug');
    const { fn, calls } = failing([error]);
    await expect(withRetry(fn, fakeTime())).rejects.toBe(error);
    expect(calls()).toBe(1);
  });

  it('respects an explicit isRetryable flag', async () => {
    const error = new ModelError({ code: 'overloaded', message: 'x', isRetryable: false });
    const { fn, calls } = failing([error]);
    await expect(withRetry(fn, fakeTime())).rejects.toBe(error);
    expect(calls()).toBe(1);
  });

  it('stops at the attempt budget and throws the last error', async () => {
    const time = fakeTime();
    const last = fail('overloaded');
    const { fn, calls } = failing([fail('overloaded'), fail('overloaded'), last, fail('overloaded')]);
    await expect(withRetry(fn, { ...time, maxAttempts: 3 })).rejects.toBe(last);
    expect(calls()).toBe(3);
    expect(time.sleeps).toHaveLength(2);
  });

  it('rejects an invalid maxAttempts', async () => {
    await expect(withRetry(async () => 1, { maxAttempts: 0 })).rejects.toMatchObject({ code: 'bad-request' });
  });

  it('gives up instead of sleeping past the deadline (Retry-After capped by deadline)', async () => {
    const time = fakeTime();
    const error = fail('rate-limited', { retryAfterMs: 5_000 });
    const { fn, calls } = failing([error]);
    await expect(withRetry(fn, { ...time, deadlineMs: 3_000 })).rejects.toBe(error);
    expect(calls()).toBe(1);
    expect(time.sleeps).toEqual([]);
  });

  it('stops once the deadline has passed', async () => {
    const time = fakeTime();
    let calls = 0;
    const fn = async () => {
      calls++;
      time.advance(400);
      throw fail('overloaded');
    };
    await expect(
      withRetry(fn, { ...time, jitter: false, maxAttempts: 10, deadlineMs: 2_000 }),
    ).rejects.toMatchObject({
      code: 'overloaded',
    });
    // 400 | 500 sleep | 400 → 1300 | next sleep 1000 would end at 2300 ≥ 2000: stop.
    expect(calls).toBe(2);
    expect(time.sleeps).toEqual([500]);
  });

  it('aborts an attempt still running at the deadline with a timeout error', async () => {
    const started = performance.now();
    const promise = withRetry(
      ({ signal }) =>
        new Promise<never>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new Error('aborted by deadline')));
        }),
      { deadlineMs: 30 },
    );
    await expect(promise).rejects.toMatchObject({ code: 'timeout', isRetryable: false });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('rejects immediately when the signal is already aborted', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
        },
        { signal: AbortSignal.abort() },
      ),
    ).rejects.toMatchObject({ code: 'aborted' });
    expect(calls).toBe(0);
  });

  it('rejects within a few ms when aborted during the backoff sleep (real sleep)', async () => {
    const controller = new AbortController();
    const { fn, calls } = failing([fail('overloaded'), fail('overloaded')]);
    const promise = withRetry(fn, {
      signal: controller.signal,
      initialDelayMs: 10_000,
      jitter: false,
      onRetry: () => setTimeout(() => controller.abort(), 5),
    });
    const started = performance.now();
    await expect(promise).rejects.toMatchObject({ code: 'aborted' });
    // Far sooner than the 10 s backoff (a loaded machine can stall timers for a second).
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(calls()).toBe(1);
  });

  it('rejects on abort even when an injected sleep ignores the signal', async () => {
    const controller = new AbortController();
    const { fn } = failing([fail('overloaded')]);
    const promise = withRetry(fn, {
      signal: controller.signal,
      sleep: () => new Promise((resolve) => setTimeout(resolve, 10_000)),
      onRetry: () => queueMicrotask(() => controller.abort()),
    });
    const started = performance.now();
    await expect(promise).rejects.toMatchObject({ code: 'aborted' });
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('rejects on abort even when the attempt ignores the signal', async () => {
    const controller = new AbortController();
    const promise = withRetry(() => new Promise<never>(() => {}), { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(promise).rejects.toMatchObject({ code: 'aborted' });
  });

  it('passes the attempt number and a signal to the function', async () => {
    const seen: number[] = [];
    await withRetry(async ({ attempt, signal }) => {
      seen.push(attempt);
      expect(signal).toBeInstanceOf(AbortSignal);
      if (attempt < 3) throw fail('network');
    }, fakeTime());
    expect(seen).toEqual([1, 2, 3]);
  });
});
