const marker = Symbol.for('closedloop.model.error');

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

/**
 * Every model failure, normalised across providers. Never carries an API key: adapters build
 * messages from status, provider error type and message only, and redact key-shaped strings.
 */
export class ModelError extends Error {
  readonly [marker] = true;
  override readonly name = 'ModelError';
  readonly code: ModelErrorCode;
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
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.isRetryable = options.isRetryable ?? retryableCodes.has(options.code);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.requestId = options.requestId;
    this.provider = options.provider;
    this.rawOutput = options.rawOutput;
    this.rawOutputs = options.rawOutputs;
  }

  static isInstance(error: unknown): error is ModelError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
