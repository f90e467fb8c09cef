import { z } from 'zod';
import { stepSchema } from './schema';

/** The snapshot format version written by `plan.toJSON()`. */
export const PLAN_SNAPSHOT_VERSION = 1;

/** A whole plan as JSON: what `plan.toJSON()` writes and `Plan.fromJSON()` reads. */
export const planSnapshotSchema = z.object({
  schemaVersion: z.literal(PLAN_SNAPSHOT_VERSION),
  id: z.string().min(1),
  title: z.string(),
  goal: z.string(),
  /** Every step with its whole state, in display order. */
  steps: z.array(stepSchema),
  /** Last number used for a generated step id (`s12`); generated ids never go back. */
  idCounter: z.number().int().min(0),
  /** `seq` of the next event, so a restored plan continues the same gap-free event log. */
  nextSeq: z.number().int().min(0),
});
export type PlanSnapshot = z.infer<typeof planSnapshotSchema>;
