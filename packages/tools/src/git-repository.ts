import { closeSync, constants, lstatSync, openSync } from 'node:fs';
import path from 'node:path';

function kind(target: string): 'file' | 'directory' | 'other' | undefined {
  try {
    const stats = lstatSync(target, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
  } catch {
    return undefined;
  }
}

/** A descriptor of the folder `target` (`O_NOFOLLOW`), or why there is none (its errno code). */
function openFolder(target: string): number | string {
  try {
    return openSync(target, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'EIO';
  }
}

const markers = { HEAD: 'file', objects: 'directory', refs: 'directory' } as const;

/**
 * How many of a git directory's markers (`HEAD` file, `objects/` and `refs/` folders) `dir` has,
 * counting `adding` (a name about to be created in it). 3 is a repository (`.git` or bare).
 */
async function markerCount(dir: string, adding: string | undefined): Promise<number> {
  let count = 0;
  for (const [name, expected] of Object.entries(markers)) {
    if (name === adding) count++;
    else if (kind(path.join(dir, name)) === expected) count++;
  }
  return count;
}

/**
 * Calls `probe` on each folder along `segments` below `realRoot` — `realRoot` itself (depth 0),
 * then one segment deeper each time, down to depth `deepest` — and returns the first value it
 * returns (undefined: none did, or the path stops existing). On Linux each folder is probed
 * through a descriptor of it (`/proc/self/fd/N/HEAD`) opened from its parent's: one lookup a probe,
 * where a path makes the kernel walk every folder above it (a path 2000 folders deep took 12
 * million lookups, seconds on the event loop). Elsewhere, and past a folder that cannot be opened
 * so, by path.
 */
async function probeAlong<T>(
  realRoot: string,
  segments: readonly string[],
  deepest: number,
  probe: (dir: string, depth: number) => Promise<T | undefined>,
): Promise<T | undefined> {
  let fd: number | undefined;
  if (process.platform === 'linux') {
    const opened = openFolder(realRoot);
    if (typeof opened === 'number') fd = opened;
  }
  try {
    for (let depth = 0; depth <= deepest; depth++) {
      // The folder's path, joined only when probed by path (joining each a walk is quadratic too).
      const dir = fd === undefined ? path.join(realRoot, ...segments.slice(0, depth)) : `/proc/self/fd/${fd}`;
      const found = await probe(dir, depth);
      if (found !== undefined) return found;
      if (depth === deepest || fd === undefined) continue;
      const child = openFolder(`/proc/self/fd/${fd}/${segments[depth]}`);
      closeSync(fd);
      fd = undefined;
      // Missing, or a file: nothing below it exists, so no marker either.
      if (child === 'ENOENT' || child === 'ENOTDIR') return undefined;
      if (typeof child === 'number') fd = child;
    }
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Whether the folder `segments` below `realRoot` (a real path, its segments relative to the root)
 * is in a git directory by content — it or a folder above it, below the root, is a `.git` folder
 * or a bare repository (`HEAD`, `objects/`, `refs/`). Linear in the depth (see {@link probeAlong}).
 */
export async function inGitDirectory(realRoot: string, segments: readonly string[]): Promise<boolean> {
  const found = await probeAlong(realRoot, segments, segments.length, async (dir, depth) =>
    depth > 0 && (await markerCount(dir, undefined)) === 3 ? true : undefined,
  );
  return found === true;
}

/**
 * Why writing `absolute` (a real path inside `realRoot`) would touch git's own files, or
 * undefined. git configuration and hooks run programs (`core.fsmonitor`, `core.pager`, hooks),
 * so nothing inside a git directory may be written, wherever it is: a `.git` folder or file, or
 * any folder that holds — or with this write would hold — two of `HEAD`, `objects/` and `refs/`
 * (a bare repository has no `.git` in its path).
 */
export async function gitProtectedReason(realRoot: string, absolute: string): Promise<string | undefined> {
  const relative = path.relative(realRoot, absolute);
  const segments = relative === '' ? [] : relative.split(path.sep);
  if (segments.some((segment) => segment.toLowerCase() === '.git'))
    return 'the .git folder is protected (its config and hooks can run commands); use git commands instead';
  return probeAlong(realRoot, segments, segments.length - 1, async (dir, depth) =>
    (await markerCount(dir, segments[depth])) >= 2
      ? `${segments.slice(0, depth).join('/') || '.'} is a git repository (HEAD, objects, refs): its config and hooks can run commands, so it cannot be written with file tools`
      : undefined,
  );
}
