import { z } from 'zod';

/** A step's id: a stable string that never changes while the step exists. */
export const stepIdSchema = z.string().min(1).max(200);
export type StepId = z.infer<typeof stepIdSchema>;

/**
 * Lifecycle of a step.
 * - `not_started` → `in_progress` | `blocked` | `skipped`
 * - `in_progress` → `completed` | `failed` | `blocked` | `skipped` | `not_started` (re-run after resume)
 * - `failed` (verification failed, awaiting replan) → `blocked` | `not_started` (retry in place)
 *
 * Back to `not_started` either keeps the step's ledger and notes (`markStep`) or archives them
 * in `previousAttempts` and starts clean (`resetStep`, event `step-reset`).
 * - `completed`, `blocked`, `skipped` are terminal.
 */
export const stepStatusSchema = z.enum([
  'not_started',
  'in_progress',
  'completed',
  'failed',
  'blocked',
  'skipped',
]);
export type StepStatus = z.infer<typeof stepStatusSchema>;

/** One entry of a step's tool-call ledger. Written `pending` before the tool runs. */
export const toolCallRecordSchema = z.object({
  /** Ledger-unique id: the provider's call id when there is one, else generated (`auto-N`). */
  callId: z.string(),
  /** True when the provider gave no id and `callId` was generated (results pair FIFO by tool name). */
  generatedId: z.boolean(),
  tool: z.string(),
  args: z.unknown(),
  status: z.enum(['pending', 'success', 'error']),
  result: z.string().optional(),
  error: z.string().optional(),
  /** Epoch milliseconds. */
  calledAt: z.number(),
  respondedAt: z.number().optional(),
});
export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;
export type ToolCallStatus = ToolCallRecord['status'];

/** What a step says it did, in structured form (from the executor's `mark_step` tool). */
export const stepClaimsSchema = z.object({
  filesWritten: z.array(z.string()).default([]),
  filesDeleted: z.array(z.string()).default([]),
  symbolsAdded: z
    .array(
      z.object({
        file: z.string(),
        name: z.string(),
        kind: z
          .enum(['function', 'class', 'interface', 'type', 'variable', 'export', 'import', 'any'])
          .default('any'),
      }),
    )
    .default([]),
  commandsPassed: z.array(z.object({ argv: z.array(z.string()).min(1) })).default([]),
  /** Git tags the step created (optionally on a named commit or ref) or deleted. */
  tags: z
    .array(
      z.object({
        name: z.string().min(1),
        action: z.enum(['create', 'delete']).default('create'),
        target: z.string().min(1).optional(),
      }),
    )
    .default([]),
});
export type StepClaims = z.infer<typeof stepClaimsSchema>;
export type StepClaimsInput = z.input<typeof stepClaimsSchema>;

/** A verification outcome stored on the step, for reports and for the replanner's prompt. */
export const verificationRecordSchema = z.object({
  verdict: z.enum(['success', 'success-with-warnings', 'retry', 'failed', 'unverified']),
  confidence: z.number().min(0).max(1).optional(),
  /** True when a required check could not run, or an upstream step was unverified. */
  unverified: z.boolean().default(false),
  findings: z
    .array(
      z.object({
        check: z.string(),
        priority: z.enum(['P0', 'P1', 'P2']),
        status: z.enum(['pass', 'fail', 'warn', 'skip', 'error']),
        message: z.string(),
      }),
    )
    .default([]),
});
export type VerificationRecord = z.infer<typeof verificationRecordSchema>;
export type VerificationRecordInput = z.input<typeof verificationRecordSchema>;

/**
 * An earlier attempt of a step, archived by `plan.resetStep` when the step went back to
 * `not_started`: its state at the reset, kept for reports and for the replanner's history.
 */
export const stepAttemptSchema = z.object({
  /** The status the step had when it was reset. */
  status: z.enum(['in_progress', 'failed']),
  /** Why the step was reset (`resetStep`'s `reason`). */
  reason: z.string(),
  /** Epoch milliseconds of the reset (the `at` of its `step-reset` event). */
  resetAt: z.number(),
  notes: z.string().default(''),
  output: z.string().optional(),
  files: z.array(z.string()).default([]),
  claims: stepClaimsSchema.optional(),
  ledger: z.array(toolCallRecordSchema).default([]),
  verification: verificationRecordSchema.optional(),
});
export type StepAttempt = z.infer<typeof stepAttemptSchema>;

/** A step as the planner (or replanner) drafts it. */
export const stepDraftSchema = z.object({
  id: stepIdSchema,
  title: z.string().optional(),
  description: z.string().min(1),
  dependsOn: z.array(stepIdSchema).default([]),
  /** Tools this step must call successfully, in this order. */
  requiredTools: z.array(z.string()).default([]),
  successCriteria: z.array(z.string()).default([]),
  /** Names of verifier protocols to run on this step (e.g. `TEST`). */
  protocols: z.array(z.string()).default([]),
});
export type StepDraft = z.input<typeof stepDraftSchema>;

/** A step with its whole state. */
export const stepSchema = stepDraftSchema.extend({
  status: stepStatusSchema,
  notes: z.string().default(''),
  output: z.string().optional(),
  files: z.array(z.string()).default([]),
  claims: stepClaimsSchema.optional(),
  ledger: z.array(toolCallRecordSchema).default([]),
  verification: verificationRecordSchema.optional(),
  /** How many redesigns led to this step (new steps inherit the failed step's count + 1). */
  replanAttempts: z.number().int().min(0).default(0),
  /**
   * Ids of the failed steps whose failure caused the redesign that created this step: the ids
   * passed to `plan.replaceSubgraph` (deduplicated, in the order given), the same on every step
   * of one redesign. Their downstream steps were removed too; the full removed set is the
   * `removed` of the `replan-applied` event, once. Empty for steps of the original plan and
   * steps added by `addSteps`. (Until 0.x this listed every removed step on every new step,
   * which was quadratic in the size of a redesign.)
   */
  replaces: z.array(stepIdSchema).default([]),
  /** Earlier attempts archived by `plan.resetStep`, oldest first (absent in old snapshots = `[]`). */
  previousAttempts: z.array(stepAttemptSchema).default([]),
});
export type Step = z.infer<typeof stepSchema>;

/** `T` with every property and array, at every depth, read-only. */
export type DeepReadonly<T> = T extends (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
    : T;

/** A step as `plan.readStep` returns it: the plan's own object, typed read-only. */
export type ReadonlyStep = DeepReadonly<Step>;

/** Input of `Plan.create`. */
export const planInputSchema = z.object({
  id: z.string().min(1).optional(),
  title: z.string().default(''),
  goal: z.string().default(''),
  steps: z.array(stepDraftSchema),
});
export type PlanInput = z.input<typeof planInputSchema>;

/**
 * A redesign of a subgraph. `dependsOn` entries are either a number (index into `steps`:
 * relative) or the id of a preserved step. Omitted ids are generated.
 */
export const subgraphDraftSchema = z.object({
  steps: z
    .array(
      stepDraftSchema.extend({
        id: stepIdSchema.optional(),
        dependsOn: z.array(z.union([z.number().int().min(0), stepIdSchema])).default([]),
      }),
    )
    .min(1),
});
export type SubgraphDraft = z.input<typeof subgraphDraftSchema>;
