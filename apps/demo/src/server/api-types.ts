import type { RunEvent } from '@closedloop/cortex';
import { z } from 'zod';
import type { ModelInfo } from '../runner/select-model';
import type { StepChanges } from '../workspace-changes/step-change-recorder';

/**
 * The web server's JSON API: request bodies as zod schemas, answers as types. The page imports
 * the types (`import type`), so both sides of every route are checked by the same compiler.
 */

/** Body of `POST /api/runs`: a typed task, or no task for the built-in offline scenario. */
export const startRunBodySchema = z
  .object({
    task: z
      .string()
      .trim()
      .min(1, 'task must not be empty (leave it out to run the built-in scenario)')
      .max(20_000, 'task is longer than 20000 characters')
      .optional(),
    mode: z.enum(['single', 'auto'], { error: 'mode must be "single" or "auto"' }),
  })
  .strict();
export type StartRunBody = z.infer<typeof startRunBodySchema>;

/** Body of `POST /api/runs/:id/approvals/:approvalId`. */
export const approvalBodySchema = z
  .object({
    approved: z.boolean({ error: 'approved must be true or false' }),
    note: z.string().trim().max(2000, 'note is longer than 2000 characters').optional(),
  })
  .strict();
export type ApprovalBody = z.infer<typeof approvalBodySchema>;

/** `GET /api/config`. */
export interface ConfigAnswer {
  /** The model typed tasks run on; `null`: none configured (only the offline scenario runs). */
  model: ModelInfo | null;
  version: string;
}

/** One entry of `GET /api/runs`. */
export interface RunListEntry {
  runId: string;
  updatedAt: number;
  active: boolean;
}

/** `GET /api/runs`. */
export interface RunListAnswer {
  runs: RunListEntry[];
}

/** `POST /api/runs` and `POST /api/runs/:id/resume`. */
export interface StartAnswer {
  runId: string;
}

/** `GET /api/runs/:id`. */
export interface RunAnswer {
  runId: string;
  /** Running in this server now (its events stream live). */
  active: boolean;
  /** Stopped without finishing for good (cancelled, deadline, budget, crash) and resumable here. */
  resumable: boolean;
  /** The model the run uses, when known. */
  model: ModelInfo | null;
  workspace: string | null;
  /** Journaled events, in order; index = SSE id. */
  events: RunEvent[];
}

/** `GET /api/runs/:id/steps/:stepId/changes`. */
export interface StepChangesAnswer {
  runId: string;
  stepId: string;
  /** One entry per run of the step (a resume or a reset runs it again), oldest first. */
  runs: StepChanges[];
}

/** Any 4xx/5xx answer. */
export interface ErrorAnswer {
  error: string;
}
