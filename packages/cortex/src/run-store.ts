import { CortexError } from './cortex-error';
import type { RunEvent } from './run-events';

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
}

/**
 * Durable storage of runs: an append-only event journal per run plus its metadata. Implementations
 * must pass `runStoreConformance` from `@closedloop/cortex/testing`.
 *
 * - `append` stores one event after the ones before it; a returned promise must settle only once the
 *   event is stored. Cortex never has two appends of the same run outstanding.
 * - `read` returns the run's events in append order (`[]` for an unknown run), as copies.
 * - `list` returns the ids of every run with events or metadata, sorted.
 * - Run ids are `[A-Za-z0-9._-]{1,128}` and not `.`/`..`; anything else throws
 *   `CortexError('invalid-run-id')`.
 */
export interface RunStore {
  append(runId: string, event: RunEvent): void | Promise<void>;
  read(runId: string): Promise<RunEvent[]>;
  list(): Promise<string[]>;
  writeMeta(runId: string, meta: RunMeta): Promise<void>;
  readMeta(runId: string): Promise<RunMeta | undefined>;
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
 * An in-memory {@link RunStore}: fast, not durable (gone with the process). Events are stored as
 * JSON copies, so what is read back is exactly what a durable store would return.
 *
 * @example
 * const cortex = createCortex({ model, tools, store: createMemoryRunStore() });
 */
export function createMemoryRunStore(): RunStore {
  const journals = new Map<string, string[]>();
  const metas = new Map<string, string>();
  return {
    append(runId, event) {
      assertRunId(runId);
      let journal = journals.get(runId);
      if (journal === undefined) {
        journal = [];
        journals.set(runId, journal);
      }
      journal.push(JSON.stringify(event));
    },
    async read(runId) {
      assertRunId(runId);
      return (journals.get(runId) ?? []).map((line) => JSON.parse(line) as RunEvent);
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
  };
}
