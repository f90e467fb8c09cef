import { ClosedloopError } from '@closedloop/model';
import type { ToolErrorCode } from './tool';

const marker = Symbol.for('closedloop.tools.error');

/**
 * The one error class of `@closedloop/tools`. Tools throw it for typed failures
 * (`path-escape`, `command-denied`, …) so the registry's outcome keeps the code instead of
 * collapsing it into `execution-failed`. `ToolError.isInstance(e)` works across duplicate
 * package copies.
 */
export class ToolError extends ClosedloopError<ToolErrorCode> {
  readonly [marker] = true;
  override readonly name = 'ToolError';

  static override isInstance(error: unknown): error is ToolError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
