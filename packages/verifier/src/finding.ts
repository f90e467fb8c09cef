import { z } from 'zod';

/** How much a finding matters: P0 blocks (verdict `failed`), P1 is required (`retry`), P2 is desired. */
export const prioritySchema = z.enum(['P0', 'P1', 'P2']);
export type Priority = z.infer<typeof prioritySchema>;

/**
 * Outcome of one check. `error` means the check itself could not run (crash, timeout, missing
 * tool): an infrastructure problem that is never counted as the work failing, nor as a pass.
 */
export const findingStatusSchema = z.enum(['pass', 'fail', 'warn', 'skip', 'error']);
export type FindingStatus = z.infer<typeof findingStatusSchema>;

/**
 * Verification layers: 1 static (build, types, lint), 2 unit tests, 3 integration,
 * 4 end-to-end, 5 LLM-as-judge, 6 human review.
 */
export const verificationLayerSchema = z.union([
  z.literal(1),
  z.literal(2),
  z.literal(3),
  z.literal(4),
  z.literal(5),
  z.literal(6),
]);
export type VerificationLayer = z.infer<typeof verificationLayerSchema>;

/** What a finding rests on. Every field is optional; fill what the check actually saw. */
export const findingEvidenceSchema = z.object({
  /** The argv that ran (no shell). */
  command: z.array(z.string()).optional(),
  /** Its exit code (`null` when it was killed or never started). */
  exitCode: z.number().nullable().optional(),
  /** An excerpt of its output (capped). */
  output: z.string().optional(),
  /** A workspace-relative file. */
  file: z.string().optional(),
  /** A diff excerpt. */
  diffHunk: z.string().optional(),
  /** A ledger call id. */
  callId: z.string().optional(),
  /** The claim text that was checked. */
  claim: z.string().optional(),
});
export type FindingEvidence = z.infer<typeof findingEvidenceSchema>;

/** One result of one check. The verdict is derived from findings only. */
export const findingSchema = z.object({
  /** Name of the check or protocol (`ledger`, `notes`, `TEST`…). */
  check: z.string().min(1),
  priority: prioritySchema,
  status: findingStatusSchema,
  message: z.string(),
  layer: verificationLayerSchema.optional(),
  evidence: findingEvidenceSchema.optional(),
  /** Structured extras (test counts, judge scores…). */
  details: z.record(z.string(), z.unknown()).optional(),
});
export type Finding = z.infer<typeof findingSchema>;

const MAX_EXCERPT = 4000;

/**
 * Shortens `text` for evidence: keeps the head and the tail (where runners print summaries)
 * and marks the cut.
 */
export function excerpt(text: string, max = MAX_EXCERPT): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.3);
  const tail = max - head;
  return `${text.slice(0, head)}\n… [${text.length - max} characters cut] …\n${text.slice(-tail)}`;
}

const PRIORITY_RANK: Record<Priority, number> = { P0: 0, P1: 1, P2: 2 };

/** The more severe of two priorities (`P0` beats `P1` beats `P2`). */
export function higherPriority(a: Priority, b: Priority): Priority {
  return PRIORITY_RANK[a] <= PRIORITY_RANK[b] ? a : b;
}
