import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_GIT_TEXT_BYTES, readBoundedText } from './read-bounded';

/** Folder entries looked at, at most, by {@link findWorkspaceGitDirectories}. */
const MAX_ENTRIES = 200_000;

/** Folders read at once. */
const BATCH = 64;

/** The git directories inside a workspace, and the `.git` files and links that name them. */
export interface WorkspaceGitDirectories {
  /** Real paths of the git directories found (a `.git` folder, a bare repository by content). */
  gitDirs: string[];
  /** Each `.git` file or link, absolute, with the git directory it names (resolved, maybe not real). */
  pointers: Map<string, string>;
  /** False when the walk stopped at its bound. */
  complete: boolean;
}

/** True when `dir` holds a git directory's markers: a `HEAD` file and `objects/` and `refs/` folders. */
async function isGitDirectory(dir: string): Promise<boolean> {
  const [head, objects, refs] = await Promise.all(
    ['HEAD', 'objects', 'refs'].map((name) => lstat(path.join(dir, name)).catch(() => undefined)),
  );
  return (
    head !== undefined &&
    !head.isDirectory() &&
    objects?.isDirectory() === true &&
    refs?.isDirectory() === true
  );
}

/** True when a folder's `entries` are a git directory's: a `HEAD` file, `objects/` and `refs/` folders. */
function hasGitMarkers(entries: readonly Dirent[]): boolean {
  let count = 0;
  for (const entry of entries) {
    if (entry.name === 'HEAD' && !entry.isDirectory()) count++;
    else if ((entry.name === 'objects' || entry.name === 'refs') && entry.isDirectory()) count++;
  }
  return count === 3;
}

/** Where a `.git` file (`gitdir: …`) or link at `dotGit` leads, or undefined. */
async function pointedGitDir(dotGit: string, isLink: boolean): Promise<string | undefined> {
  if (isLink) return realpath(dotGit).catch(() => undefined);
  const text = await readBoundedText(dotGit, MAX_GIT_TEXT_BYTES);
  const pointer = text === undefined ? undefined : /^gitdir:\s*(.+)$/m.exec(text)?.[1]?.trim();
  return pointer === undefined ? undefined : path.resolve(path.dirname(dotGit), pointer);
}

/**
 * Every git directory inside `root` (a real path) that git run in some folder of it would use:
 * `.git` folders, those `.git` files and links name, bare repositories (found by content), and the
 * git directories inside those (`modules/…` of submodules, `worktrees/…` of linked work trees).
 * Links to folders are not followed (git finds a `.git` through them, but what they lead to is not
 * the workspace's to write). Bounded: past 200 000 entries it stops (`complete: false`).
 */
export async function findWorkspaceGitDirectories(root: string): Promise<WorkspaceGitDirectories> {
  const gitDirs = new Set<string>();
  const pointers = new Map<string, string>();
  const visited = new Set<string>();
  const folders = [root];
  let seen = 0;
  for (let next = 0; next < folders.length; ) {
    // A few dozen folders read at once: a 35 000-entry monorepo is walked in about 100 ms.
    const taken = folders.slice(next, next + BATCH);
    next += taken.length;
    const batch = taken.filter((folder) => !visited.has(folder));
    for (const folder of batch) visited.add(folder);
    const listed = await Promise.all(
      batch.map((folder) => readdir(folder, { withFileTypes: true }).catch(() => [] as Dirent[])),
    );
    for (const [index, folder] of batch.entries()) {
      const entries = listed[index] ?? [];
      if (folder !== root && hasGitMarkers(entries)) {
        gitDirs.add(folder);
        // Only its submodules' and linked work trees' git directories lie below.
        for (const name of ['modules', 'worktrees'])
          if (entries.some((entry) => entry.name === name && entry.isDirectory()))
            folders.push(path.join(folder, name));
        continue;
      }
      seen += entries.length;
      if (seen > MAX_ENTRIES) return { gitDirs: [...gitDirs], pointers, complete: false };
      for (const entry of entries) {
        const isFolder = entry.isDirectory();
        if (!isFolder && entry.name !== '.git') continue;
        const target = `${folder}${path.sep}${entry.name}`;
        if (!isFolder) {
          const named = await pointedGitDir(target, entry.isSymbolicLink());
          if (named === undefined) continue;
          pointers.set(target, named);
          const real = await realpath(named).catch(() => undefined);
          if (real !== undefined && isInside(root, real) && (await isGitDirectory(real))) folders.push(real);
        } else folders.push(target);
      }
    }
    await nextTurn();
  }
  return { gitDirs: [...gitDirs], pointers, complete: true };
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
