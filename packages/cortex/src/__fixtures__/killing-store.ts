/**
 * The kill points the crash-test children (kill-point-child.ts, fanout-kill-child.ts) share: a
 * pass-through run store that kills the process around its appends, and a journal write torn in
 * the middle. Both die with SIGKILL, as a crash would: no handler, no flush, no `finally`.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import type { RunStore } from '../run-store';

/** Kills this process at once with SIGKILL. */
export function die(): void {
  process.kill(process.pid, 'SIGKILL');
}

/** A promise that never settles: code after a `die()` that must not run waits on it. */
const never = (): Promise<never> => new Promise(() => {});

/** Where a {@link createKillingStore} kills the process. */
export type StoreKill =
  /** Right after the append (group commit) that holds the n-th record this process journals. */
  | { after: 'event'; n: number }
  /**
   * Right after the nth record of that event type reaches the journal: the records up to and
   * including it are appended, the rest of that append never is.
   */
  | { after: 'type'; type: string; nth: number }
  /** Right after the run's metadata is written, before anything reaches its journal. */
  | { after: 'meta' }
  | undefined;

/** A {@link RunStore} that kills the process at a kill point, and counts what it journaled. */
export interface KillingStore extends RunStore {
  /** How many records this process appended (printed by the children as `events`). */
  readonly appended: number;
}

/**
 * Parses the children's `KILL` variable for the store's kill points: `after-event:<n>` and
 * `after-type:<type>[/<nth>]` (nth default 1) and `after-meta`; undefined for any other kill point.
 */
export function storeKillOf(kill: string | undefined, arg: string | undefined): StoreKill {
  if (kill === 'after-meta') return { after: 'meta' };
  if (kill === 'after-event') return { after: 'event', n: Number(arg) };
  if (kill === 'after-type') {
    const [type = '', nth = '1'] = (arg ?? '').split('/');
    return { after: 'type', type, nth: Number(nth) };
  }
  return undefined;
}

/**
 * Wraps `inner` (the JSONL store) in a pass-through that kills the process at `kill` (see
 * {@link StoreKill}); `onLease` runs after each lease is acquired, before it is returned.
 */
export function createKillingStore(
  inner: RunStore & Required<Pick<RunStore, 'repair'>>,
  kill: StoreKill,
  options: { onLease?: () => Promise<void> } = {},
): KillingStore {
  let appended = 0;
  let typesSeen = 0;
  return {
    get appended() {
      return appended;
    },
    read: (runId) => inner.read(runId),
    list: () => inner.list(),
    async writeMeta(runId, meta) {
      await inner.writeMeta(runId, meta);
      if (kill?.after === 'meta') {
        die();
        await never();
      }
    },
    readMeta: (runId) => inner.readMeta(runId),
    async acquireLease(runId, leaseOptions) {
      const lease = await inner.acquireLease(runId, leaseOptions);
      await options.onLease?.();
      return lease;
    },
    repair: (runId) => inner.repair(runId),
    async append(runId, records) {
      if (kill?.after === 'type') {
        const at = records.findIndex((record) => record.event.type === kill.type && ++typesSeen === kill.nth);
        if (at !== -1) {
          await inner.append(runId, records.slice(0, at + 1));
          die();
          await never();
        }
      }
      await inner.append(runId, records);
      const before = appended;
      appended += records.length;
      if (kill?.after === 'event' && before < kill.n && appended >= kill.n) die();
    },
  };
}

/**
 * Patches `fs.writeSync` so that the n-th journal group write (a buffer starting `{"seq":`; group 0
 * is the journal's header line, `{"format":`) kills the process: `torn` writes part of it first (`half`, or `in-multibyte`: up to the middle of the
 * group's first multibyte character when it has one, else half) — the journal ends in a torn line;
 * `in-fsync` lets the write through and dies as the group's fdatasync runs (written, not yet
 * acknowledged: the fdatasync starts on the thread pool right after the write returns, and a
 * microtask runs before its completion can be delivered).
 */
export function killInJournalWrite(options: {
  group: number;
  how: 'torn' | 'in-fsync';
  cut?: 'half' | 'in-multibyte';
}): void {
  let groups = 0;
  const writeSync = fs.writeSync;
  fs.writeSync = ((fd: number, buffer: unknown, ...rest: unknown[]) => {
    if (
      Buffer.isBuffer(buffer) &&
      (options.group === 0
        ? buffer.subarray(0, 10).toString() === '{"format":'
        : buffer.subarray(0, 7).toString() === '{"seq":' && ++groups === options.group)
    ) {
      if (options.how === 'torn') {
        const multibyte = options.cut === 'in-multibyte' ? buffer.findIndex((byte) => byte >= 0x80) : -1;
        writeSync(fd, buffer, 0, multibyte === -1 ? Math.floor(buffer.length / 2) : multibyte + 1);
        die();
      } else queueMicrotask(die);
    }
    return (writeSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
}
