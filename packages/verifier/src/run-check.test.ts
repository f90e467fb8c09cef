import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Finding } from './finding';
import { type RunCheckContext, runCheck, type StepCheck } from './run-check';
import { VerifierError } from './verifier-error';

const pass: Finding = { check: 'x', priority: 'P1', status: 'pass', message: 'ok' };

function contextOf(overrides: Partial<RunCheckContext> = {}): RunCheckContext {
  return { findings: [], timings: [], timeoutMs: 1_000, signal: undefined, ...overrides };
}

describe('runCheck', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('records a synchronous check at once, with no timer, controller or promise', () => {
    const caller = new AbortController();
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const controllerSpy = vi.spyOn(globalThis, 'AbortController');
    const addSpy = vi.spyOn(caller.signal, 'addEventListener');
    const context = contextOf({ signal: caller.signal });
    const returned = runCheck({ name: 'x', priority: 'P1', run: () => [pass] }, context);
    expect(returned).toBeUndefined();
    expect(context.findings).toEqual([pass]);
    expect(context.timings).toEqual([{ check: 'x', ms: expect.any(Number) }]);
    expect(setTimeoutSpy).not.toHaveBeenCalled();
    expect(controllerSpy).not.toHaveBeenCalled();
    expect(addSpy).not.toHaveBeenCalled();
  });

  it('turns a synchronous throw into an infrastructure error, and rethrows a VerifierError', () => {
    const context = contextOf();
    const returned = runCheck(
      {
        name: 'boom',
        priority: 'P0',
        run: () => {
          throw new Error('kaput');
        },
      },
      context,
    );
    expect(returned).toBeUndefined();
    expect(context.findings).toEqual([
      expect.objectContaining({
        check: 'boom',
        priority: 'P0',
        status: 'error',
        message: expect.stringMatching(/crashed: kaput/),
      }),
    ]);
    expect(context.timings).toHaveLength(1);
    const typed = new VerifierError({ code: 'aborted', message: 'stop' });
    expect(() =>
      runCheck(
        {
          name: 'typed',
          priority: 'P1',
          run: () => {
            throw typed;
          },
        },
        contextOf(),
      ),
    ).toThrow(typed);
  });

  it('times out an asynchronous check that never settles and aborts its signal', async () => {
    let seen: AbortSignal | undefined;
    const check: StepCheck = {
      name: 'slow',
      priority: 'P1',
      run: (scope) => {
        seen = scope.signal;
        return new Promise<Finding[]>(() => {});
      },
    };
    const context = contextOf({ timeoutMs: 30 });
    const started = performance.now();
    await runCheck(check, context);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(context.findings).toEqual([
      expect.objectContaining({
        check: 'slow',
        status: 'error',
        message: expect.stringMatching(/timed out after 30 ms/),
      }),
    ]);
    expect(seen?.aborted).toBe(true);
    expect(String(seen?.reason)).toMatch(/slow timed out/);
  });

  it('gives a check that reads its signal only after it timed out an aborted signal', async () => {
    let late: AbortSignal | undefined;
    let readLate: () => void = () => {};
    const check: StepCheck = {
      name: 'late',
      priority: 'P1',
      run: (scope) => {
        readLate = () => {
          late = scope.signal;
        };
        return new Promise<Finding[]>(() => {});
      },
    };
    const context = contextOf({ timeoutMs: 20 });
    await runCheck(check, context);
    readLate();
    expect(late?.aborted).toBe(true);
    expect(String(late?.reason)).toMatch(/late timed out/);
  });

  it('records an asynchronous check that resolves in time and ends its signal afterwards', async () => {
    let seen: AbortSignal | undefined;
    const context = contextOf();
    await runCheck(
      {
        name: 'x',
        priority: 'P1',
        run: async (scope) => {
          seen = scope.signal;
          expect(scope.signal.aborted).toBe(false);
          return [pass];
        },
      },
      context,
    );
    expect(context.findings).toEqual([pass]);
    expect(seen?.aborted).toBe(true);
  });

  it("answers at once when the caller aborts, aborting the check's signal, with one listener on the caller's signal", async () => {
    const caller = new AbortController();
    const addSpy = vi.spyOn(caller.signal, 'addEventListener');
    let seen: AbortSignal | undefined;
    const context = contextOf({ signal: caller.signal, timeoutMs: 60_000 });
    const pending = runCheck(
      {
        name: 'ignores-signal',
        priority: 'P1',
        run: (scope) => {
          seen = scope.signal;
          return new Promise<Finding[]>(() => {});
        },
      },
      context,
    );
    expect(pending).toBeInstanceOf(Promise);
    setTimeout(() => caller.abort(new Error('user stop')), 10);
    const started = performance.now();
    await pending;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(seen?.aborted).toBe(true);
    expect(String(seen?.reason)).toMatch(/user stop/);
    expect(context.findings).toEqual([]);
    // The caller's signal carries one listener (the shared onAbort one), not one per wait.
    expect(addSpy.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('gives a check read under an already-aborted caller an aborted signal', () => {
    const caller = new AbortController();
    caller.abort(new Error('gone'));
    const context = contextOf({ signal: caller.signal });
    let aborted: boolean | undefined;
    runCheck(
      {
        name: 'x',
        priority: 'P1',
        run: (scope) => {
          aborted = scope.signal.aborted;
          return [];
        },
      },
      context,
    );
    expect(aborted).toBe(true);
  });
});
