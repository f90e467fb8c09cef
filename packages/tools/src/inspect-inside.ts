import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
} from 'node:fs';
import path from 'node:path';

/** What a path of the workspace holds, looked at by {@link inspectInside}. */
export type InsideEntry =
  | { type: 'missing' }
  | { type: 'directory' }
  /** A FIFO, a socket, a device, a file over the size limit, or a link out of the workspace. */
  | { type: 'other' }
  | { type: 'file'; content: Buffer };

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Where the open descriptor `fd` really is, by the kernel (Linux `/proc/self/fd`), inside `root`:
 * a folder above the file swapped for a link out between `realpath` and `open` (a command still
 * running) is caught here. True where `/proc` cannot tell.
 */
export function openedInside(root: string, fd: number): boolean {
  let opened: string;
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return true;
  }
  return !opened.startsWith('/') || isInside(root, opened);
}

/** Up to `maxBytes` of `fd` from its start, or undefined when it holds more (it may grow while read). */
function readAtMost(fd: number, size: number, maxBytes: number): Buffer | undefined {
  const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(size + 1, 64 * 1024)));
  let total = 0;
  let data = buffer;
  for (;;) {
    if (total === data.length) {
      if (data.length > maxBytes) return undefined;
      const bigger = Buffer.allocUnsafe(Math.min(maxBytes + 1, data.length * 2));
      data.copy(bigger, 0, 0, total);
      data = bigger;
    }
    const read = readSync(fd, data, total, data.length - total, total);
    if (read === 0) break;
    total += read;
  }
  return total > maxBytes ? undefined : data.subarray(0, total);
}

/**
 * What `target` holds, without following a link out of `root` (a link inside it is followed, as
 * the file tools follow it): a regular file's content is read through a descriptor opened without
 * following a last-moment link and without blocking (a FIFO), up to `maxBytes` (a file growing
 * past it while read is `other`), and only when the kernel places the open file inside `root`.
 * Synchronous, for code that looks at one path between two steps (snapshots, reconciliation).
 */
export function inspectInside(root: string, target: string, maxBytes: number): InsideEntry {
  let real: string;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(target);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { type: 'missing' } : { type: 'other' };
  }
  if (!isInside(realRoot, real)) return { type: 'other' };
  let fd: number | undefined;
  try {
    if (lstatSync(real).isDirectory()) return { type: 'directory' };
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes || !openedInside(realRoot, fd)) return { type: 'other' };
    const content = readAtMost(fd, info.size, maxBytes);
    return content === undefined ? { type: 'other' } : { type: 'file', content };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { type: 'missing' } : { type: 'other' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
