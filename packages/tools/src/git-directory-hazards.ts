import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** A file git reads whole (the index, packed-refs, a config) bigger than this is refused. */
export const MAX_GIT_FILE_BYTES = 1024 * 1024 * 1024;

/** Entries of one git directory looked at, at most. */
const MAX_ENTRIES = 50_000;

/** Loose object folders (`objects/ab`) and packs: many entries, only their kind matters. */
const objectFolder = /^objects[/\\](?:[0-9a-f]{2}|pack)$/;

/**
 * Why `entry` in a git directory would hold the process that reads it, or undefined: a FIFO
 * (opened, it waits for a writer for good), a socket or device (a link to `/dev/zero`, `/dev/tty`
 * or a FIFO counts as what it leads to), or a regular file past {@link MAX_GIT_FILE_BYTES} (a sparse
 * terabyte index is hashed whole).
 */
async function hazardOf(target: string, own: Dirent, sized: boolean): Promise<string | undefined> {
  if (own.isDirectory()) return undefined;
  if (own.isFIFO()) return 'a FIFO';
  if (own.isSocket()) return 'a socket';
  if (own.isCharacterDevice() || own.isBlockDevice()) return 'a device';
  if (own.isSymbolicLink()) {
    const led = await stat(target).catch(() => undefined);
    if (led === undefined || led.isDirectory()) return undefined;
    if (led.isFIFO()) return 'a link to a FIFO';
    if (!led.isFile()) return 'a link to a device or socket';
    return sized && led.size > MAX_GIT_FILE_BYTES ? 'a link to a file too big to read' : undefined;
  }
  if (!sized) return undefined;
  const stats = await lstat(target).catch(() => undefined);
  return stats !== undefined && stats.size > MAX_GIT_FILE_BYTES ? 'a file too big to read' : undefined;
}

/** What {@link gitDirectoryHazards} looks at. */
export interface HazardOptions {
  /** Also the loose objects and packs (`objects/ab/…`, `objects/pack/…`), by kind. Default true. */
  objects?: boolean;
}

/** An entry of a git directory that would hold git (see {@link gitDirectoryHazards}). */
export interface GitDirectoryHazard {
  /** Its path, relative to the git directory. */
  entry: string;
  /** What it is: `a FIFO`, `a link to a device or socket`, `a file too big to read`… */
  why: string;
}

/**
 * The entries of the git directory `gitDir` that would hold git — or any reader — until a timeout: see {@link hazardOf}. A command writes the git directory; git run
 * afterwards (the verifier's, the user's, in or out of the sandbox) opens its HEAD, index, refs,
 * configuration and objects the ordinary, blocking way. Bounded: at most 50 000 entries are looked
 * at (the objects' sizes never: packs are big by nature, and git maps them).
 */
export async function gitDirectoryHazards(
  gitDir: string,
  options: HazardOptions = {},
): Promise<GitDirectoryHazard[]> {
  const found: GitDirectoryHazard[] = [];
  const folders = [''];
  let seen = 0;
  while (folders.length > 0 && seen < MAX_ENTRIES && found.length < 20) {
    const relative = folders.shift() as string;
    const inObjects = objectFolder.test(relative);
    if (inObjects && options.objects === false) continue;
    const entries = await readdir(path.join(gitDir, relative), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) break;
      const name = path.join(relative, entry.name);
      if (entry.isDirectory()) folders.push(name);
      const why = await hazardOf(path.join(gitDir, name), entry, !inObjects);
      if (why !== undefined) found.push({ entry: name, why });
    }
  }
  return found;
}
