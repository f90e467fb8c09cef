const marker = Symbol.for('closedloop.plan.error');

/** Every way a plan operation can be refused. */
export type PlanErrorCode =
  | 'invalid-plan'
  | 'invalid-argument'
  | 'duplicate-step'
  | 'unknown-step'
  | 'dangling-dependency'
  | 'cycle'
  | 'illegal-transition'
  | 'completed-step-touched'
  | 'empty-redesign'
  | 'unknown-tool-call'
  | 'duplicate-tool-call'
  | 'invalid-snapshot'
  | 'invalid-event';

/**
 * The one error class of `@closedloop/plan`. A refused mutation throws it and leaves the plan
 * exactly as it was. `PlanError.isInstance(e)` works across duplicate package copies.
 */
export class PlanError extends Error {
  readonly [marker] = true;
  override readonly name = 'PlanError';
  readonly code: PlanErrorCode;
  /** Structured detail: the offending ids, the cycle path, the zod issues… */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(options: {
    code: PlanErrorCode;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.details = options.details ?? {};
  }

  static isInstance(error: unknown): error is PlanError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
