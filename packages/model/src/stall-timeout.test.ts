import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error';
import { streamStallError, withStallTimeout } from './stall-timeout';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A source that yields `items` `gapMs` apart, then waits forever; records whether it was cancelled. */
function source(items: string[], gapMs: number) {
  const state = { cancelled: false };
  async function* run() {
    try {
      for (const item of items) {
        await sleep(gapMs);
        yield item;
      }
      await new Promise(() => {});
    } finally {
      state.cancelled = true;
    }
  }
  return { state, iterable: run() };
}

describe('withStallTimeout', () => {
  it('a silence longer than idleMs is the retryable stall error, after the items that came', async () => {
    const { iterable } = source(['a', 'b'], 5);
    const got: string[] = [];
    const started = performance.now();
    const error = await (async () => {
      for await (const item of withStallTimeout(iterable, {
        idleMs: 60,
        onStall: (ms) => streamStallError('p', ms),
      }))
        got.push(item);
    })().catch((e: unknown) => e);
    expect(got).toEqual(['a', 'b']);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('network');
    expect((error as ModelError).isRetryable).toBe(true);
    expect((error as ModelError).message).toMatch(/stalled \(no event for 60 ms/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('after complete(), a silence ends the stream as done: the answer is kept', async () => {
    const { iterable } = source(['a', 'end'], 5);
    const got: string[] = [];
    const guarded = withStallTimeout(iterable, {
      idleMs: 10_000,
      tailMs: 30,
      onStall: (ms) => streamStallError('p', ms),
    });
    const started = performance.now();
    for await (const item of guarded) {
      got.push(item);
      if (item === 'end') guarded.complete();
    }
    expect(got).toEqual(['a', 'end']);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('items slower than nothing but faster than idleMs pass; idleMs 0 turns the guard off', async () => {
    async function* finite() {
      for (const item of ['x', 'y', 'z']) {
        await sleep(20);
        yield item;
      }
    }
    const got: string[] = [];
    for await (const item of withStallTimeout(finite(), {
      idleMs: 200,
      onStall: (ms) => streamStallError('p', ms),
    }))
      got.push(item);
    expect(got).toEqual(['x', 'y', 'z']);
    const off: string[] = [];
    for await (const item of withStallTimeout(finite(), {
      idleMs: 0,
      onStall: (ms) => streamStallError('p', ms),
    }))
      off.push(item);
    expect(off).toEqual(['x', 'y', 'z']);
  });
});
