import { isAbsolute } from 'node:path';
import type { JsonValue } from '@closedloop/cortex';
import { z } from 'zod';
import { ScaleOutError } from './scale-out-error';

/** BullMQ queue of step jobs; `steps@<group>` for steps that must run on one group of workers. */
export function stepQueueName(group?: string): string {
  return group === undefined ? 'steps' : `steps@${group}`;
}

/** BullMQ queue of run jobs (one per run, taken by a coordinator). */
export const runQueueName = 'runs';

/** Throws `ScaleOutError('invalid-options')` unless `group` can name a worker group. */
export function checkGroup(group: unknown, what = 'group'): string | undefined {
  if (group === undefined) return undefined;
  if (typeof group !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(group)) {
    throw new ScaleOutError({
      code: 'invalid-options',
      message: `${what} must be 1-64 characters of [A-Za-z0-9._-], got ${JSON.stringify(group)}.`,
      details: { group },
    });
  }
  return group;
}

/** JSON (it crossed Redis as JSON, so only the type needs saying). */
const jsonValueSchema = z.custom<JsonValue>(() => true);

/**
 * What a run is started with, as it travels between processes: the request and the
 * application's own JSON (workspace, model choice, options) from which every coordinator and
 * worker builds the same cortex.
 */
export const runSpecSchema = z.object({
  /** The user's request. */
  request: z.string().min(1),
  /** The run's workspace folder, as every process that runs its steps sees it (an absolute, shared path). */
  workspace: z
    .string()
    .refine(isAbsolute, 'the workspace must be an absolute path (every process resolves it the same way)')
    .optional(),
  /** Steps of this run go to workers of this group only (the machine that holds the workspace). */
  group: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .optional(),
  /** Anything else the application needs to build the run's cortex (JSON). */
  settings: z.record(z.string(), jsonValueSchema).default({}),
});

/** A run's spec (see {@link runSpecSchema}). */
export type RunSpec = z.infer<typeof runSpecSchema>;
/** A run's spec as callers write it (`settings` may be left out). */
export type RunSpecInput = z.input<typeof runSpecSchema>;

/** The data of a run job. */
export const runJobSchema = z.object({
  version: z.literal(1),
  runId: z.string(),
  spec: runSpecSchema,
});
export type RunJobData = z.infer<typeof runJobSchema>;

/** The data of a step job. */
export const stepJobSchema = z.object({
  version: z.literal(1),
  runId: z.string(),
  stepId: z.string(),
  executionId: z.string(),
  /** `task.snapshot()`: the step and its dependencies. */
  plan: z.unknown(),
  spec: runSpecSchema,
});
export type StepJobData = z.infer<typeof stepJobSchema>;

/** What a step job completes with. */
export const stepResultSchema = z.object({
  outcome: z.object({
    status: z.enum(['completed', 'failed', 'blocked']),
    notes: z.string().optional(),
    detail: z.unknown().optional(),
  }),
  /** The attempt (lock token) whose transcript entries are the step's events. */
  attempt: z.string(),
  /** Number of events that attempt journaled. */
  events: z.number().int().min(0),
  /**
   * That attempt's events, in order (what its transcript entries hold): the coordinator adopts
   * them from the result instead of reading the transcript back. A result without it (a worker of
   * an earlier version) is adopted from the transcript, which holds the events either way.
   */
  journal: z.array(z.unknown()).optional(),
  /**
   * Number of events earlier attempts (workers that died mid-step) had journaled: the attempt
   * continued from them, and the step's events are theirs followed by its own.
   */
  continued: z.number().int().min(0).default(0),
  /** The step could not reach the model: the run stops with `model-unavailable` (this reason). */
  modelUnavailable: z.string().min(1).optional(),
});
export type StepJobResult = z.infer<typeof stepResultSchema>;

/**
 * The BullMQ job id of one execution of a step: deterministic, so a coordinator that takes a run
 * over finds the job its predecessor queued (BullMQ ignores an `add` with an existing id).
 */
export function stepJobId(runId: string, executionId: string): string {
  // BullMQ refuses ':' in custom ids (and purely numeric ones, which this never is).
  return `${runId}/${executionId.replaceAll('%', '%25').replaceAll(':', '%3A')}`;
}

/** Parses job data, or throws `ScaleOutError('invalid-job')` naming the job. */
export function parseJob<T>(schema: z.ZodType<T>, data: unknown, jobId: string | undefined): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new ScaleOutError({
      code: 'invalid-job',
      message: `Job ${jobId ?? '(no id)'} does not have the shape this version of @closedloop/bullmq writes: ${parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ')}`,
      details: { jobId },
    });
  }
  return parsed.data;
}
