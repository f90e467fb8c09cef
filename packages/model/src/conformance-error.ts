import { ClosedloopError } from './closedloop-error';

const marker = Symbol.for('closedloop.model.conformance-error');

/** What went wrong while setting up a conformance run or benchmark. */
export type ConformanceErrorCode = 'invalid-fixture' | 'invalid-options';

/**
 * A recorded `.http` fixture that cannot be parsed, or bad options for the loopback server, the
 * conformance suite or the overhead benchmark. (A failing adapter fails the suite's assertions;
 * this error is about the test setup itself.)
 */
export class ConformanceError extends ClosedloopError<ConformanceErrorCode> {
  readonly [marker] = true;
  override readonly name = 'ConformanceError';

  static override isInstance(error: unknown): error is ConformanceError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
