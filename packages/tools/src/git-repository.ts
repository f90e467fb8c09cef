import { lstatSync } from 'node:fs';
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

/** True when `dir` is a git directory by content (a `.git` folder or a bare repository). */
export async function isGitDirectory(dir: string): Promise<boolean> {
  return (await markerCount(dir, undefined)) === 3;
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
  let dir = realRoot;
  for (const next of segments) {
    if ((await markerCount(dir, next)) >= 2) {
      const where = path.relative(realRoot, dir) || '.';
      return `${where} is a git repository (HEAD, objects, refs): its config and hooks can run commands, so it cannot be written with file tools`;
    }
    dir = path.join(dir, next);
  }
  return undefined;
}
