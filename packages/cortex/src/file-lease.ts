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
 * written); renewed by replacing it (rename); stale when its heartbeat is older than the TTL, or
 * at once when its pid is gone on this host. A stale lock is taken over by exactly one process:
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
  const holder = newLeaseHolder(purpose, ttlMs);
  const takeovers: string[] = [];
  let takenOver: LeaseHolder | undefined;
  const isDead = (other: LeaseHolder): boolean =>
    isStale(other) || (other.host === thisHost && isDeadPid(other.pid));

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
    holder.renewedAt = Date.now();
    const temporary = await writeTemporary(path, holder);
    await rename(temporary, path);
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
