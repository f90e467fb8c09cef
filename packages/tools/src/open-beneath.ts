import { createHash, randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rename,
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

/**
 * The name prefix of the temporary files {@link replaceFileBeneath} writes beside `name` before it
 * renames one over `name`: `.closedloop-tmp-<8 hex of sha256(name)>-`. Fixed length whatever
 * `name` is (a 255-byte name still has a temporary), and specific to `name`, so the leftovers of
 * one interrupted write are found and removed without touching anything else.
 */
export function temporaryPrefixOf(name: string): string {
  return `.closedloop-tmp-${createHash('sha256').update(name).digest('hex').slice(0, 8)}-`;
}

/** Writes all of `bytes` at the start of `file`: a write cut short goes on until done or failed. */
async function writeAllBytes(file: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset, offset);
    if (bytesWritten === 0) throw new Error('the write made no progress');
    offset += bytesWritten;
  }
}

/**
 * Replaces the file `name` of the open `folder` with `bytes`, atomically: they are written to a
 * new temporary file in the same folder (`O_EXCL | O_NOFOLLOW`, checked to be inside `root`),
 * fsynced, renamed over `name`, and the folder is fsynced. A process killed at any moment leaves
 * `name` either as it was or whole with `bytes` — never torn — plus at worst a temporary file
 * named by {@link temporaryPrefixOf}, which {@link removeInterruptedWritesBeneath} removes (resume
 * does). `rename(2)` never follows a link at `name`: a symlink swapped in is replaced, not written
 * through; both ends are named through the folder's descriptor, so a parent swapped for a link
 * changes nothing either. `mode`: the new file's permission bits (the old file's, to keep them);
 * default `0o666` less the umask. On failure the temporary file is removed and `name` is untouched.
 */
export async function replaceFileBeneath(options: {
  folder: FileHandle;
  name: string;
  bytes: Buffer;
  root: string;
  relative: string;
  fallbackAbsolute: string;
  mode?: number;
  /** The owner to keep (the old file's): applied when it differs from ours and we may (root). */
  owner?: { uid: number; gid: number };
  /** Called with the temporary file's path when it is open and before its bytes are written (tests kill here). */
  onTemporary?: (temporary: string) => void | Promise<void>;
}): Promise<void> {
  const { folder, name, bytes } = options;
  const temporaryName = `${temporaryPrefixOf(name)}${process.pid}-${randomBytes(6).toString('hex')}`;
  const temporary = procFd
    ? beneath(folder, temporaryName)
    : path.join(path.dirname(options.fallbackAbsolute), temporaryName);
  const target = procFd ? beneath(folder, name) : options.fallbackAbsolute;
  const file = await open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    options.mode === undefined ? 0o666 : 0o600,
  );
  let renamed = false;
  try {
    try {
      await assertOpenedInside(file, options.root, options.relative);
      const owner = options.owner;
      if (owner !== undefined && process.getuid?.() === 0 && (owner.uid !== 0 || owner.gid !== 0))
        await file.chown(owner.uid, owner.gid).catch(() => {});
      if (options.mode !== undefined) await file.chmod(options.mode);
      await options.onTemporary?.(temporary);
      await writeAllBytes(file, bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
    renamed = true;
    // The rename itself is durable once the folder is.
    await folder.sync().catch(() => {});
  } finally {
    if (!renamed) await unlink(temporary).catch(() => {});
  }
}

/**
 * Removes the temporary files an interrupted {@link replaceFileBeneath} of `name` left in the
 * open `folder` (a process killed between creating one and renaming it). Those of this process
 * (a write in flight) are kept. Returns the names removed.
 */
export async function removeInterruptedWritesBeneath(
  folder: FileHandle,
  name: string,
  fallbackAbsoluteFolder: string,
): Promise<string[]> {
  const prefix = temporaryPrefixOf(name);
  const own = `${prefix}${process.pid}-`;
  const removed: string[] = [];
  for (const entry of await readFolder(folder, fallbackAbsoluteFolder)) {
    if (!entry.name.startsWith(prefix) || entry.name.startsWith(own) || !entry.isFile()) continue;
    try {
      await unlinkBeneath(folder, entry.name, path.join(fallbackAbsoluteFolder, entry.name));
      removed.push(entry.name);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
  }
  return removed;
}
