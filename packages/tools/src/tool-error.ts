import type { ToolErrorCode } from './tool';

const marker = Symbol.for('closedloop.tools.error');

/**
 * The one error class of `@closedloop/tools`. Tools throw it for typed failures
 * (`path-escape`, `command-denied`, …) so the registry's outcome keeps the code instead of
 * collapsing it into `execution-failed`. `ToolError.isInstance(e)` works across duplicate
 * package copies.
 */
export class ToolError extends Error {
  readonly [marker] = true;
  override readonly name = 'ToolError';
  readonly code: ToolErrorCode;
  /** Structured detail: the offending path, the denied argument, the zod issues… */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(options: {
    code: ToolErrorCode;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.details = options.details ?? {};
  }

  static isInstance(error: unknown): error is ToolError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
