import { CortexError } from './cortex-error';
import { type JournalRecord, RecordFold } from './journal-format';
import type { RunEvent } from './run-events';
import { createLeaseTable, type LeaseOptions, type RunLease } from './run-lease';

/** A JSON value, as stored run metadata holds. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What a run needs besides its events to be resumed: the request and the serialisable options. */
export interface RunMeta {
  runId: string;
  request: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** The serialisable run options (`planning`, `concurrency`, `maxIterations`, `budget`, `deadlines`…). */
  options: { [key: string]: JsonValue };
  /**
   * Set (when a session of the run ends) once the run has journaled events: a journal without
   * events is then one that was lost or emptied, never one that was not started yet, and `resume`
   * refuses it rather than start the run over.
   */
  journaled?: boolean;
  /**
   * The highest seq durable when a session of the run last ended (written with `journaled`): a
   * journal that holds less was cut back or restored from an older copy, and `resume` refuses it
   * with `journal-rolled-back` — a check that works for every store, beside the store's own.
   */
  durableSeq?: number;
}

/**
 * Durable storage of runs: an append-only event journal per run, its metadata, and a lease (one
 * live owner per run). Implementations must pass `runStoreConformance` from
 * `@closedloop/cortex/testing`.
 *
 * - `append` stores one group of records (a group commit: the events of one turn, written
 *   together) after the ones before it. The returned promise settles once the group is as durable
 *   as the store promises (the JSONL store: written and fsynced by default); cortex acts on an
 *   event only after that. Cortex appends one group of a run at a time, seqs ascending; a group
 *   may be retried, so a seq already stored must be ignored when read back (a retried group
 *   re-writes the last seqs back to back; any other repeat is `journal-corrupt`).
 * - `read` returns the run's events in seq order, each seq once (`[]` for an unknown run), as
 *   copies. A damaged journal is a typed `CortexError` (`journal-empty`, `journal-truncated`,
 *   `journal-corrupt`, `journal-version`, `journal-mismatch`), never a shorter list; a store that
 *   knows how far the journal was durable (the JSONL store's `.durable` record, a Redis stream's
 *   last id) reports a journal shorter than that as `journal-rolled-back`.
 * - `list` returns the ids of every run with events or metadata, sorted.
 * - `acquireLease` makes the caller the run's one live owner, or throws
 *   `CortexError('run-leased')` ("run X is being resumed by pid N on host H") while another
 *   live holder has it; a holder that stopped renewing for the TTL is stale and can be taken over.
 * - Run ids are `[A-Za-z0-9._-]{1,128}` and not `.`/`..`; anything else throws
 *   `CortexError('invalid-run-id')`.
 */
export interface RunStore {
  append(runId: string, records: readonly JournalRecord[]): void | Promise<void>;
  read(runId: string): Promise<RunEvent[]>;
  list(): Promise<string[]>;
  writeMeta(runId: string, meta: RunMeta): Promise<void>;
  readMeta(runId: string): Promise<RunMeta | undefined>;
  acquireLease(runId: string, options?: LeaseOptions): Promise<RunLease>;
  /**
   * For stores whose writes can be cut off mid-record (files): drops a torn last record and
   * returns the bytes dropped. `resume` calls it only when the lease it took over shows that the
   * journal's last writer died (so the torn write is that writer's last, unacknowledged group —
   * nothing acted on it); any other torn journal stays a `journal-truncated` error.
   */
  repair?(runId: string): Promise<{ droppedBytes: number }>;
  /**
   * For stores that record a run's durable point apart from its journal (the JSONL store's
   * `.durable` record): makes the journal as `read` returned it durable and records that point.
   * `resume` calls it before acting on a history it read, so records a killed owner wrote but
   * never acknowledged are covered once anything acts on them.
   */
  sync?(runId: string): Promise<void>;
}

const runIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

/** Throws `CortexError('invalid-run-id')` unless `runId` is safe as a file name. */
export function assertRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== 'string' || !runIdPattern.test(runId) || runId === '.' || runId === '..') {
    throw new CortexError({
      code: 'invalid-run-id',
      message: `Run id ${JSON.stringify(runId)} is invalid: use 1-128 characters of [A-Za-z0-9._-] (not "." or "..").`,
      details: { runId },
    });
  }
}

/**
 * Creates a run id: time-sortable (`run-<base36 ms>-<random>`), so `list()` returns runs oldest first.
 */
export function createRunId(now: number = Date.now()): string {
  const random = Math.random().toString(36).slice(2, 8).padEnd(6, '0');
  return `run-${now.toString(36).padStart(9, '0')}-${random}`;
}

/**
 * The journal of one run in a memory store: each record's seq and JSON text, in parallel arrays
 * (a run keeps ~20 records a step: no object per record to hold and for the GC to move).
 */
interface MemoryJournal {
  seqs: number[];
  texts: string[];
}

/**
 * `text`, flat. `JSON.stringify` builds its result from pieces (a 300-character event is a tree
 * of ~5 strings in V8); the first character read flattens it into one string, and the GC then
 * drops the pieces. A store that keeps every record's text for the run's life keeps one string
 * per record, not the tree: ~25 % less memory for the journal and less for each young-generation
 * collection to copy. (On an engine without such trees the read is all it costs.)
 */
function flatText(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * An in-memory {@link RunStore}: fast, not durable (gone with the process). Records are stored
 * as JSON text (a record's `json` when it has one), so what is read back is exactly what a durable
 * store would return; leases are per process.
 *
 * @example
 * const cortex = createCortex({ model, tools, store: createMemoryRunStore() });
 */
export function createMemoryRunStore(): RunStore {
  const journals = new Map<string, MemoryJournal>();
  const metas = new Map<string, string>();
  const leases = createLeaseTable();
  return {
    append(runId, records) {
      assertRunId(runId);
      let journal = journals.get(runId);
      if (journal === undefined) {
        journal = { seqs: [], texts: [] };
        journals.set(runId, journal);
      }
      for (const record of records) {
        journal.seqs.push(record.seq);
        journal.texts.push(flatText(record.json ?? JSON.stringify(record.event)));
      }
    },
    async read(runId) {
      assertRunId(runId);
      const fold = new RecordFold();
      const journal = journals.get(runId);
      if (journal === undefined) return fold.events;
      for (let index = 0; index < journal.seqs.length; index++) {
        const text = journal.texts[index]!;
        const problem = fold.add(journal.seqs[index]!, JSON.parse(text) as RunEvent, text, `Run ${runId}`);
        if (problem) throw problem;
      }
      const unfinished = fold.finish();
      if (unfinished) throw unfinished;
      return fold.events;
    },
    async list() {
      return [...new Set([...journals.keys(), ...metas.keys()])].sort();
    },
    async writeMeta(runId, meta) {
      assertRunId(runId);
      metas.set(runId, JSON.stringify(meta));
    },
    async readMeta(runId) {
      assertRunId(runId);
      const text = metas.get(runId);
      return text === undefined ? undefined : (JSON.parse(text) as RunMeta);
    },
    acquireLease(runId, options) {
      assertRunId(runId);
      return leases.acquire(runId, options);
    },
  };
}
