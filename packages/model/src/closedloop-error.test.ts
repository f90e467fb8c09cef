import { describe, expect, expectTypeOf, it } from 'vitest';
import { CassetteError, type CassetteErrorCode } from './cassette';
import { ClosedloopError } from './closedloop-error';
import { ConformanceError } from './conformance-error';
import { ModelError, type ModelErrorCode, type ModelErrorDetails } from './model-error';

describe('ClosedloopError', () => {
  it('carries code, details, cause and name', () => {
    const cause = new Error('disk full');
    const error = new ClosedloopError({
      code: 'store-failed',
      message: 'Could not write run "r1": disk full. Free some space and resume the run.',
      details: { runId: 'r1' },
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ClosedloopError');
    expect(error.code).toBe('store-failed');
    expect(error.details).toEqual({ runId: 'r1' });
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe(
      'ClosedloopError: Could not write run "r1": disk full. Free some space and resume the run.',
    );
    expectTypeOf(error.code).toEqualTypeOf<'store-failed'>();
  });

  it('defaults details to an empty object', () => {
    expect(new ClosedloopError({ code: 'x', message: 'x' }).details).toEqual({});
  });

  it('isInstance is true for an error from another copy of the class (Symbol.for marker)', async () => {
    // A second copy of the module, as a duplicate install or a bundled copy would load it.
    const specifier = './closedloop-error.ts?copy';
    const copy: typeof import('./closedloop-error') = await import(/* @vite-ignore */ specifier);
    expect(copy.ClosedloopError).not.toBe(ClosedloopError);
    const foreign = new copy.ClosedloopError({ code: 'foreign', message: 'from the other copy' });
    expect(foreign instanceof ClosedloopError).toBe(false);
    expect(ClosedloopError.isInstance(foreign)).toBe(true);
    expect(copy.ClosedloopError.isInstance(new ClosedloopError({ code: 'local', message: 'local' }))).toBe(
      true,
    );
    // Only the marker counts: a look-alike without it is not a closedloop error.
    expect(ClosedloopError.isInstance(Object.assign(new Error('x'), { code: 'x', details: {} }))).toBe(false);
    expect(ClosedloopError.isInstance({ [Symbol.for('closedloop.error')]: true })).toBe(true);
    expect(ClosedloopError.isInstance(null)).toBe(false);
    expect(ClosedloopError.isInstance('ClosedloopError')).toBe(false);
  });

  it('every @closedloop/model error is a ClosedloopError and keeps its own isInstance', () => {
    const cause = new Error('socket hang up');
    const errors = [
      new ModelError({ code: 'network', message: 'net', cause }),
      new CassetteError({ code: 'cassette-exhausted', message: 'no more entries', cause }),
      new ConformanceError({ code: 'invalid-fixture', message: 'bad fixture', cause }),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ClosedloopError);
      expect(ClosedloopError.isInstance(error)).toBe(true);
      expect(error.cause).toBe(cause);
      expect(error.stack).toContain(error.name);
    }
    expect(errors.map((error) => error.name)).toEqual(['ModelError', 'CassetteError', 'ConformanceError']);
    expect(ModelError.isInstance(errors[0])).toBe(true);
    expect(ModelError.isInstance(errors[1])).toBe(false);
    expect(CassetteError.isInstance(errors[1])).toBe(true);
    expect(ConformanceError.isInstance(errors[0])).toBe(false);
  });

  it('ModelError keeps isRetryable and retryAfterMs, and mirrors what the provider said in details', () => {
    const error = new ModelError({
      code: 'rate-limited',
      message: 'rate limited',
      retryAfterMs: 1500,
      status: 429,
      requestId: 'req_1',
      provider: 'openai',
    });
    expect(error.isRetryable).toBe(true);
    expect(error.retryAfterMs).toBe(1500);
    expect(error.details).toEqual({
      status: 429,
      requestId: 'req_1',
      provider: 'openai',
      retryAfterMs: 1500,
    });
    expect(new ModelError({ code: 'auth', message: 'bad key' }).isRetryable).toBe(false);
    expectTypeOf(error.code).toEqualTypeOf<ModelErrorCode>();
    expectTypeOf(error.details).toEqualTypeOf<ModelErrorDetails>();
    expectTypeOf(
      new CassetteError({ code: 'cassette-invalid', message: 'x' }).code,
    ).toEqualTypeOf<CassetteErrorCode>();
  });

  it('isInstance narrows: to ClosedloopError for the base, to the subclass for a subclass', () => {
    const error: unknown = new ModelError({ code: 'timeout', message: 'slow' });
    if (ClosedloopError.isInstance(error)) {
      expectTypeOf(error.code).toEqualTypeOf<string>();
      expectTypeOf(error.details).toEqualTypeOf<Readonly<Record<string, unknown>>>();
    }
    if (ModelError.isInstance(error)) expectTypeOf(error.isRetryable).toEqualTypeOf<boolean>();
    expect(ClosedloopError.isInstance(error) && ModelError.isInstance(error)).toBe(true);
  });
});
