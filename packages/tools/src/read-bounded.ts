import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The content of `file` when it is a regular file (a link to one is followed) of at most
 * `maxBytes`; undefined otherwise (missing, a FIFO, a device, a folder, larger). Opened without
 * blocking: a command writes the workspace and its git directory, and a FIFO there read the
 * ordinary way would block the agent for good (`/dev/zero` would fill its memory). Every file the
 * runner reads that a command could have made goes through it.
 */
export async function readBounded(file: string, maxBytes: number): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    const content = await handle.readFile();
    // It may have grown since the stat.
    return content.length > maxBytes ? undefined : content;
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * {@link readBounded} for the synchronous readers (the git index reader): the same rules —
 * a regular file of at most `maxBytes`, opened without blocking — else undefined.
 */
export function readBoundedSync(file: string, maxBytes: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    const content = Buffer.allocUnsafe(stats.size);
    let read = 0;
    while (read < content.length) {
      const count = readSync(fd, content, read, content.length - read, read);
      if (count === 0) break;
      read += count;
    }
    // It may have shrunk since the stat; whatever grew after it is not read.
    return content.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** {@link readBounded} as UTF-8 text. */
export async function readBoundedText(file: string, maxBytes: number): Promise<string | undefined> {
  return (await readBounded(file, maxBytes))?.toString('utf8');
}

/** The most a git index is read. */
export const MAX_GIT_INDEX_BYTES = 1024 * 1024 * 1024;

/** The most a git pointer (`.git` file, `commondir`) or configuration file is read. */
export const MAX_GIT_TEXT_BYTES = 1024 * 1024;
