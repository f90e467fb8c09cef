import { ClosedloopError } from '@closedloop/model';
import { z } from 'zod';

const marker = Symbol.for('closedloop.verifier.error');

/** Every way a verifier call can be refused. */
export type VerifierErrorCode =
  /** A custom protocol definition (or a `Protocol` object) is malformed. */
  | 'invalid-protocol'
  /** A tool-contract configuration is malformed. */
  | 'invalid-contract'
  /** A contract profile name that the configuration does not define. */
  | 'unknown-profile'
  /** `verifyStep` was given a step id the plan does not have. */
  | 'unknown-step'
  /** Options of a verifier function are malformed (bad mode, bad criteria, bad cases…). */
  | 'invalid-options'
  /** The caller's signal aborted the verification. */
  | 'aborted';

/**
 * The one error class of `@closedloop/verifier`. Verification problems are findings, never
 * throws: this error is only for bad configuration and for aborts.
 * `VerifierError.isInstance(e)` works across duplicate package copies.
 */
export class VerifierError extends ClosedloopError<VerifierErrorCode> {
  readonly [marker] = true;
  override readonly name = 'VerifierError';

  /** True for a `VerifierError` from any copy of this package. */
  static override isInstance(error: unknown): error is VerifierError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/**
 * The error for an input zod rejected: `<what> is invalid: <issues>`, with the issues in
 * `details` and the zod error as `cause`. `what` names the input and, when it has one, its name.
 */
export function invalidInput(code: VerifierErrorCode, what: string, error: z.ZodError): VerifierError {
  return new VerifierError({
    code,
    message: `${what} is invalid: ${z.prettifyError(error)}`,
    details: { issues: error.issues },
    cause: error,
  });
}

/** `"name"` of a malformed object that has a string `name`, else `?` (for messages). */
export function quotedName(value: unknown): string {
  const name = typeof value === 'object' && value !== null ? (value as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? JSON.stringify(name) : '?';
}

/** Throws `VerifierError('aborted')` when `signal` has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) {
    throw new VerifierError({
      code: 'aborted',
      message: `${what} was aborted.`,
      cause: signal.reason,
    });
  }
}
