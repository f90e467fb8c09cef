import { createHash } from 'node:crypto';
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { readBounded } from './read-bounded';

/** The most of a git control file hashed (a bigger one is told apart by its size and times). */
const MAX_HASHED_BYTES = 1024 * 1024;

/**
 * The entries of a git directory, relative to it, whose change decides whether git outside the
 * sandbox could run a program: its configuration, hooks, and a paused rebase's or cherry-pick's
 * list of steps (an `exec` line runs at `git rebase --continue`); and where it sends git for objects
 * and history (`objects/info/alternates`, `commondir`, `info/grafts`).
 */
export const gitControlEntries = [
  'config',
  'config.worktree',
  'hooks',
  'rebase-merge/git-rebase-todo',
  'rebase-merge/strategy',
  'sequencer/todo',
  'sequencer/opts',
  'objects/info/alternates',
  'commondir',
  'info/grafts',
] as const;

/**
 * What `target` is now, to tell whether a command changed it: the entry itself (device, inode,
 * where a link points), what it leads to (its real path, device and inode) and what that holds (a
 * file's bytes, a folder's names with their inodes, sizes and times). A link re-pointed, a file
 * rewritten through a hard link or a folder swapped at the same path all change it; undefined when
 * there is nothing there.
 */
export async function controlFingerprint(target: string): Promise<string | undefined> {
  const own = await lstat(target).catch(() => undefined);
  if (own === undefined) return undefined;
  const link = own.isSymbolicLink() ? await readlink(target).catch(() => '') : '';
  const real = (await realpath(target).catch(() => undefined)) ?? '';
  const followed = await stat(target).catch(() => undefined);
  const hash = createHash('sha256');
  if (followed?.isDirectory()) {
    const names = (await readdir(target).catch(() => [] as string[])).sort();
    for (const name of names.slice(0, 1000)) {
      const entry = await lstat(path.join(target, name)).catch(() => undefined);
      hash.update(`${name}\0${entry?.ino}:${entry?.size}:${entry?.mtimeMs}:${entry?.ctimeMs}\0`);
    }
  } else if (followed?.isFile()) {
    hash.update(`${followed.size}:${followed.mtimeMs}:${followed.ctimeMs}\0`);
    hash.update((await readBounded(target, MAX_HASHED_BYTES)) ?? '');
  }
  return JSON.stringify([own.dev, own.ino, link, real, followed?.dev, followed?.ino, hash.digest('hex')]);
}

/** The fingerprints of each git directory's control entries (see {@link gitControlEntries}), by path. */
export async function controlFingerprints(
  gitDirs: readonly string[],
): Promise<Map<string, string | undefined>> {
  const found = new Map<string, string | undefined>();
  for (const gitDir of gitDirs)
    for (const name of gitControlEntries) {
      const target = path.join(gitDir, name);
      found.set(target, await controlFingerprint(target));
    }
  return found;
}
