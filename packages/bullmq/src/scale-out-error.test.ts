import { ClosedloopError } from '@closedloop/model';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ScaleOutError, type ScaleOutErrorCode } from './scale-out-error';

describe('ScaleOutError', () => {
  it('is a ClosedloopError with its own code, details and cause', () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:6390');
    const error = new ScaleOutError({
      code: 'redis-unreachable',
      message: 'Redis at redis://127.0.0.1:6390 did not answer.',
      details: { url: 'redis://127.0.0.1:6390' },
      cause,
    });
    expect(error).toBeInstanceOf(ClosedloopError);
    expect(ClosedloopError.isInstance(error)).toBe(true);
    expect(ScaleOutError.isInstance(error)).toBe(true);
    expect(error.name).toBe('ScaleOutError');
    expect(error.details).toEqual({ url: 'redis://127.0.0.1:6390' });
    expect(error.cause).toBe(cause);
    expectTypeOf(error.code).toEqualTypeOf<ScaleOutErrorCode>();
  });

  it('isInstance works for an error from another copy of the package, and only for its own', () => {
    const foreign = Object.assign(new Error('fenced'), {
      [Symbol.for('closedloop.error')]: true,
      [Symbol.for('closedloop.bullmq.error')]: true,
    });
    expect(ScaleOutError.isInstance(foreign)).toBe(true);
    expect(ClosedloopError.isInstance(foreign)).toBe(true);
    expect(ScaleOutError.isInstance(new ClosedloopError({ code: 'x', message: 'x' }))).toBe(false);
  });
});
