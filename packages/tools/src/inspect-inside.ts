import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, realpathSync } from 'node:fs';
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
 * What `target` holds, without following a link out of `root` (a link inside it is followed, as
 * the file tools follow it): a regular file's content is read through a descriptor opened without
 * following a last-moment link and without blocking (a FIFO), up to `maxBytes`. Synchronous, for
 * code that looks at one path between two steps (snapshots, reconciliation).
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
    if (!info.isFile() || info.size > maxBytes) return { type: 'other' };
    return { type: 'file', content: readFileSync(fd) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { type: 'missing' } : { type: 'other' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
