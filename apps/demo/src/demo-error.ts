import { ClosedloopError } from '@closedloop/model/error';

const marker = Symbol.for('closedloop.demo.error');

/** Every way the CLI and the web server refuse a request before a run starts. */
export type DemoErrorCode =
  /** A flag, argument or request field has a value we cannot use (`--budget -5`, a file as `--workspace`). */
  | 'invalid-argument'
  /** A typed task but no model: no `--provider`, no API key in the environment. */
  | 'no-model'
  /** The chosen model cannot be used: its key is missing, its server does not answer. */
  | 'model-unavailable'
  /** No such run in the journal. */
  | 'unknown-run'
  /** The run cannot be resumed: it is active, or it stopped for good. */
  | 'not-resumable';

/**
 * A request the demo app cannot act on. The message says what was wrong and what to do; the CLI
 * prints it as one line (exit 2), the web server answers it with a 4xx status.
 * `DemoError.isInstance(e)` works across duplicate copies of the module.
 */
export class DemoError extends ClosedloopError<DemoErrorCode> {
  readonly [marker] = true;
  override readonly name = 'DemoError';

  constructor(code: DemoErrorCode, message: string, options: { cause?: unknown } = {}) {
    super({ code, message, cause: options.cause });
  }

  /** True for a `DemoError` from any copy of this module. */
  static override isInstance(error: unknown): error is DemoError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
