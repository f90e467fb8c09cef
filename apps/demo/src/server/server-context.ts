import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { HttpError } from './http';
import type { RunBackend } from './run-backend';
import type { RunRegistry } from './run-registry';

/** What every route of one server shares. */
export interface ServerContext {
  backend: RunBackend;
  registry: RunRegistry;
  /** The run journals' folder (`<runId>.jsonl`), listed by `GET /api/runs`. */
  journalDir: string;
  heartbeatMs: number;
  /** Open event streams, ended by `close()`. */
  streams: Set<ServerResponse>;
}

/** A run id as the journal accepts it: a safe file name. */
export const runIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,128}$/)
  .refine((id) => id !== '.' && id !== '..');

/** Checks a run id from the path (400 otherwise). */
export function checkRunId(runId: string | undefined): string {
  if (runId === undefined || !runIdSchema.safeParse(runId).success) {
    throw new HttpError(400, `Invalid run id "${runId ?? ''}": use 1–128 characters of A–Z a–z 0–9 . _ -.`);
  }
  return runId;
}
