import { afterEach, describe, expect, it, vi } from 'vitest';
import { abortableSleep, linkedAbortController, onAbort } from './abortable-sleep';

describe('onAbort', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('keeps one listener on a signal however many waits it has, and calls them in order', () => {
    const run = new AbortController();
    const add = vi.spyOn(run.signal, 'addEventListener');
    const calls: number[] = [];
    const cancels = Array.from({ length: 500 }, (_, index) => onAbort(run.signal, () => calls.push(index)));
    expect(add).toHaveBeenCalledTimes(1);
    cancels[1]?.();
    run.abort(new Error('stop'));
    expect(calls).toHaveLength(499);
    expect(calls.slice(0, 3)).toEqual([0, 2, 3]);
  });

  it('does not call a cancelled wait, nor a wait on a signal that already aborted', () => {
    const controller = new AbortController();
    const cancelled = vi.fn();
    onAbort(controller.signal, cancelled)();
    controller.abort();
    expect(cancelled).not.toHaveBeenCalled();
    const late = vi.fn();
    onAbort(controller.signal, late);
    expect(late).not.toHaveBeenCalled();
  });

  it('calls every wait even when one throws', () => {
    const controller = new AbortController();
    const after = vi.fn();
    onAbort(controller.signal, () => {
      throw new Error('bad wait');
    });
    onAbort(controller.signal, after);
    controller.abort();
    expect(after).toHaveBeenCalledTimes(1);
  });

  it('works on a signal that takes no new property', () => {
    const controller = new AbortController();
    Object.preventExtensions(controller.signal);
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('first'));
    onAbort(controller.signal, () => calls.push('cancelled'))();
    onAbort(controller.signal, () => calls.push('second'));
    controller.abort();
    expect(calls).toEqual(['first', 'second']);
  });

  it('calls the same callback once per wait', () => {
    const controller = new AbortController();
    const callback = vi.fn();
    onAbort(controller.signal, callback);
    const cancel = onAbort(controller.signal, callback);
    onAbort(controller.signal, callback);
    cancel();
    controller.abort();
    expect(callback).toHaveBeenCalledTimes(2);
  });

  it('links a child controller that follows its parent until disposed', () => {
    const parent = new AbortController();
    const first = linkedAbortController(parent.signal);
    const second = linkedAbortController(parent.signal);
    second.dispose();
    parent.abort(new Error('parent stop'));
    expect(first.controller.signal.aborted).toBe(true);
    expect(String(first.controller.signal.reason)).toMatch(/parent stop/);
    expect(second.controller.signal.aborted).toBe(false);
    expect(linkedAbortController(parent.signal).controller.signal.aborted).toBe(true);
  });

  it('lets many sleeps share one listener and rejects them all on abort', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const sleeps = Array.from({ length: 50 }, () => abortableSleep(60_000, controller.signal));
    expect(add).toHaveBeenCalledTimes(1);
    controller.abort();
    const settled = await Promise.allSettled(sleeps);
    expect(settled.every((result) => result.status === 'rejected')).toBe(true);
  });
});
