import { createHash, type Hash } from 'node:crypto';
import {
  close,
  constants,
  fdatasync,
  fdatasyncSync,
  fstat,
  fstatSync,
  ftruncateSync,
  open,
  writeSync,
} from 'node:fs';
import { mkdir, open as openFile, readdir, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CortexError } from './cortex-error';
import { checkDurablePoint, type DurablePoint, encodeDurablePoint, parseDurablePoint } from './durable-point';
import { acquireFileLease } from './file-lease';
import {
  encodeHeader,
  encodeRecord,
  inspectJournalBytes,
  type JournalInspection,
  type JournalRecord,
} from './journal-format';
import { assertRunId, type RunMeta, type RunStore } from './run-store';

const openAsync = promisify(open);
const closeAsync = promisify(close);
const fstatAsync = promisify(fstat);
const fdatasyncAsync = promisify(fdatasync);

/**
 * How durable a journal write is before cortex acts on it. In every mode, once a group is written
 * (and fdatasynced in `fsync` mode) the journal's durable point (`<runId>.durable`: its last seq,
 * length and SHA-256) is rewritten before the group is acknowledged, so a journal later found
 * shorter than what was acted on is refused (`journal-rolled-back`), not resumed:
 * - `fsync` (default): each group commit is written and `fdatasync`ed — it survives a crash of
 *   the process and of the machine (power loss); the durable point's own fdatasync overlaps the
 *   next group (whose acknowledgement waits for it), so after a power cut it may lag by one group;
 * - `batch`: each group commit is one `write(2)`, not fsynced — it survives `kill -9` of the
 *   process, but a machine crash may lose the last groups (the OS flushes on its own schedule);
 * - `none`: writes happen in the background and nothing waits for them — fastest, but a crash
 *   may lose recent events, so a resume may repeat their effects. For throwaway runs and tests.
 */
export type JournalDurability = 'fsync' | 'batch' | 'none';

/** Options of {@link createJsonlRunStore}. */
export interface JsonlRunStoreOptions {
  /**
   * Folder of the journals: `<dir>/<runId>.jsonl`, `.durable` (the journal's durable point),
   * `.meta.json` and `.lock`. Created on first write.
   */
  dir: string;
  /** Default `fsync`. See {@link JournalDurability}. */
  durability?: JournalDurability;
  /** Open journal file descriptors kept for fast appends (least recently used are closed). Default 32. */
  maxOpenFiles?: number;
}

/** A {@link RunStore} over JSONL files, plus what only files need. */
export interface JsonlRunStore extends RunStore {
  readonly durability: JournalDurability;
  /** The journal file of a run. */
  pathOf(runId: string): string;
  /**
   * Reads a journal leniently: every intact event up to the first problem, and that problem as a
   * typed error (what `read` would throw). `exists: false` when there is no journal file.
   */
  inspect(runId: string): Promise<JournalInspection & { exists: boolean }>;
  /**
   * Drops a torn last line (the only damage a crash mid-write leaves; nothing acted on it, since
   * a group is acted on only after it is written whole and its durable point recorded). Returns
   * the bytes dropped (0 when the journal ends cleanly). A torn line inside the durable point (the
   * journal was cut back into acknowledged records) is refused with `journal-rolled-back` and
   * nothing is dropped; other damage is left alone.
   */
  repair(runId: string): Promise<{ droppedBytes: number }>;
  /**
   * Makes the journal durable as it is (fdatasync) and moves its durable point to its end, after
   * checking it as `append` does. `resume` calls it before acting on what it read.
   */
  sync(runId: string): Promise<void>;
  /** Waits for pending writes, then closes the cached file descriptors (appends reopen them). */
  close(): Promise<void>;
}

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function storeError(action: string, path: string, cause: unknown): CortexError {
  if (CortexError.isInstance(cause)) return cause;
  return new CortexError({
    code: 'store-failed',
    message: `Run store could not ${action} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
    details: { path },
    cause,
  });
}

/**
 * Writes all of `buffer` at once. A group is a few kilobytes going to the page cache: a
 * synchronous write costs microseconds, less than a round trip through the thread pool. The
 * fdatasync that follows (`fsync` mode) runs on the thread pool: a synchronous one blocked every
 * other step of the run for the disk's latency, so a wide fan-out lost its parallelism
 * (`bench/wide-fanout.bench.ts`); meanwhile the steps' new events form the next group.
 */
function writeAllNow(fd: number, buffer: Buffer): void {
  let offset = 0;
  try {
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
  } catch (error) {
    // A write cut short (a full disk: part of the group went in, then ENOSPC / EFBIG) would leave
    // a torn last line that only a takeover may repair: the failed append takes its bytes back,
    // so the journal ends on its last whole group and stays resumable.
    if (offset > 0) {
      try {
        ftruncateSync(fd, fstatSync(fd).size - offset);
      } catch {
        // The torn line stays: reading reports it as `journal-truncated`.
      }
    }
    throw error;
  }
}

/** Writes a durable-point record over the previous one (one positional write of a whole sector). */
function writePointNow(fd: number, point: DurablePoint): void {
  const buffer = encodeDurablePoint(point);
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset, offset);
}

/** One journal file being appended to. */
interface OpenJournal {
  fd: number;
  /** The durable-point record (`<runId>.durable`), rewritten after each group is durable. */
  pointFd: number;
  /**
   * The fdatasync of the last durable point written (`fsync` mode): the next group's
   * acknowledgement waits for it, so it overlaps that group instead of adding to this one's.
   */
  pointSync: Promise<void>;
  /** SHA-256 of every byte written to the journal so far. */
  hash: Hash;
  /** The journal's length. */
  bytes: number;
  /** The highest seq written. */
  seq: number;
  /** Every write of this journal, chained: groups land in call order. */
  tail: Promise<void>;
  /** The first error of a background (`none`) write, thrown by the next append. */
  failure?: unknown;
  /** Evicted or closed: its descriptor closes after `tail`; appends reopen the file. */
  closed?: boolean;
}

/** Closes a journal's descriptor once its pending writes are done. */
function retire(opening: Promise<OpenJournal>): Promise<void> {
  return opening
    .then((journal) => {
      journal.closed = true;
      return journal.tail
        .then(() => journal.pointSync)
        .finally(() =>
          Promise.all([closeAsync(journal.fd), closeAsync(journal.pointFd).catch(() => undefined)]),
        );
    })
    .catch(() => undefined);
}

/**
 * The embedded durable {@link RunStore}: one append-only JSONL file per run.
 *
 * Format (version 2): a header line `{"format":"closedloop-run-journal","version":2,"runId",
 * "createdAt"}`, then one record per line, `{"seq":N,"event":{…}}`. Each `append` is one group
 * commit — one `write(2)` of whole lines, then `fdatasync` in `fsync` mode (see
 * {@link JournalDurability}). On read, a retried group (the last seqs written again back to
 * back, with the same content) is ignored; an empty journal, a torn last line, an unreadable line,
 * a gap, seqs out of order, a seq written twice with different content or an older line copied
 * further on is a typed `CortexError`, never a shorter history
 * (`inspect` shows the intact part; `repair` drops a torn last line). Appending to a journal
 * with a torn last line fails too; an append whose write is cut short (a full disk) takes its
 * bytes back before it fails, so the journal stays resumable; groups queued behind it are not
 * written, and the next append after the failure reopens the file. Metadata is written to a temporary file and renamed (fsynced
 * in `fsync` mode). The lease is a lock file beside the journal (see `acquireFileLease`).
 *
 * @example
 * const store = createJsonlRunStore({ dir: '.closedloop/runs' });
 * const cortex = createCortex({ model, tools, store });
 */
export function createJsonlRunStore(options: JsonlRunStoreOptions): JsonlRunStore {
  const { dir } = options;
  const maxOpenFiles = options.maxOpenFiles ?? 32;
  const durability = options.durability ?? 'fsync';
  if (typeof dir !== 'string' || dir === '') {
    throw new CortexError({
      code: 'invalid-options',
      message: `createJsonlRunStore: dir must be a non-empty path, got ${JSON.stringify(dir)}.`,
    });
  }
  if (!Number.isInteger(maxOpenFiles) || maxOpenFiles < 1) {
    throw new CortexError({
      code: 'invalid-options',
      message: `createJsonlRunStore: maxOpenFiles must be an integer ≥ 1, got ${String(maxOpenFiles)}.`,
    });
  }
  if (durability !== 'fsync' && durability !== 'batch' && durability !== 'none') {
    throw new CortexError({
      code: 'invalid-options',
      message: `createJsonlRunStore: durability must be 'fsync', 'batch' or 'none', got ${JSON.stringify(durability)}.`,
    });
  }
  /** Open journals in least-recently-used order (Map iteration order). */
  const open = new Map<string, Promise<OpenJournal>>();
  let dirReady: Promise<void> | undefined;

  const pathOf = (runId: string): string => {
    assertRunId(runId);
    return join(dir, `${runId}.jsonl`);
  };
  const metaPathOf = (runId: string): string => join(dir, `${runId}.meta.json`);
  const pointPathOf = (runId: string): string => join(dir, `${runId}.durable`);

  /** A file's bytes; `undefined` when it does not exist. */
  const readOptional = async (path: string): Promise<Buffer | undefined> => {
    try {
      return await readFile(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw storeError('read', path, error);
    }
  };

  /**
   * Reads a journal's bytes against its durable point (`pointBytes`: the `.durable` record; none
   * or empty for a journal written before the record existed, or created and killed before its
   * first point). `durable`: the problem the durable point finds (see `checkDurablePoint`);
   * `problem`: what a read reports — that one first, else the journal's own.
   */
  const verify = (
    runId: string,
    journal: Buffer | undefined,
    pointBytes: Buffer | undefined,
  ): JournalInspection & { durable?: CortexError; point?: DurablePoint } => {
    const path = pathOf(runId);
    const inspection: JournalInspection =
      journal === undefined ? { events: [] } : inspectJournalBytes(journal, path, runId);
    if (pointBytes === undefined || pointBytes.length === 0) return inspection;
    const pointPath = pointPathOf(runId);
    const point = parseDurablePoint(pointBytes.toString('utf8'), pointPath, runId);
    if (CortexError.isInstance(point)) return { events: inspection.events, problem: point, durable: point };
    const durable = checkDurablePoint({ runId, path, pointPath, point, journal, inspection });
    const problem = durable ?? inspection.problem;
    return {
      events: inspection.events,
      point,
      ...(problem ? { problem } : {}),
      ...(durable ? { durable } : {}),
    };
  };

  /** Makes a new directory entry durable (fsync mode): the file itself is fsynced separately. */
  const syncDir = async (): Promise<void> => {
    if (durability !== 'fsync') return;
    const handle = await openFile(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };

  const ensureDir = (): Promise<void> => {
    dirReady ??= mkdir(dir, { recursive: true }).then(() => undefined);
    return dirReady;
  };

  /**
   * Opens a journal for appending: writes the header (and the first durable point) of a new one;
   * refuses one that a read would refuse (torn, damaged, behind its durable point — appending
   * would bury the evidence), except one with no event yet. An existing journal is fdatasynced and
   * its durable point moved to its end first: what was read of it may be acted on.
   */
  const openJournal = async (runId: string, path: string): Promise<OpenJournal> => {
    await ensureDir();
    const pointPath = pointPathOf(runId);
    // A deleted journal whose run made events durable is refused before anything creates a new
    // (empty) one in its place.
    const earlier = await readOptional(pointPath);
    if (earlier !== undefined && earlier.length > 0 && (await readOptional(path)) === undefined) {
      const { durable } = verify(runId, undefined, earlier);
      if (durable) throw durable;
    }
    const fd = await openAsync(path, 'a+');
    let pointFd: number | undefined;
    try {
      pointFd = await openAsync(pointPath, constants.O_RDWR | constants.O_CREAT, 0o644);
      const { size } = await fstatAsync(fd);
      const pointBytes = await readFile(pointPath);
      const hash = createHash('sha256');
      let journal: OpenJournal;
      if (size === 0) {
        // A journal emptied after events were made durable is refused like a cut-back one.
        const { durable } = verify(runId, undefined, pointBytes);
        if (durable) throw durable;
        const header = Buffer.from(encodeHeader(runId, Date.now()));
        writeAllNow(fd, header);
        hash.update(header);
        journal = {
          fd,
          pointFd,
          pointSync: Promise.resolve(),
          hash,
          bytes: header.length,
          seq: -1,
          tail: Promise.resolve(),
        };
      } else {
        const buffer = await readFile(path);
        const { problem, events, point } = verify(runId, buffer, pointBytes);
        if (problem && problem.code !== 'journal-empty') {
          throw problem.code === 'journal-truncated'
            ? new CortexError({
                code: 'journal-truncated',
                message: `${problem.message} Repair it before appending.`,
                details: problem.details,
                cause: problem,
              })
            : problem;
        }
        hash.update(buffer);
        journal = {
          fd,
          pointFd,
          pointSync: Promise.resolve(),
          hash,
          bytes: buffer.length,
          seq: events.length - 1,
          tail: Promise.resolve(),
        };
        if (point?.bytes === buffer.length) return journal;
      }
      if (durability === 'fsync') fdatasyncSync(fd);
      writePointNow(pointFd, {
        runId,
        seq: journal.seq,
        bytes: journal.bytes,
        sha256: journal.hash.copy().digest('hex'),
      });
      if (durability === 'fsync') fdatasyncSync(pointFd);
      if (pointBytes.length === 0 || size === 0) await syncDir();
      return journal;
    } catch (error) {
      await closeAsync(fd).catch(() => undefined);
      if (pointFd !== undefined) await closeAsync(pointFd).catch(() => undefined);
      throw error;
    }
  };

  const journalOf = (runId: string, path: string): Promise<OpenJournal> => {
    const cached = open.get(runId);
    if (cached !== undefined) {
      open.delete(runId);
      open.set(runId, cached);
      return cached;
    }
    const opening = openJournal(runId, path);
    open.set(runId, opening);
    opening.catch(() => {
      if (open.get(runId) === opening) open.delete(runId);
    });
    if (open.size > maxOpenFiles) {
      const [oldestId, oldest] = open.entries().next().value as [string, Promise<OpenJournal>];
      open.delete(oldestId);
      void retire(oldest);
    }
    return opening;
  };

  const store: JsonlRunStore = {
    durability,
    pathOf,
    async append(runId, records: readonly JournalRecord[]) {
      const path = pathOf(runId);
      if (records.length === 0) return;
      const buffer = Buffer.from(records.map(encodeRecord).join(''));
      let journal: OpenJournal;
      try {
        do journal = await journalOf(runId, path);
        while (journal.closed);
      } catch (error) {
        throw storeError('open', path, error);
      }
      if (journal.failure !== undefined) throw storeError('append to', path, journal.failure);
      // The write is synchronous (page cache, microseconds); the fdatasync runs on the thread pool so
      // the run's other steps keep working meanwhile, and what they emit forms the next group. The
      // append resolves (the group is acknowledged as durable) only after its fdatasync.
      const written = journal.tail.then(() => {
        // Groups queued behind a failed one are not written: the journal would have a gap.
        if (journal.failure !== undefined) throw journal.failure;
        writeAllNow(journal.fd, buffer);
        journal.hash.update(buffer);
        journal.bytes += buffer.length;
        journal.seq = Math.max(journal.seq, records[records.length - 1]!.seq);
        // The durable point moves only once the group is durable, so it never claims a record a
        // crash could still take back; it is written (the page cache: it survives the process)
        // before the group is acknowledged, so it claims every record anything acted on. Its
        // fdatasync overlaps the next group, whose acknowledgement waits for it: after a power cut
        // it lags the journal by one group at most (see `JournalDurability`).
        const point: DurablePoint = {
          runId,
          seq: journal.seq,
          bytes: journal.bytes,
          sha256: journal.hash.copy().digest('hex'),
        };
        if (durability === 'fsync') {
          return Promise.all([fdatasyncAsync(journal.fd), journal.pointSync]).then(() => {
            writePointNow(journal.pointFd, point);
            journal.pointSync = fdatasyncAsync(journal.pointFd);
            // A failed point fdatasync fails the next group (or `sync`/`close`), never silently.
            journal.pointSync.catch(() => undefined);
          });
        }
        writePointNow(journal.pointFd, point);
        return undefined;
      });
      journal.tail = written.catch((error: unknown) => {
        journal.failure ??= error;
        // The failed group took its bytes back (`writeAllNow`): a later append — a resume once
        // there is room again — reopens the journal instead of failing on this descriptor.
        const cached = open.get(runId);
        if (cached !== undefined) {
          void cached.then(
            (current) => {
              if (current === journal && open.get(runId) === cached) {
                open.delete(runId);
                void retire(cached);
              }
            },
            () => undefined,
          );
        }
      });
      if (durability === 'none') return;
      try {
        await written;
      } catch (error) {
        throw storeError('append to', path, error);
      }
    },
    async read(runId) {
      const inspection = await store.inspect(runId);
      if (inspection.problem) throw inspection.problem;
      return inspection.events;
    },
    async inspect(runId) {
      const path = pathOf(runId);
      await open.get(runId)?.then(
        (journal) => journal.tail,
        () => undefined,
      );
      // The point first: it only moves after the journal grew, so a writer appending meanwhile
      // (a live run read by another process) never makes the journal look shorter than it.
      // A point found wrong is read again (twice, 10 ms apart): a reader may catch the point's
      // in-place rewrite half done.
      for (let attempt = 0; ; attempt++) {
        const pointBytes = await readOptional(pointPathOf(runId));
        const journal = await readOptional(path);
        const { events, problem, durable } = verify(runId, journal, pointBytes);
        if (durable === undefined || attempt === 2) {
          return { events, ...(problem ? { problem } : {}), exists: journal !== undefined };
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async repair(runId) {
      const path = pathOf(runId);
      const cached = open.get(runId);
      if (cached) {
        open.delete(runId);
        await retire(cached);
      }
      const buffer = await readOptional(path);
      if (buffer === undefined || buffer.length === 0 || buffer[buffer.length - 1] === 0x0a) {
        return { droppedBytes: 0 };
      }
      const keep = buffer.lastIndexOf(0x0a) + 1;
      // A torn line past the durable point is a write nothing acted on; one inside it means the
      // journal was cut back into acknowledged records: refused, and nothing is dropped.
      const { durable } = verify(runId, buffer.subarray(0, keep), await readOptional(pointPathOf(runId)));
      if (durable) throw durable;
      await truncate(path, keep);
      return { droppedBytes: buffer.length - keep };
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return [];
        throw storeError('list', dir, error);
      }
      const ids = new Set<string>();
      for (const name of names) {
        if (name.endsWith('.meta.json')) ids.add(name.slice(0, -'.meta.json'.length));
        else if (name.endsWith('.jsonl')) ids.add(name.slice(0, -'.jsonl'.length));
      }
      return [...ids].sort();
    },
    async writeMeta(runId, meta) {
      assertRunId(runId);
      const path = metaPathOf(runId);
      try {
        await ensureDir();
        const temporary = `${path}.${process.pid}.tmp`;
        if (durability === 'fsync') {
          const handle = await openFile(temporary, 'w');
          try {
            await handle.writeFile(JSON.stringify(meta));
            await handle.datasync();
          } finally {
            await handle.close();
          }
        } else {
          await writeFile(temporary, JSON.stringify(meta));
        }
        await rename(temporary, path);
        await syncDir();
      } catch (error) {
        throw storeError('write', path, error);
      }
    },
    async readMeta(runId) {
      assertRunId(runId);
      const path = metaPathOf(runId);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return undefined;
        throw storeError('read', path, error);
      }
      try {
        return JSON.parse(text) as RunMeta;
      } catch (error) {
        throw new CortexError({
          code: 'journal-corrupt',
          message: `Run metadata ${path} is not valid JSON.`,
          details: { path },
          cause: error,
        });
      }
    },
    async acquireLease(runId, leaseOptions) {
      assertRunId(runId);
      const path = join(dir, `${runId}.lock`);
      try {
        return await acquireFileLease(path, runId, leaseOptions);
      } catch (error) {
        throw storeError('lock', path, error);
      }
    },
    async sync(runId) {
      const path = pathOf(runId);
      try {
        let journal: OpenJournal;
        do journal = await journalOf(runId, path);
        while (journal.closed);
        await journal.tail;
        await journal.pointSync;
      } catch (error) {
        throw storeError('open', path, error);
      }
    },
    async close() {
      const journals = [...open.values()];
      open.clear();
      for (const opening of journals) await retire(opening);
    },
  };
  return store;
}
