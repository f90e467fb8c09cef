import { createHash } from 'node:crypto';
import { CortexError } from './cortex-error';
import type { JournalInspection } from './journal-format';

/** The format name of a journal's durable-point record (`<runId>.durable` beside `<runId>.jsonl`). */
export const durablePointFormat = 'closedloop-journal-durable';

/** Bytes of a durable-point record on disk: one JSON line padded with spaces, rewritten in place. */
export const durablePointSize = 256;

/**
 * How far a run's journal was durable when its last group commit was acknowledged, kept outside
 * the journal: the journal alone cannot tell a torn last write (nothing acted on it) from a
 * journal cut back into lines that were acted on.
 */
export interface DurablePoint {
  runId: string;
  /** The highest seq made durable (−1: only the header). */
  seq: number;
  /** The journal's length in bytes at that point (always the end of a whole line). */
  bytes: number;
  /** SHA-256 (hex) of the journal's first `bytes` bytes. */
  sha256: string;
}

/** A durable point as its fixed-size record (a JSON line padded to {@link durablePointSize}). */
export function encodeDurablePoint(point: DurablePoint): Buffer {
  const json = JSON.stringify({ format: durablePointFormat, version: 1, ...point });
  const buffer = Buffer.alloc(durablePointSize, 0x20);
  // Run ids are at most 128 characters: the record always fits.
  buffer.write(json, 0, 'utf8');
  buffer[durablePointSize - 1] = 0x0a;
  return buffer;
}

/** SHA-256 (hex) of `bytes`. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Parses a durable-point record; an unreadable one, or one that names another run, is a typed
 * error (`journal-corrupt`, `journal-mismatch`): without it a cut-back journal cannot be told from
 * a torn one, so it is never ignored.
 */
export function parseDurablePoint(text: string, path: string, runId: string): DurablePoint | CortexError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return new CortexError({
      code: 'journal-corrupt',
      message: `Durable-point record ${path} is not valid JSON: the run's journal cannot be checked against it. Inspect both files before resuming.`,
      details: { path },
      cause: error,
    });
  }
  const point = parsed as Partial<DurablePoint & { format: string; version: number }> | null;
  if (
    typeof point !== 'object' ||
    point === null ||
    point.format !== durablePointFormat ||
    point.version !== 1 ||
    typeof point.runId !== 'string' ||
    !Number.isInteger(point.seq) ||
    (point.seq as number) < -1 ||
    !Number.isInteger(point.bytes) ||
    (point.bytes as number) < 0 ||
    typeof point.sha256 !== 'string'
  ) {
    return new CortexError({
      code: 'journal-corrupt',
      message: `Durable-point record ${path} is not a ${durablePointFormat} version 1 record. Inspect it before resuming.`,
      details: { path },
    });
  }
  if (point.runId !== runId) {
    return new CortexError({
      code: 'journal-mismatch',
      message: `Durable-point record ${path} belongs to run ${JSON.stringify(point.runId)}, not ${JSON.stringify(runId)}. Put the run's own files back.`,
      details: { path, runId, found: point.runId },
    });
  }
  return { runId: point.runId, seq: point.seq!, bytes: point.bytes!, sha256: point.sha256 };
}

/** What {@link checkDurablePoint} compares. */
export interface DurablePointCheck {
  runId: string;
  /** The journal file's path (for messages). */
  path: string;
  /** The durable-point record's path (for messages). */
  pointPath: string;
  point: DurablePoint;
  /** The journal's bytes; `undefined` when the file is missing. */
  journal: Buffer | undefined;
  /** What reading the journal found. */
  inspection: JournalInspection;
}

/**
 * Checks a journal against its durable point. Returns the problem that a read must report, or
 * `undefined` when the journal holds everything that was made durable (then the inspection's own
 * problem, if any — a torn write past the durable point — stands):
 * - no journal file: `journal-missing`;
 * - fewer records than the durable seq: `journal-rolled-back` (`expectedSeq`, `foundSeq`), unless
 *   the journal is damaged before that point in a way its read names more precisely
 *   (`journal-corrupt`, `journal-version`, `journal-mismatch`);
 * - the records are there but the first `bytes` bytes are not the ones made durable (a line
 *   rewritten in place, another journal of the same length): `journal-corrupt`.
 */
export function checkDurablePoint(check: DurablePointCheck): CortexError | undefined {
  const { runId, path, pointPath, point, journal, inspection } = check;
  const problem = inspection.problem;
  // Only the header was durable: nothing acted on the journal yet.
  if (point.seq < 0) return undefined;
  if (problem?.code === 'journal-mismatch' || problem?.code === 'journal-version') return problem;
  const foundSeq = inspection.events.length - 1;
  if (journal === undefined) {
    return new CortexError({
      code: 'journal-missing',
      message: `Journal ${path} is missing, but run "${runId}" made seq ${point.seq} durable (${pointPath}): its events are gone, so it cannot be resumed (starting it over could repeat its effects). Restore the journal, or start a new run.`,
      details: { path, runId, expectedSeq: point.seq, foundSeq: -1 },
    });
  }
  if (foundSeq < point.seq) {
    if (problem?.code === 'journal-corrupt') return problem;
    return new CortexError({
      code: 'journal-rolled-back',
      message: `Journal ${path} ends at seq ${foundSeq} but run "${runId}" made seq ${point.seq} durable (${pointPath}): the journal was cut back, restored from an older copy or lost its tail after it was written, so events the run acted on are missing. Resuming would repeat their effects; restore the full journal, or keep it for inspection and start a new run.`,
      details: {
        path,
        runId,
        expectedSeq: point.seq,
        foundSeq,
        expectedBytes: point.bytes,
        foundBytes: journal.length,
      },
    });
  }
  if (journal.length < point.bytes || sha256Of(journal.subarray(0, point.bytes)) !== point.sha256) {
    return new CortexError({
      code: 'journal-corrupt',
      message: `Journal ${path}: its first ${point.bytes} bytes (through seq ${point.seq}) are not the ones run "${runId}" made durable (${pointPath}): the journal was rewritten or replaced. Inspect it before resuming.`,
      details: { path, runId, bytes: point.bytes, seq: point.seq },
    });
  }
  return undefined;
}
