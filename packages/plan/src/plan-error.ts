import { ClosedloopError } from '@closedloop/model/error';
import type { z } from 'zod';
import type { StepId, StepStatus } from './schema';

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

/** The issues zod reported for input it refused. */
type ZodIssues = readonly z.core.$ZodIssue[];

/**
 * The `details` of a {@link PlanError}, by code: the offending ids, statuses and values, and
 * zod's issues when zod refused the input.
 */
export type PlanErrorDetailsByCode = {
  /** `Plan.create` input that zod refused. */
  'invalid-plan': { readonly issues: ZodIssues };
  /** A bad argument: the offending value under its option's name, zod's issues when zod refused it. */
  'invalid-argument': {
    readonly stepId?: StepId;
    readonly status?: unknown;
    readonly insertAt?: unknown;
    readonly issues?: ZodIssues;
  };
  /** The step id given twice, and where (draft index or indexes). */
  'duplicate-step': {
    readonly stepId: StepId;
    readonly index?: number;
    readonly indexes?: readonly (number | undefined)[];
  };
  'unknown-step': { readonly stepId: StepId };
  /** A dependency (id or draft index) that names no step, and who named it. */
  'dangling-dependency': {
    readonly dependency: StepId | number;
    readonly stepId?: StepId;
    readonly index?: number;
  };
  /** The ids along the cycle, first id repeated at the end. */
  cycle: { readonly cycle: readonly StepId[] };
  'illegal-transition': {
    readonly stepId: StepId;
    readonly from?: StepStatus;
    readonly to?: StepStatus;
    readonly status?: StepStatus;
    readonly waitingOn?: readonly StepId[];
  };
  'completed-step-touched': { readonly stepIds: readonly StepId[] };
  'empty-redesign': { readonly stepIds?: readonly StepId[] };
  'unknown-tool-call': {
    readonly stepId: StepId;
    readonly tool?: string;
    readonly callId?: string;
    readonly recordedTool?: string;
  };
  'duplicate-tool-call': { readonly stepId: StepId; readonly callId: string };
  /** zod's issues, or the code (`reason`) and details of the inconsistency found. */
  'invalid-snapshot': {
    readonly issues?: ZodIssues;
    readonly reason?: PlanErrorCode;
    readonly [detail: string]: unknown;
  };
  /** Which event (index in the log, seq, type) and why (`reason`: the code of the refusal). */
  'invalid-event': {
    readonly index?: number;
    readonly seq?: number;
    readonly type?: string;
    readonly reason?: PlanErrorCode;
    readonly issues?: ZodIssues;
  };
};

/** The `details` of a {@link PlanError} with code `Code` (all of them for the default). */
export type PlanErrorDetails<Code extends PlanErrorCode = PlanErrorCode> = PlanErrorDetailsByCode[Code];

/**
 * The one error class of `@closedloop/plan`. A refused mutation throws it and leaves the plan
 * exactly as it was. `PlanError.isInstance(e)` works across duplicate package copies.
 */
export class PlanError<Code extends PlanErrorCode = PlanErrorCode> extends ClosedloopError<
  Code,
  PlanErrorDetails<Code>
> {
  readonly [marker] = true;
  override readonly name = 'PlanError';

  /**
   * True when the error has `code`; narrows `details` to that code's shape:
   * `if (error.hasCode('cycle')) error.details.cycle`.
   */
  hasCode<Narrow extends PlanErrorCode>(code: Narrow): this is PlanError<Narrow> {
    return (this.code as PlanErrorCode) === code;
  }

  /** True for a `PlanError` from any copy of this package. */
  static override isInstance(error: unknown): error is PlanError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
