import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  type Dirent,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsync,
  lstatSync,
  mkdir,
  open,
  opendirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  rmdirSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ToolError } from './tool-error';

const fsyncAsync = promisify(fsync);
const mkdirAsync = promisify(mkdir);
const openAsync = promisify(open);

/**
 * An open file or folder: the part of `FileHandle` the file tools use, on synchronous system
 * calls — a metadata call takes microseconds, where a `FileHandle` call is a round trip through
 * libuv's thread pool and back to the event loop (a write_file made ~30 of them) — except
 * {@link Descriptor.sync}, whose wait for the disk stays off the event loop (as does creating a
 * file, see {@link replaceFileBeneath}). `close` is idempotent and never throws;
 * {@link Descriptor.closeReportingErrors} reports a close error (a written file must).
 */
export class Descriptor {
  #open = true;
  constructor(readonly fd: number) {}

  stat(): Stats {
    return fstatSync(this.fd);
  }

  /**
   * The file from its start, but never more than `limit + 1` bytes: a result longer than `limit`
   * means the file is over it, whatever a stat said before (a file growing or refilled while it
   * is read yields no more). `sizeHint` (the size a stat gave) sizes the first buffer.
   */
  readAtMost(limit: number, sizeHint: number): Buffer {
    let buffer = Buffer.allocUnsafe(Math.min(limit, Math.max(0, sizeHint)) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > limit) break;
        const grown = Buffer.allocUnsafe(Math.min(limit + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = readSync(this.fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length);
  }

  /** Writes `length` bytes of `buffer` from `offset` at `position`; returns how many were written. */
  write(buffer: Buffer, offset: number, length: number, position: number): number {
    return writeSync(this.fd, buffer, offset, length, position);
  }

  chmod(mode: number): void {
    fchmodSync(this.fd, mode);
  }

  chown(uid: number, gid: number): void {
    fchownSync(this.fd, uid, gid);
  }

  /** Flushes the file (or the folder's entries) to the disk, off the event loop. */
  sync(): Promise<void> {
    return fsyncAsync(this.fd);
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      closeSync(this.fd);
    } catch {
      // EBADF/EIO on close: the descriptor is gone either way.
    }
  }

  /**
   * Closes the descriptor and reports what the close reports: on NFS and some FUSE filesystems
   * `close(2)` is where a deferred write error (EIO, ENOSPC, EDQUOT) shows, after `fsync`
   * succeeded. For a file whose written bytes must be whole. The descriptor is gone either way.
   */
  closeReportingErrors(): void {
    if (!this.#open) return;
    this.#open = false;
    closeSync(this.fd);
  }
}

/** Opens `target` (a path or `/proc/self/fd/N/name`) as a {@link Descriptor} (libuv adds `O_CLOEXEC`). */
function openDescriptor(target: string, flags: number, mode?: number): Descriptor {
  return new Descriptor(openSync(target, flags, mode));
}

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

function notRegular(relative: string, cause?: unknown): ToolError {
  return new ToolError({
    code: 'path-escape',
    message: `Path ${JSON.stringify(relative)} is refused: it is not a regular file (a pipe, socket or device).`,
    details: { path: relative, reason: 'not a regular file' },
    cause,
  });
}

/** The path of `name` inside the folder open as `dir`. */
export function beneath(dir: Descriptor, name: string): string {
  return procFd ? `/proc/self/fd/${dir.fd}/${name}` : name;
}

/** The real path of an open descriptor (Linux), or undefined where that cannot be known. */
export function descriptorPath(handle: Descriptor): string | undefined {
  if (!procFd) return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/** Throws unless the open descriptor is inside `root`. */
export function assertOpenedInside(handle: Descriptor, root: string, relative: string): void {
  const real = descriptorPath(handle);
  if (real !== undefined && !isInside(root, real)) throw changed(relative);
}

const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Opens the folder `relative` (segments of a real path under `root`), walking component by
 * component without following symlinks. With `create`, missing folders are made on the way.
 * The caller closes the returned descriptor.
 */
export async function openFolderBeneath(
  root: string,
  relative: string,
  options: { create?: boolean } = {},
): Promise<Descriptor> {
  return openFolderBeneathNow(root, relative, options);
}

/**
 * {@link openFolderBeneath}: synchronous calls, except making a folder, which creates an inode
 * (up to ~0.5 ms on some disks, and a path may make thousands): off the event loop.
 */
async function openFolderBeneathNow(
  root: string,
  relative: string,
  options: { create?: boolean },
): Promise<Descriptor> {
  if (!procFd) {
    // No descriptor-relative paths: open the approved path directly and verify by inode.
    const absolute = path.join(root, relative);
    if (options.create) await mkdirAsync(absolute, { recursive: true });
    const handle = openDescriptor(absolute, folderFlags);
    const opened = handle.stat();
    const now = lstatSync(absolute);
    if (opened.ino !== now.ino || opened.dev !== now.dev) {
      handle.close();
      throw changed(relative);
    }
    return handle;
  }
  let dir = openDescriptor(root, constants.O_RDONLY | constants.O_DIRECTORY);
  const segments = relative === '' || relative === '.' ? [] : relative.split(/[\\/]/).filter((s) => s !== '');
  // Once one folder was missing and made, those below it are too: made without trying to open
  // them first (an error thrown a level costs more than the calls).
  let making = false;
  try {
    for (const segment of segments) {
      const next = beneath(dir, segment);
      let child: Descriptor;
      try {
        if (making) await mkdirAsync(next);
        child = openDescriptor(next, folderFlags);
      } catch (error) {
        const code = errnoCode(error);
        if ((code === 'ENOENT' || (making && code === 'EEXIST')) && options.create) {
          making = true;
          try {
            await mkdirAsync(next);
          } catch (mkdirError) {
            if (errnoCode(mkdirError) !== 'EEXIST') throw mkdirError;
          }
          try {
            child = openDescriptor(next, folderFlags);
          } catch (again) {
            if (errnoCode(again) === 'ELOOP' || errnoCode(again) === 'ENOTDIR')
              throw changed(relative, again);
            throw again;
          }
        } else if (code === 'ELOOP' || (code === 'ENOTDIR' && isSymlink(next))) {
          throw changed(relative, error);
        } else throw error;
      }
      dir.close();
      dir = child;
    }
    assertOpenedInside(dir, root, relative);
    return dir;
  } catch (error) {
    dir.close();
    throw error;
  }
}

/**
 * Opens the folder `name` (one name, as listed) of the open folder `parent` without following a
 * symlink: one open, where {@link openFolderBeneath} walks down from the root (a walk of a deep
 * tree would cost the square of its depth). `relative` (the folder's path under `root`) names it
 * in errors and is opened the portable way where there are no descriptor-relative paths. The
 * caller closes the returned descriptor.
 */
export async function openChildFolder(
  parent: Descriptor,
  name: string,
  root: string,
  relative: string,
): Promise<Descriptor> {
  if (!procFd) return await openFolderBeneathNow(root, relative, {});
  if (name === '' || name === '.' || name === '..' || name.includes('/'))
    throw new Error(`${JSON.stringify(name)} is not a folder name.`);
  let child: Descriptor;
  try {
    child = openDescriptor(beneath(parent, name), folderFlags);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ELOOP' || (code === 'ENOTDIR' && isSymlink(beneath(parent, name))))
      throw changed(relative, error);
    throw error;
  }
  try {
    // The parent may have been moved out of the root since it was opened.
    assertOpenedInside(child, root, relative);
  } catch (error) {
    child.close();
    throw error;
  }
  return child;
}

function isSymlink(target: string): boolean {
  try {
    return lstatSync(target).isSymbolicLink();
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
): Promise<{ file: Descriptor; folder: Descriptor }> {
  const parent = path.posix.dirname(relative.split(path.sep).join('/'));
  const name = path.posix.basename(relative.split(path.sep).join('/'));
  const folder = await openFolderBeneathNow(root, parent === '.' ? '' : parent, {
    create: options.createParents ?? false,
  });
  try {
    const target = procFd ? beneath(folder, name) : path.join(root, relative);
    let file: Descriptor;
    try {
      // O_NONBLOCK: a FIFO or device swapped in never blocks the open (regular files ignore it).
      file = openDescriptor(
        target,
        flags | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        options.mode ?? 0o666,
      );
    } catch (error) {
      if (errnoCode(error) === 'ELOOP') throw changed(relative, error);
      // A unix socket cannot be opened at all: refused as what it is, like a pipe or a device.
      if (errnoCode(error) === 'ENXIO') throw notRegular(relative, error);
      throw error;
    }
    try {
      assertOpenedInside(file, root, relative);
      const stats = file.stat();
      if (!stats.isFile() && !stats.isDirectory()) throw notRegular(relative);
    } catch (error) {
      file.close();
      throw error;
    }
    return { file, folder };
  } catch (error) {
    folder.close();
    throw error;
  }
}

/** `lstat` of `name` in an open folder. */
export function lstatBeneath(folder: Descriptor, name: string, fallbackAbsolute: string): Stats {
  return lstatSync(procFd ? beneath(folder, name) : fallbackAbsolute);
}

/** Lists an open folder. */
export function readFolder(folder: Descriptor, fallbackAbsolute: string): Dirent[] {
  return readdirSync(procFd ? `/proc/self/fd/${folder.fd}` : fallbackAbsolute, { withFileTypes: true });
}

/** How many names {@link readFolderInTurns} and {@link removeTreeBeneath} handle per turn of the event loop (~1 ms). */
const namesPerTurn = 2048;

/**
 * Lists an open folder like {@link readFolder}, with synchronous reads, but gives the event loop a
 * turn every few thousand names: a folder of a million names (a hostile command makes one in
 * seconds) never holds it for long.
 */
export async function readFolderInTurns(folder: Descriptor, fallbackAbsolute: string): Promise<Dirent[]> {
  const dir = opendirSync(procFd ? `/proc/self/fd/${folder.fd}` : fallbackAbsolute, { bufferSize: 256 });
  const entries: Dirent[] = [];
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      entries.push(entry);
      if (entries.length % namesPerTurn === 0) await nextTurn();
    }
  } finally {
    dir.closeSync();
  }
  return entries;
}

/** Unlinks `name` (a file or a symlink, never followed) from an open folder. */
export function unlinkBeneath(folder: Descriptor, name: string, fallbackAbsolute: string): void {
  unlinkSync(procFd ? beneath(folder, name) : fallbackAbsolute);
}

/**
 * Deletes the folder `name` of an open folder and everything in it, descending through
 * descriptors with `O_NOFOLLOW`: a symlink met on the way is unlinked, never followed, even if it
 * was swapped in during the walk. Synchronous calls, with a turn of the event loop every few
 * thousand names: a tree of a million files never holds it for long.
 */
export async function removeTreeBeneath(
  folder: Descriptor,
  name: string,
  fallbackAbsolute: string,
): Promise<void> {
  if (!procFd) {
    const { rm } = await import('node:fs/promises');
    await rm(fallbackAbsolute, { recursive: true });
    return;
  }
  await removeTreeIn(folder, name, { names: 0 });
}

/** {@link removeTreeBeneath} on Linux; `done.names` counts the names removed, for turns of the event loop. */
async function removeTreeIn(folder: Descriptor, name: string, done: { names: number }): Promise<void> {
  const target = beneath(folder, name);
  let child: Descriptor;
  try {
    child = openDescriptor(target, folderFlags);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      unlinkSync(target);
      return;
    }
    if (code === 'ENOENT') return;
    throw error;
  }
  try {
    for (const entry of await readFolderInTurns(child, '')) {
      if (entry.isDirectory()) await removeTreeIn(child, entry.name, done);
      else unlinkSync(beneath(child, entry.name));
      if (++done.names % namesPerTurn === 0) await nextTurn();
    }
  } finally {
    child.close();
  }
  rmdirSync(target);
}

/** `stat` that answers undefined for a missing path. */
export function statOrUndefined(target: string): Stats | undefined {
  try {
    return statSync(target);
  } catch {
    return undefined;
  }
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
function writeAllBytes(file: Descriptor, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    const written = file.write(bytes, offset, bytes.length - offset, offset);
    if (written === 0) throw new Error('the write made no progress');
    offset += written;
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
  folder: Descriptor;
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
  // Creating an inode can take the filesystem a while (~0.5 ms on some ext4 disks): off the
  // event loop, unlike the other calls here.
  const file = new Descriptor(
    await openAsync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      options.mode === undefined ? 0o666 : 0o600,
    ),
  );
  let renamed = false;
  try {
    try {
      assertOpenedInside(file, options.root, options.relative);
      const owner = options.owner;
      if (owner !== undefined && process.getuid?.() === 0 && (owner.uid !== 0 || owner.gid !== 0)) {
        try {
          file.chown(owner.uid, owner.gid);
        } catch {
          // Not ours to give away: the file keeps our ownership.
        }
      }
      if (options.mode !== undefined) file.chmod(options.mode);
      await options.onTemporary?.(temporary);
      writeAllBytes(file, bytes);
      await file.sync();
      file.closeReportingErrors();
    } finally {
      file.close();
    }
    renameSync(temporary, target);
    renamed = true;
    // The rename itself is durable once the folder is.
    await folder.sync().catch(() => {});
  } finally {
    if (!renamed) {
      try {
        unlinkSync(temporary);
      } catch {
        // Never created, or gone already.
      }
    }
  }
}

/**
 * Removes the temporary files an interrupted {@link replaceFileBeneath} of `name` left in the
 * open `folder` (a process killed between creating one and renaming it). Those of this process
 * (a write in flight) are kept. Returns the names removed.
 */
export function removeInterruptedWritesBeneath(
  folder: Descriptor,
  name: string,
  fallbackAbsoluteFolder: string,
): string[] {
  const prefix = temporaryPrefixOf(name);
  const own = `${prefix}${process.pid}-`;
  const removed: string[] = [];
  for (const entry of readFolder(folder, fallbackAbsoluteFolder)) {
    if (!entry.name.startsWith(prefix) || entry.name.startsWith(own) || !entry.isFile()) continue;
    try {
      unlinkBeneath(folder, entry.name, path.join(fallbackAbsoluteFolder, entry.name));
      removed.push(entry.name);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
  }
  return removed;
}
