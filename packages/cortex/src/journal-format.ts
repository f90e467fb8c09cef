import { isUtf8 } from 'node:buffer';
import { CortexError } from './cortex-error';
import type { RunEvent } from './run-events';

/** The journal format this package writes (and the only one it reads). */
export const journalFormat = 'closedloop-run-journal';
/** Version 1 was the headerless format (one bare event per line) of closedloop 0.1. */
export const journalVersion = 2;

/** One line of a run's journal: the event and its position in the run (0, 1, 2… without gaps). */
export interface JournalRecord {
  seq: number;
  event: RunEvent;
  /**
   * `JSON.stringify(event)`, when the writer already has it: the run bus serializes each journaled
   * event once, as it is emitted, so the journal holds the event as it was then (a listener that
   * changes its copy later changes nothing in the journal). A store writes this text instead of
   * serializing `event` again; stores that do not know the field ignore it.
   */
  json?: string;
}

/** The first line of every journal file. */
export interface JournalHeader {
  format: typeof journalFormat;
  version: number;
  runId: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** The header line of a new journal (with its newline). */
export function encodeHeader(runId: string, createdAt: number): string {
  const header: JournalHeader = { format: journalFormat, version: journalVersion, runId, createdAt };
  return `${JSON.stringify(header)}\n`;
}

/**
 * One record as a journal line (with its newline): `{"seq":N,"event":{…}}`, exactly
 * `JSON.stringify({ seq, event })`, with the record's `json` as the event's text when it has one.
 */
export function encodeRecord(record: JournalRecord): string {
  if (record.json === undefined) return `${JSON.stringify({ seq: record.seq, event: record.event })}\n`;
  return `{"seq":${JSON.stringify(record.seq)},"event":${record.json}}\n`;
}

/** What a lenient read found: the readable events, and the first problem when there is one. */
export interface JournalInspection {
  events: RunEvent[];
  problem?: CortexError;
}

/** A retried group being skipped: the seq it must repeat next, and the record that began it. */
interface RetryInProgress {
  next: number;
  seq: number;
  where: string;
  line?: number;
}

/**
 * Folds the records of a run in order: each seq once, no gaps. A repeated seq is accepted only as
 * a retried group: records that re-write the run's last seqs back to back, each with the content
 * it had (skipped). Anything else is refused — a seq repeated with different content (two
 * writers), an older line copied further on (by hand, or by a writer that reopened the journal),
 * a re-write that stops short of the last seq or seqs out of order — never skipped as a retry.
 */
export class RecordFold {
  readonly events: RunEvent[] = [];
  readonly #lines: string[] = [];
  /** While a retried group is being skipped: the seq it must repeat next, and where it began. */
  #retry: RetryInProgress | undefined;

  /**
   * Adds a record given as its JSON text and parsed value; returns a problem or `undefined`.
   * `line` (a journal file's line number) goes in the problem's details.
   */
  add(seq: number, event: RunEvent, text: string, where: string, line?: number): CortexError | undefined {
    const expected = this.events.length;
    const at = line === undefined ? {} : { line };
    const retry = this.#retry;
    if (retry !== undefined && seq !== retry.next) return this.#unfinished(retry, seq, where, line);
    if (seq < expected) {
      if (this.#lines[seq] !== text) {
        return new CortexError({
          code: 'journal-corrupt',
          message: `${where} repeats seq ${seq} with different content: two processes wrote this run at once. Inspect it before resuming.`,
          details: { seq, ...at },
        });
      }
      // The re-write ends with the last seq; until then the next record must repeat the next seq.
      const started = retry ?? { seq, where, ...at };
      this.#retry = seq + 1 < expected ? { ...started, next: seq + 1 } : undefined;
      return undefined;
    }
    if (seq > expected) {
      return new CortexError({
        code: 'journal-corrupt',
        message: `${where} has seq ${seq} where ${expected} was expected: records are missing or out of order. Inspect it before resuming.`,
        details: { seq, expected, ...at },
      });
    }
    this.events.push(event);
    this.#lines.push(text);
    return undefined;
  }

  /** The problem of a read that ended (`undefined`: every record was folded). */
  finish(): CortexError | undefined {
    const retry = this.#retry;
    return retry === undefined ? undefined : this.#unfinished(retry, undefined, 'the end', undefined);
  }

  #unfinished(
    retry: RetryInProgress,
    found: number | undefined,
    where: string,
    line: number | undefined,
  ): CortexError {
    const last = this.events.length - 1;
    const next = found === undefined ? `${where} comes` : `${where} has seq ${found}`;
    return new CortexError({
      code: 'journal-corrupt',
      message: `${retry.where} repeats seq ${retry.seq} out of place: a retried group re-writes the last seqs (up to ${last}) back to back, but ${next} where seq ${retry.next} was repeated next. An older line was copied into the journal, or another writer wrote it. Inspect it before resuming.`,
      details: {
        seq: retry.seq,
        ...(retry.line === undefined ? {} : { line: retry.line }),
        ...(line === undefined ? {} : { foundLine: line }),
        ...(found === undefined ? {} : { found }),
      },
    });
  }
}

function corrupt(message: string, details: Record<string, unknown>, cause?: unknown): CortexError {
  return new CortexError({ code: 'journal-corrupt', message, details, ...(cause ? { cause } : {}) });
}

/**
 * Parses a journal file's text leniently: every intact event up to the first problem, and that
 * problem as a typed `CortexError` — `journal-empty` (0 bytes or only the header),
 * `journal-version` (no header, or a version this package does not know), `journal-truncated`
 * (the last line has no newline: a write that did not complete), `journal-corrupt` (an
 * unreadable line, a gap in the seqs, or one seq written twice with different content),
 * `journal-mismatch` (given `runId`, a header that names another run: another run's journal put
 * in this one's place).
 */
export function inspectJournalText(text: string, path: string, runId?: string): JournalInspection {
  if (text === '') {
    return {
      events: [],
      problem: new CortexError({
        code: 'journal-empty',
        message: `Journal ${path} is empty (0 bytes): the run never journaled an event. Nothing can be resumed from it.`,
        details: { path },
      }),
    };
  }
  const fold = new RecordFold();
  let offset = 0;
  let lineNumber = 0;
  const result = (problem?: CortexError): JournalInspection => ({
    events: fold.events,
    ...(problem ? { problem } : {}),
  });
  while (offset < text.length) {
    const newline = text.indexOf('\n', offset);
    lineNumber++;
    if (newline === -1) {
      const bytes = Buffer.byteLength(text.slice(offset));
      return result(
        new CortexError({
          code: 'journal-truncated',
          message: `Journal ${path} ends in a torn line (line ${lineNumber}, ${bytes} bytes without a newline): its last write did not complete (the writer was killed mid-write, the machine crashed or the disk is full). The ${fold.events.length} events before it are intact and nothing acted on the torn write; repair the journal to drop it, then resume.`,
          details: { path, line: lineNumber, bytes },
        }),
      );
    }
    const line = text.slice(offset, newline);
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      return result(
        corrupt(`Journal ${path} line ${lineNumber} is not valid JSON.`, { path, line: lineNumber }, error),
      );
    }
    if (lineNumber === 1) {
      const problem = checkHeader(parsed, path, runId);
      if (problem) return result(problem);
    } else {
      const record = parsed as Partial<JournalRecord> | null;
      if (
        typeof record !== 'object' ||
        record === null ||
        !Number.isInteger(record.seq) ||
        (record.seq as number) < 0 ||
        typeof record.event !== 'object' ||
        record.event === null ||
        typeof (record.event as { type?: unknown }).type !== 'string'
      ) {
        return result(
          corrupt(`Journal ${path} line ${lineNumber} is not a record ({ seq, event: { type, … } }).`, {
            path,
            line: lineNumber,
          }),
        );
      }
      const problem = fold.add(
        record.seq!,
        record.event as RunEvent,
        line,
        `Journal ${path} line ${lineNumber}`,
        lineNumber,
      );
      if (problem) return result(problem);
    }
    offset = newline + 1;
  }
  const unfinished = fold.finish();
  if (unfinished) return result(unfinished);
  if (fold.events.length === 0) {
    return result(
      new CortexError({
        code: 'journal-empty',
        message: `Journal ${path} has a header but no event: the run never journaled anything. Nothing can be resumed from it.`,
        details: { path },
      }),
    );
  }
  return result();
}

/**
 * Parses a journal file's bytes leniently, like `inspectJournalText`, and refuses bytes that are
 * not UTF-8: the writer only writes `JSON.stringify` text, so an invalid sequence is damage, never
 * something to decode as U+FFFD (that would read a record whose bytes changed as if it were
 * intact). An invalid sequence in the last line without a newline is a torn write
 * (`journal-truncated`, counted in bytes); anywhere else it is `journal-corrupt` with its line.
 */
export function inspectJournalBytes(bytes: Uint8Array, path: string, runId?: string): JournalInspection {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return inspectJournalText(buffer.toString('utf8'), path, runId);
  let start = 0;
  let lineNumber = 0;
  for (;;) {
    const newline = buffer.indexOf(0x0a, start);
    const end = newline === -1 ? buffer.length : newline;
    lineNumber++;
    if (!isUtf8(buffer.subarray(start, end))) {
      const before = inspectJournalText(buffer.subarray(0, start).toString('utf8'), path, runId);
      // A problem before the damaged line is reported first (an empty prefix is not a problem).
      if (before.problem && before.problem.code !== 'journal-empty') return before;
      const events = before.events;
      if (newline === -1) {
        const torn = end - start;
        return {
          events,
          problem: new CortexError({
            code: 'journal-truncated',
            message: `Journal ${path} ends in a torn line (line ${lineNumber}, ${torn} bytes without a newline, cut inside a UTF-8 sequence): its last write did not complete (the writer was killed mid-write, the machine crashed or the disk is full). The ${events.length} events before it are intact and nothing acted on the torn write; repair the journal to drop it, then resume.`,
            details: { path, line: lineNumber, bytes: torn },
          }),
        };
      }
      return {
        events,
        problem: corrupt(
          `Journal ${path} line ${lineNumber} is not valid UTF-8: its bytes were damaged after they were written (the writer only writes UTF-8 JSON). Inspect it before resuming.`,
          { path, line: lineNumber },
        ),
      };
    }
    // isUtf8 of the whole buffer failed, so some line fails before the end.
    start = end + 1;
  }
}

function checkHeader(parsed: unknown, path: string, runId: string | undefined): CortexError | undefined {
  const header = parsed as Partial<JournalHeader> | null;
  if (typeof header === 'object' && header !== null && header.format === journalFormat) {
    if (header.version === journalVersion) {
      if (runId === undefined || header.runId === runId) return undefined;
      return new CortexError({
        code: 'journal-mismatch',
        message: `Journal ${path} belongs to run ${JSON.stringify(header.runId)}, not ${JSON.stringify(runId)}: another run's journal is in its place. Put the run's own journal back; resuming from this one would replay another run.`,
        details: { path, runId, found: header.runId },
      });
    }
    return new CortexError({
      code: 'journal-version',
      message: `Journal ${path} is format version ${String(header.version)}; this @closedloop/cortex reads version ${journalVersion}. Use the closedloop version that wrote it.`,
      details: { path, version: header.version },
    });
  }
  if (
    typeof header === 'object' &&
    header !== null &&
    typeof (header as { type?: unknown }).type === 'string'
  ) {
    return new CortexError({
      code: 'journal-version',
      message: `Journal ${path} has no format header: it was written by closedloop 0.1 (format 1), which this version cannot resume. Report it with that version, or start the run again.`,
      details: { path, version: 1 },
    });
  }
  return corrupt(`Journal ${path} does not start with a closedloop journal header.`, { path, line: 1 });
}
