import type { Dirent } from 'node:fs';
import { lstatSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Python bytecode a workspace holds, which a command could import instead of the sources. */
export interface WorkspaceBytecode {
  /** Folders named `__pycache__` (absolute): the cached bytecode of the sources beside them. */
  caches: string[];
  /**
   * `X.pyc` files outside `__pycache__` with no regular file `X.py` beside them: Python imports
   * them as they are, whatever the sources say (a folder `calc/` holding `__init__.pyc` even
   * shadows a `calc.py` beside it).
   */
  sourceless: string[];
}

/** Bounds of {@link findWorkspaceBytecode}. */
export interface FindBytecodeOptions {
  /** Folder entries looked at, at most. Default 50 000. */
  maxEntries?: number;
  /** Paths found, at most. Default 256. */
  maxPaths?: number;
}

/** One walk: the folders read (and their stamps before reading), and what it found. */
interface Walk {
  stamps: Map<string, string>;
  found: WorkspaceBytecode | undefined;
}

/** The last walks, by root and bounds (a few workspaces at a time). */
const walks = new Map<string, Walk>();
const MAX_WALKS = 16;

/**
 * What identifies a folder's listing now: device, inode, and the change times that any entry
 * created, removed or renamed in it moves (`ctime` cannot be set back by a user).
 */
async function stampOf(folder: string): Promise<string> {
  try {
    const stats = await lstat(folder, { bigint: true });
    return `${stats.dev}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? '-' : '?';
  }
}

/**
 * Lists the Python bytecode under `root` (absolute, real), walking every folder (never through a
 * link to a folder). Undefined when it cannot be listed whole within the bounds, or when an entry
 * named `__pycache__` is not a plain folder or a sourceless `.pyc` not a plain file (links would
 * lead Python to bytecode elsewhere): the caller then keeps Python off the workspace's bytecode
 * another way. The walk is reused while no folder it read has changed (one `lstat` per folder).
 */
export async function findWorkspaceBytecode(
  root: string,
  options: FindBytecodeOptions = {},
): Promise<WorkspaceBytecode | undefined> {
  const maxEntries = options.maxEntries ?? 50_000;
  const maxPaths = options.maxPaths ?? 256;
  const key = JSON.stringify([root, maxEntries, maxPaths]);
  const kept = walks.get(key);
  if (kept !== undefined) {
    if (await unchanged(kept.stamps)) return copyOf(kept.found);
  }
  const walk = await walkBytecode(root, maxEntries, maxPaths);
  walks.delete(key);
  walks.set(key, walk);
  if (walks.size > MAX_WALKS) walks.delete(walks.keys().next().value as string);
  return copyOf(walk.found);
}

/**
 * Whether every folder still has its stamp: synchronous `lstat`s (a few thousand cost a few
 * milliseconds), a turn of the event loop given back every {@link STAMPS_PER_TURN}.
 */
async function unchanged(stamps: ReadonlyMap<string, string>): Promise<boolean> {
  let checked = 0;
  for (const [folder, stamp] of stamps) {
    if (++checked % STAMPS_PER_TURN === 0) await nextTurn();
    let now = '-';
    try {
      const stats = lstatSync(folder, { bigint: true, throwIfNoEntry: false });
      if (stats !== undefined) now = `${stats.dev}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
    } catch {
      now = '?';
    }
    if (now !== stamp) return false;
  }
  return true;
}

const STAMPS_PER_TURN = 1000;

function copyOf(found: WorkspaceBytecode | undefined): WorkspaceBytecode | undefined {
  return found === undefined ? undefined : { caches: [...found.caches], sourceless: [...found.sourceless] };
}

async function walkBytecode(root: string, maxEntries: number, maxPaths: number): Promise<Walk> {
  const stamps = new Map<string, string>();
  const found: WorkspaceBytecode = { caches: [], sourceless: [] };
  const stop = (): Walk => ({ stamps, found: undefined });
  let seen = 0;
  let level = [root];
  while (level.length > 0) {
    // A level's folders are read together; each is stamped before it is read (a change while
    // reading is seen next time).
    const listings = await Promise.all(
      level.map(async (folder) => {
        const stamp = await stampOf(folder);
        const entries = await readdir(folder, { withFileTypes: true }).catch(() => undefined);
        return { folder, stamp, entries };
      }),
    );
    const next: string[] = [];
    for (const { folder, stamp, entries } of listings) {
      stamps.set(folder, stamp);
      // Unreadable by this user: by its commands too.
      if (entries === undefined) continue;
      seen += entries.length;
      if (seen > maxEntries) return stop();
      const sources = new Set(
        entries
          .filter((entry: Dirent) => entry.isFile() && entry.name.endsWith('.py'))
          .map((entry) => entry.name),
      );
      for (const entry of entries) {
        const target = path.join(folder, entry.name);
        if (entry.name === '__pycache__') {
          if (!entry.isDirectory()) return stop();
          found.caches.push(target);
        } else if (entry.isDirectory()) next.push(target);
        // Python takes `X.py` when it is a file, else `X.pyc`. A link named `X.py` may lead
        // nowhere later (its folder's stamp would not tell): the `.pyc` is covered anyway.
        else if (entry.name.endsWith('.pyc') && !sources.has(entry.name.slice(0, -1))) {
          if (!entry.isFile()) return stop();
          found.sourceless.push(target);
        }
        if (found.caches.length + found.sourceless.length > maxPaths) return stop();
      }
    }
    level = next;
  }
  return { stamps, found };
}
