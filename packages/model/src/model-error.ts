import { ClosedloopError } from './closedloop-error';

const marker = Symbol.for('closedloop.model.error');

/** Every way a model call can fail, normalised across providers. */
export type ModelErrorCode =
  | 'rate-limited'
  | 'overloaded'
  | 'timeout'
  | 'network'
  | 'auth'
  | 'bad-request'
  | 'context-length'
  | 'invalid-response'
  | 'aborted';

const retryableCodes: ReadonlySet<ModelErrorCode> = new Set([
  'rate-limited',
  'overloaded',
  'timeout',
  'network',
]);

/** The structured detail of a {@link ModelError}: what the provider told us (never a key). */
export type ModelErrorDetails = {
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly provider: string | undefined;
  readonly retryAfterMs: number | undefined;
};

/**
 * Every model failure, normalised across providers. Never carries an API key: adapters build
 * messages from status, provider error type and message only, and redact key-shaped strings.
 */
export class ModelError extends ClosedloopError<ModelErrorCode, ModelErrorDetails> {
  readonly [marker] = true;
  override readonly name = 'ModelError';
  readonly isRetryable: boolean;
  /** From Retry-After / retry-after-ms when the provider sent it. */
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly provider: string | undefined;
  /** Raw model output, for `invalid-response` errors. */
  readonly rawOutput: string | undefined;
  /** Every raw output tried, oldest first (e.g. first answer and repair answer of `generateObject`). */
  readonly rawOutputs: readonly string[] | undefined;

  constructor(options: {
    code: ModelErrorCode;
    message: string;
    isRetryable?: boolean;
    retryAfterMs?: number;
    status?: number;
    requestId?: string;
    provider?: string;
    rawOutput?: string;
    rawOutputs?: readonly string[];
    cause?: unknown;
  }) {
    super({
      code: options.code,
      message: options.message,
      details: {
        status: options.status,
        requestId: options.requestId,
        provider: options.provider,
        retryAfterMs: options.retryAfterMs,
      },
      cause: options.cause,
    });
    this.isRetryable = options.isRetryable ?? retryableCodes.has(options.code);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.requestId = options.requestId;
    this.provider = options.provider;
    this.rawOutput = options.rawOutput;
    this.rawOutputs = options.rawOutputs;
  }

  /** True for a `ModelError` from any copy of this package. */
  static override isInstance(error: unknown): error is ModelError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
