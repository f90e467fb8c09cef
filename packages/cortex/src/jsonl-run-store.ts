import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { CortexError } from './cortex-error';
import type { RunEvent } from './run-events';
import { assertRunId, type RunMeta, type RunStore } from './run-store';

/** Options of {@link createJsonlRunStore}. */
export interface JsonlRunStoreOptions {
  /** Folder of the journals: `<dir>/<runId>.jsonl` and `<dir>/<runId>.meta.json`. Created on first write. */
  dir: string;
  /** Open journal file descriptors kept for fast appends (least recently used are closed). Default 32. */
  maxOpenFiles?: number;
}

/** A {@link RunStore} over JSONL files, plus `close()` to release file descriptors. */
export interface JsonlRunStore extends RunStore {
  /** The journal file of a run. */
  pathOf(runId: string): string;
  /** Closes the cached file descriptors (appends reopen them). */
  close(): void;
}

function storeError(action: string, path: string, cause: unknown): CortexError {
  return new CortexError({
    code: 'store-failed',
    message: `Run store could not ${action} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
    details: { path },
    cause,
  });
}

/**
 * The embedded durable {@link RunStore}: one append-only JSONL file per run.
 *
 * Durability: every event is one `write(2)` of a complete line to the file before `append`
 * returns, so it survives a crash of the process (`kill -9`), not a crash of the machine (no
 * `fsync`: the OS flushes its page cache on its own schedule). A torn last line — a line without
 * its newline — is ignored on read and cut off before the next append; any other unreadable line
 * throws `CortexError('journal-corrupt')`. Metadata is written to a temporary file and renamed,
 * so it is either the old or the new version.
 *
 * @example
 * const store = createJsonlRunStore({ dir: '.closedloop/runs' });
 * const cortex = createCortex({ model, tools, store });
 */
export function createJsonlRunStore(options: JsonlRunStoreOptions): JsonlRunStore {
  const { dir } = options;
  const maxOpenFiles = options.maxOpenFiles ?? 32;
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
  /** Open descriptors in least-recently-used order (Map iteration order). */
  const open = new Map<string, number>();
  let dirReady = false;

  const pathOf = (runId: string): string => {
    assertRunId(runId);
    return join(dir, `${runId}.jsonl`);
  };
  const metaPathOf = (runId: string): string => join(dir, `${runId}.meta.json`);

  const ensureDir = (): void => {
    if (dirReady) return;
    mkdirSync(dir, { recursive: true });
    dirReady = true;
  };

  /** Cuts a torn last line (no trailing newline) so the next line starts clean. */
  const repairTail = (fd: number): void => {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
    const chunk = Math.min(size, 1 << 20);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk);
      const buffer = Buffer.alloc(end - start);
      readSync(fd, buffer, 0, buffer.length, start);
      const newline = buffer.lastIndexOf(0x0a);
      if (newline >= 0) {
        ftruncateSync(fd, start + newline + 1);
        return;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
  };

  const descriptorOf = (runId: string): number => {
    const cached = open.get(runId);
    if (cached !== undefined) {
      open.delete(runId);
      open.set(runId, cached);
      return cached;
    }
    ensureDir();
    const path = pathOf(runId);
    const fd = openSync(path, 'a+');
    repairTail(fd);
    open.set(runId, fd);
    if (open.size > maxOpenFiles) {
      const [oldestId, oldestFd] = open.entries().next().value as [string, number];
      open.delete(oldestId);
      closeSync(oldestFd);
    }
    return fd;
  };

  return {
    pathOf,
    append(runId, event) {
      const path = pathOf(runId);
      const line = `${JSON.stringify(event)}\n`;
      try {
        writeSync(descriptorOf(runId), line);
      } catch (error) {
        throw storeError('append to', path, error);
      }
    },
    async read(runId) {
      const path = pathOf(runId);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw storeError('read', path, error);
      }
      const lines = text.split('\n');
      // The segment after the last newline is either empty or a torn write: ignored.
      lines.pop();
      const events: RunEvent[] = [];
      for (const [index, line] of lines.entries()) {
        if (line.trim() === '') continue;
        let event: unknown;
        try {
          event = JSON.parse(line);
        } catch (error) {
          throw new CortexError({
            code: 'journal-corrupt',
            message: `Journal ${path} line ${index + 1} is not valid JSON; only a torn last line is tolerated.`,
            details: { path, line: index + 1 },
            cause: error,
          });
        }
        if (
          typeof event !== 'object' ||
          event === null ||
          typeof (event as { type?: unknown }).type !== 'string'
        ) {
          throw new CortexError({
            code: 'journal-corrupt',
            message: `Journal ${path} line ${index + 1} is not an event (an object with a string "type").`,
            details: { path, line: index + 1 },
          });
        }
        events.push(event as RunEvent);
      }
      return events;
    },
    async list() {
      if (!existsSync(dir)) return [];
      const ids = new Set<string>();
      for (const name of readdirSync(dir)) {
        if (name.endsWith('.meta.json')) ids.add(name.slice(0, -'.meta.json'.length));
        else if (name.endsWith('.jsonl')) ids.add(name.slice(0, -'.jsonl'.length));
      }
      return [...ids].sort();
    },
    async writeMeta(runId, meta) {
      assertRunId(runId);
      const path = metaPathOf(runId);
      try {
        ensureDir();
        const temporary = `${path}.${process.pid}.tmp`;
        writeFileSync(temporary, JSON.stringify(meta));
        renameSync(temporary, path);
      } catch (error) {
        throw storeError('write', path, error);
      }
    },
    async readMeta(runId) {
      assertRunId(runId);
      const path = metaPathOf(runId);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
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
    close() {
      for (const fd of open.values()) closeSync(fd);
      open.clear();
    },
  };
}
