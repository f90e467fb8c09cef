const marker = Symbol.for('closedloop.error');

/**
 * The base of every error closedloop throws (like the AI SDK's `AISDKError`): a typed `code`,
 * typed `details`, the native `cause`, and a `Symbol.for('closedloop.error')` marker so
 * {@link ClosedloopError.isInstance} is true for an error from any copy of any closedloop package
 * (two installed versions, a bundled copy, another realm), where `instanceof` is not.
 *
 * Each package extends it with its own class (`PlanError`, `ModelError`, `CortexError`…), its
 * own code union and its own marker, so `PlanError.isInstance(e)` narrows to `PlanError` and
 * `ClosedloopError.isInstance(e)` is true for all of them.
 *
 * @typeParam Code - the string codes this error can carry.
 * @typeParam Details - the structured detail: the offending value, the ids, the zod issues…
 */
export class ClosedloopError<
  Code extends string = string,
  Details = Readonly<Record<string, unknown>>,
> extends Error {
  readonly [marker] = true;
  override readonly name: string = 'ClosedloopError';
  /** What went wrong, as a stable, machine-readable code. */
  readonly code: Code;
  /** Structured detail for programs; the message is for people. */
  readonly details: Details;

  /**
   * @param options.code - the error's code.
   * @param options.message - what was wrong, with the offending value, and what to do.
   * @param options.details - structured detail (an empty object when left out).
   * @param options.cause - the underlying error, kept as the native `Error.cause`.
   */
  constructor(options: { code: Code; message: string; details?: Details; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.details = options.details ?? ({} as Details);
  }

  /** True for any closedloop error, from any copy of any closedloop package. */
  static isInstance(error: unknown): error is ClosedloopError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
