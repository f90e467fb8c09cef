import { constants, type Dirent } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './tool-error';

/**
 * Race-free file access beneath a root. A path that `resolveInWorkspace` approved can change
 * before it is opened: a parent folder swapped for a symlink to `/etc` between the check and the
 * open would let the open escape. These helpers walk the approved (already symlink-free) path one
 * component at a time, each opened relative to the descriptor of its parent with `O_NOFOLLOW`
 * (through `/proc/self/fd/N/<name>` on Linux, the portable stand-in for `openat`), so a swapped
 * component is refused instead of followed, and what is finally opened is verified to be inside
 * the root by its descriptor's real path.
 */

const procFd = process.platform === 'linux';

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

function changed(relative: string, cause?: unknown): ToolError {
  return new ToolError({
    code: 'path-escape',
    message: `Path ${JSON.stringify(relative)} is refused: it changed while it was being opened (a folder was replaced by a symbolic link). Try again.`,
    details: { path: relative, reason: 'changed during open' },
    cause,
  });
}

/** The path of `name` inside the folder open as `dir`. */
export function beneath(dir: FileHandle, name: string): string {
  return procFd ? `/proc/self/fd/${dir.fd}/${name}` : name;
}

/** The real path of an open descriptor (Linux), or undefined where that cannot be known. */
export async function descriptorPath(handle: FileHandle): Promise<string | undefined> {
  if (!procFd) return undefined;
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/** Throws unless the open descriptor is inside `root`. */
export async function assertOpenedInside(handle: FileHandle, root: string, relative: string): Promise<void> {
  const real = await descriptorPath(handle);
  if (real !== undefined && !isInside(root, real)) throw changed(relative);
}

/**
 * Opens the folder `relative` (segments of a real path under `root`), walking component by
 * component without following symlinks. With `create`, missing folders are made on the way.
 * The caller closes the returned handle.
 */
export async function openFolderBeneath(
  root: string,
  relative: string,
  options: { create?: boolean } = {},
): Promise<FileHandle> {
  let dir = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  if (!procFd) {
    // No descriptor-relative paths: open the approved path directly and verify by inode.
    await dir.close();
    const absolute = path.join(root, relative);
    if (options.create) await mkdir(absolute, { recursive: true });
    const handle = await open(absolute, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    const [opened, now] = await Promise.all([handle.stat(), lstat(absolute)]);
    if (opened.ino !== now.ino || opened.dev !== now.dev) {
      await handle.close();
      throw changed(relative);
    }
    return handle;
  }
  const segments = relative === '' || relative === '.' ? [] : relative.split(/[\\/]/).filter((s) => s !== '');
  try {
    for (const segment of segments) {
      const next = beneath(dir, segment);
      let child: FileHandle;
      try {
        child = await open(next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        const code = errnoCode(error);
        if (code === 'ENOENT' && options.create) {
          try {
            await mkdir(next);
          } catch (mkdirError) {
            if (errnoCode(mkdirError) !== 'EEXIST') throw mkdirError;
          }
          try {
            child = await open(next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
          } catch (again) {
            if (errnoCode(again) === 'ELOOP' || errnoCode(again) === 'ENOTDIR')
              throw changed(relative, again);
            throw again;
          }
        } else if (code === 'ELOOP' || (code === 'ENOTDIR' && (await isSymlink(next)))) {
          throw changed(relative, error);
        } else throw error;
      }
      await dir.close();
      dir = child;
    }
    await assertOpenedInside(dir, root, relative);
    return dir;
  } catch (error) {
    await dir.close().catch(() => {});
    throw error;
  }
}

async function isSymlink(target: string): Promise<boolean> {
  try {
    return (await lstat(target)).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Opens the file `relative` (a real path under `root`) with `flags` plus `O_NOFOLLOW`, inside its
 * parent opened by {@link openFolderBeneath} (created when `createParents`). Returns the file and
 * its parent folder; the caller closes both.
 */
export async function openFileBeneath(
  root: string,
  relative: string,
  flags: number,
  options: { createParents?: boolean; mode?: number } = {},
): Promise<{ file: FileHandle; folder: FileHandle }> {
  const parent = path.posix.dirname(relative.split(path.sep).join('/'));
  const name = path.posix.basename(relative.split(path.sep).join('/'));
  const folder = await openFolderBeneath(root, parent === '.' ? '' : parent, {
    create: options.createParents ?? false,
  });
  try {
    const target = procFd ? beneath(folder, name) : path.join(root, relative);
    let file: FileHandle;
    try {
      // O_NONBLOCK: a FIFO or device swapped in never blocks the open (regular files ignore it).
      file = await open(target, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, options.mode ?? 0o666);
    } catch (error) {
      if (errnoCode(error) === 'ELOOP') throw changed(relative, error);
      throw error;
    }
    try {
      await assertOpenedInside(file, root, relative);
      const stats = await file.stat();
      if (!stats.isFile() && !stats.isDirectory()) {
        throw new ToolError({
          code: 'path-escape',
          message: `Path ${JSON.stringify(relative)} is refused: it is not a regular file (a pipe, socket or device).`,
          details: { path: relative, reason: 'not a regular file' },
        });
      }
    } catch (error) {
      await file.close();
      throw error;
    }
    return { file, folder };
  } catch (error) {
    await folder.close();
    throw error;
  }
}

/** `lstat` of `name` in an open folder. */
export function lstatBeneath(folder: FileHandle, name: string, fallbackAbsolute: string) {
  return lstat(procFd ? beneath(folder, name) : fallbackAbsolute);
}

/** Lists an open folder. */
export function readFolder(folder: FileHandle, fallbackAbsolute: string): Promise<Dirent[]> {
  return readdir(procFd ? `/proc/self/fd/${folder.fd}` : fallbackAbsolute, { withFileTypes: true });
}

/** Unlinks `name` (a file or a symlink, never followed) from an open folder. */
export function unlinkBeneath(folder: FileHandle, name: string, fallbackAbsolute: string): Promise<void> {
  return unlink(procFd ? beneath(folder, name) : fallbackAbsolute);
}

/**
 * Deletes the folder `name` of an open folder and everything in it, descending through
 * descriptors with `O_NOFOLLOW`: a symlink met on the way is unlinked, never followed, even if it
 * was swapped in during the walk.
 */
export async function removeTreeBeneath(
  folder: FileHandle,
  name: string,
  fallbackAbsolute: string,
): Promise<void> {
  if (!procFd) {
    const { rm } = await import('node:fs/promises');
    await rm(fallbackAbsolute, { recursive: true });
    return;
  }
  const target = beneath(folder, name);
  let child: FileHandle;
  try {
    child = await open(target, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      await unlink(target);
      return;
    }
    if (code === 'ENOENT') return;
    throw error;
  }
  try {
    for (const entry of await readdir(`/proc/self/fd/${child.fd}`, { withFileTypes: true })) {
      if (entry.isDirectory())
        await removeTreeBeneath(child, entry.name, path.join(fallbackAbsolute, entry.name));
      else await unlink(beneath(child, entry.name));
    }
  } finally {
    await child.close();
  }
  await rmdir(target);
}

/** `stat` that answers undefined for a missing path. */
export async function statOrUndefined(target: string) {
  return stat(target).catch(() => undefined);
}
