import { z } from 'zod';
import {
  stepClaimsSchema,
  stepDraftSchema,
  stepIdSchema,
  stepSchema,
  stepStatusSchema,
  verificationRecordSchema,
} from './schema';

const base = {
  planId: z.string(),
  /** Position in the plan's event log, from 0, gap-free. */
  seq: z.number().int().min(0),
  /** Epoch milliseconds, from the plan's clock. */
  at: z.number(),
};

/**
 * Every mutation of a plan is one of these events; the plan's state is a fold over them
 * (`Plan.replay(events)`). Names are noun-then-verb, kebab-case.
 */
export const planEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('plan-created'),
    ...base,
    title: z.string(),
    goal: z.string(),
    steps: z.array(stepDraftSchema),
  }),
  z.object({
    type: z.literal('step-marked'),
    ...base,
    stepId: stepIdSchema,
    status: stepStatusSchema.optional(),
    previousStatus: stepStatusSchema.optional(),
    notes: z.string().optional(),
    output: z.string().optional(),
    files: z.array(z.string()).optional(),
    claims: stepClaimsSchema.optional(),
  }),
  z.object({
    type: z.literal('tool-call-started'),
    ...base,
    stepId: stepIdSchema,
    callId: z.string(),
    generatedId: z.boolean(),
    tool: z.string(),
    args: z.unknown(),
  }),
  z.object({
    type: z.literal('tool-call-finished'),
    ...base,
    stepId: stepIdSchema,
    callId: z.string(),
    status: z.enum(['success', 'error']),
    result: z.string().optional(),
    error: z.string().optional(),
  }),
  z.object({
    type: z.literal('step-finalized'),
    ...base,
    stepId: stepIdSchema,
    pendingCallIds: z.array(z.string()),
  }),
  z.object({
    type: z.literal('step-verified'),
    ...base,
    stepId: stepIdSchema,
    verification: verificationRecordSchema,
  }),
  z.object({
    type: z.literal('replan-applied'),
    ...base,
    /** The steps whose failure caused the surgery. */
    failed: z.array(stepIdSchema),
    /** Every removed step (failed ∪ downstream), in topological order. */
    removed: z.array(stepIdSchema),
    /** The inserted steps, fully resolved (ids, absolute dependencies, attempt counters). */
    added: z.array(stepSchema),
    /** Index in display order where the new steps were inserted. */
    insertAt: z.number().int().min(0),
  }),
  z.object({
    type: z.literal('steps-added'),
    ...base,
    /**
     * The inserted steps, fully resolved (final ids, absolute dependencies), all `not_started`
     * with an empty ledger. Existing steps never depend on them.
     */
    added: z.array(stepSchema).min(1),
    /** Index in display order where the new steps were inserted. */
    insertAt: z.number().int().min(0),
  }),
  z.object({
    type: z.literal('step-reset'),
    ...base,
    stepId: stepIdSchema,
    /**
     * The status the step left for `not_started`. Its notes, output, files, claims, ledger and
     * verification at that moment were archived as one entry of `previousAttempts`.
     */
    previousStatus: z.enum(['in_progress', 'failed']),
    /** Why (stored on the archived attempt). */
    reason: z.string().min(1),
  }),
]);

export type PlanEvent = z.infer<typeof planEventSchema>;
export type PlanEventType = PlanEvent['type'];
/** The event of one type, e.g. `PlanEventOf<'step-marked'>`. */
export type PlanEventOf<T extends PlanEventType> = Extract<PlanEvent, { type: T }>;
