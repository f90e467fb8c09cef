import { readFileSync } from 'node:fs';
import { link, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CortexError } from './cortex-error';
import {
  isStale,
  type LeaseHolder,
  type LeaseOptions,
  leaseHeldError,
  leaseLostError,
  newLeaseHolder,
  type RunLease,
  resolveLeaseOptions,
  startHeartbeat,
} from './run-lease';

const thisHost = hostname();

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/**
 * What tells one process apart from a later one with the same pid (Linux): the boot it runs in
 * and its start time in clock ticks since boot (`/proc/<pid>/stat`, field 22). Absent elsewhere.
 */
interface ProcessIdentity {
  bootId?: string;
  processStart?: string;
}

/** A lock file's holder: the lease holder and, where the system tells, its process identity. */
type FileLeaseHolder = LeaseHolder & ProcessIdentity;

function readProcStat(pid: number): { state: string; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is field 3.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return fields[19] === undefined ? undefined : { state: fields[0]!, start: fields[19] };
  } catch {
    return undefined;
  }
}

function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

const thisBoot = readBootId();
const thisProcess: ProcessIdentity = {
  ...(thisBoot !== undefined ? { bootId: thisBoot } : {}),
  ...((start) => (start !== undefined ? { processStart: start } : {}))(readProcStat(process.pid)?.start),
};

/**
 * Whether the holder on this host is still running, told by its process rather than by any
 * clock: `false` when its pid is gone, names a zombie or another process (a reused pid, a lock
 * from before a reboot); `true` when it is the very process that took the lease; `undefined`
 * when the system cannot tell (no `/proc`, a lock without the identity).
 */
function isHolderAlive(holder: FileLeaseHolder): boolean | undefined {
  if (isDeadPid(holder.pid)) return false;
  if (holder.bootId !== undefined && thisBoot !== undefined && holder.bootId !== thisBoot) return false;
  const stat = readProcStat(holder.pid);
  if (stat === undefined || holder.processStart === undefined) return undefined;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return stat.start === holder.processStart;
}

/** True when `pid` is no process on this machine (`kill(pid, 0)` answers ESRCH). */
function isDeadPid(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return errnoCode(error) === 'ESRCH';
  }
}

async function readHolder(path: string): Promise<LeaseHolder | 'unreadable' | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const holder = JSON.parse(text) as LeaseHolder;
    if (typeof holder.token === 'string' && typeof holder.renewedAt === 'number') return holder;
  } catch {
    // fall through
  }
  return 'unreadable';
}

/** Writes `holder` to a private temporary file next to `path` and returns its path. */
async function writeTemporary(path: string, holder: LeaseHolder): Promise<string> {
  const temporary = `${path}.${holder.token}.tmp`;
  await writeFile(temporary, JSON.stringify(holder));
  return temporary;
}

/**
 * Creates the lock file only if none exists: a private file hard-linked into place (so no reader
 * ever sees it half written), or — on a file system without hard links — an exclusive create.
 * False when a lock exists.
 */
async function createExclusively(path: string, holder: LeaseHolder): Promise<boolean> {
  const temporary = await writeTemporary(path, holder);
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  try {
    await writeFile(path, JSON.stringify(holder), { flag: 'wx' });
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Claims the right to replace the dead holder `stale` of `path`: creates `<path>.takeover-<stale
 * token>` exclusively (so exactly one process may replace it). A marker left by a taker that died
 * mid-takeover (killed between its marker and its rename) would block every later taker: its
 * marker is taken over the same way, one level down. True when this process holds the claim.
 */
async function claimTakeover(options: {
  path: string;
  stale: LeaseHolder;
  holder: LeaseHolder;
  isDead: (other: LeaseHolder) => boolean;
  claimed: string[];
  depth?: number;
}): Promise<boolean> {
  const { path, stale, holder, isDead, claimed } = options;
  const marker = `${path}.takeover-${stale.token}`;
  if (await createExclusively(marker, holder)) {
    claimed.push(marker);
    return true;
  }
  const taker = await readHolder(marker);
  if (taker === undefined || taker === 'unreadable' || !isDead(taker) || (options.depth ?? 0) >= 8)
    return false;
  const depth = (options.depth ?? 0) + 1;
  if (!(await claimTakeover({ path: marker, stale: taker, holder, isDead, claimed, depth }))) return false;
  const again = await readHolder(marker);
  if (again === undefined || again === 'unreadable' || again.token !== taker.token) return false;
  await rename(await writeTemporary(marker, holder), marker);
  return true;
}

/**
 * A lease as a lock file (`<runId>.lock` beside the journal) holding the holder's pid, host and
 * heartbeat. Created atomically (a private file hard-linked into place, so it is never seen half
 * written); renewed by replacing it (rename). A holder on this host is judged by its process,
 * not by a clock: stale at once when its pid is gone, a zombie or another process (the lock
 * records the boot id and the process start time where `/proc` tells them), and never for a late
 * heartbeat while it runs (paused, or after a clock jump); a holder on another host (or of
 * unknown identity) is stale when its heartbeat is older than the TTL. A stale lock is taken over by exactly one process:
 * each taker must first create `<lock>.takeover-<stale token>` exclusively (a dead taker's marker
 * is taken over the same way), then checks that the lock still names the stale holder before
 * replacing it. A renewal that finds another holder's
 * lock aborts the lease's `signal`.
 */
export async function acquireFileLease(
  path: string,
  runId: string,
  options: LeaseOptions = {},
): Promise<RunLease> {
  const { purpose, ttlMs, renewEveryMs } = resolveLeaseOptions(options);
  await mkdir(dirname(path), { recursive: true });
  const holder: FileLeaseHolder = { ...newLeaseHolder(purpose, ttlMs), ...thisProcess };
  const takeovers: string[] = [];
  let takenOver: LeaseHolder | undefined;
  // On another host only the heartbeat can tell. On this one a live holder is never taken over
  // for a late heartbeat: a paused process (SIGSTOP, a suspended machine, a blocked event loop)
  // or a clock that jumped would otherwise give the run two owners until its next renewal. A
  // lease of this very process goes stale by its heartbeat (a holder that stopped renewing).
  const isDead = (other: FileLeaseHolder): boolean => {
    if (other.host !== thisHost) return isStale(other);
    const alive = isHolderAlive(other);
    if (alive === false) return true;
    return alive === undefined || other.pid === process.pid ? isStale(other) : false;
  };

  for (let attempt = 0; ; attempt++) {
    if (attempt >= 20) {
      throw new CortexError({
        code: 'store-failed',
        message: `Could not take the lease ${path}: it kept changing while being taken over.`,
        details: { path },
      });
    }
    if (await createExclusively(path, holder)) break;
    const current = await readHolder(path);
    if (current === undefined) continue;
    if (current === 'unreadable') {
      // Not one of ours (locks are written whole): refuse rather than guess.
      throw leaseHeldError(runId, {});
    }
    if (!isDead(current)) throw leaseHeldError(runId, current);
    if (!(await claimTakeover({ path, stale: current, holder, isDead, claimed: takeovers }))) {
      // Another live process is taking this stale holder over: see who wins.
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    const again = await readHolder(path);
    if (again === undefined || again === 'unreadable' || again.token !== current.token) continue;
    holder.renewedAt = Date.now();
    const replacement = await writeTemporary(path, holder);
    await rename(replacement, path);
    takenOver = current;
    break;
  }

  const controller = new AbortController();
  let released = false;
  const lose = (error: CortexError): never => {
    stopHeartbeat();
    if (!controller.signal.aborted) controller.abort(error);
    throw error;
  };
  let renewing: Promise<void> | undefined;
  const renewOnce = async (): Promise<void> => {
    if (released) return;
    if (controller.signal.aborted) throw controller.signal.reason;
    const current = await readHolder(path);
    if (current === undefined || current === 'unreadable') return lose(leaseLostError(runId, undefined));
    if (current.token !== holder.token) return lose(leaseLostError(runId, current));
    const lastRenewed = holder.renewedAt;
    holder.renewedAt = Date.now();
    try {
      const temporary = await writeTemporary(path, holder);
      await rename(temporary, path);
    } catch (error) {
      holder.renewedAt = lastRenewed;
      // Not renewed for a whole TTL: to another host the lease is stale now, so stop acting on it.
      if (Date.now() - lastRenewed > ttlMs) {
        return lose(
          new CortexError({
            code: 'lease-lost',
            message: `could not renew the lease of run ${runId} for longer than its TTL (${ttlMs} ms): ${error instanceof Error ? error.message : String(error)}`,
            details: { runId },
            cause: error,
          }),
        );
      }
      throw error;
    }
  };
  const renew = (): Promise<void> => {
    renewing ??= renewOnce().finally(() => {
      renewing = undefined;
    });
    return renewing;
  };
  const stopHeartbeat = startHeartbeat(renew, renewEveryMs);

  return {
    runId,
    holder,
    ...(takenOver ? { takenOver } : {}),
    signal: controller.signal,
    renew,
    async release() {
      if (released) return;
      released = true;
      stopHeartbeat();
      await renewing?.catch(() => undefined);
      const current = await readHolder(path).catch(() => undefined);
      if (typeof current === 'object' && current.token === holder.token) {
        await unlink(path).catch(() => undefined);
        // Markers of takeovers of this run's earlier holders are no longer needed.
        const prefix = `${basename(path)}.takeover-`;
        const names = await readdir(dirname(path)).catch(() => [] as string[]);
        for (const name of names) {
          if (name.startsWith(prefix)) await unlink(join(dirname(path), name)).catch(() => undefined);
        }
      }
      for (const marker of takeovers) await unlink(marker).catch(() => undefined);
    },
  };
}
