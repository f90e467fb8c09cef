import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from 'node:fs';
import { join } from 'node:path';
import { openedInside } from '@closedloop/tools/internal';

/** One file as a snapshot saw it. */
export interface FileSnapshot {
  /** Content hash (sha1), or `size:mtime` for files too large to read. */
  hash: string;
  size: number;
  /** The text, when the file is small, not binary and within the snapshot's text budget. */
  text: string | null;
  /** Why there is no text: `binary`, `too-large` (file) or `budget` (snapshot). */
  withoutText?: 'binary' | 'too-large' | 'budget';
}

/** The files of a workspace at one moment, by relative path (`/`-separated). */
export interface WorkspaceSnapshot {
  files: Map<string, FileSnapshot>;
  /** True when the walk stopped at `maxFiles`: changes beyond it are not seen. */
  truncated: boolean;
}

/** Limits of {@link snapshotWorkspace}. */
export interface SnapshotLimits {
  /** Files read at most (default 5000). */
  maxFiles?: number;
  /** Larger files are compared by size and mtime, without text (default 256 KiB). */
  maxFileBytes?: number;
  /** Text kept per snapshot in all (default 16 MiB); further files keep only their hash. */
  maxTextBytes?: number;
}

/** Folders never walked: version control, dependencies, closedloop's own journals. */
const skippedFolders = new Set(['.git', 'node_modules', '.closedloop']);

function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

/**
 * The bytes of a regular file, opened without following a symbolic link and without blocking (a
 * command running at the same time may have swapped the file for a link to a file outside the
 * workspace, or for a FIFO, or a folder above it for such a link: the kernel must place the
 * opened file inside `realRoot`); its size and time when it is larger than `maxBytes`. Throws for
 * anything that is not a regular file.
 */
function readRegularFile(
  realRoot: string,
  full: string,
  maxBytes: number,
): Buffer | { size: number; mtimeMs: number } {
  const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${full} is not a regular file`);
    // A folder above it swapped for a link out of the workspace while the walk ran.
    if (!openedInside(realRoot, fd)) throw new Error(`${full} is outside the workspace`);
    if (stats.size > maxBytes) return { size: stats.size, mtimeMs: stats.mtimeMs };
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a workspace synchronously (a step's baseline must be taken before its first tool call,
 * inside the event listener). Symbolic links are not followed; unreadable entries are skipped.
 */
export function snapshotWorkspace(root: string, limits: SnapshotLimits = {}): WorkspaceSnapshot {
  const maxFiles = limits.maxFiles ?? 5000;
  const maxFileBytes = limits.maxFileBytes ?? 256 * 1024;
  let textBudget = limits.maxTextBytes ?? 16 * 1024 * 1024;
  const files = new Map<string, FileSnapshot>();
  let truncated = false;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return { files, truncated };
  }
  const walk = (dir: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (truncated) return;
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skippedFolders.has(entry.name)) walk(full, path);
        continue;
      }
      if (!entry.isFile()) continue;
      if (files.size >= maxFiles) {
        truncated = true;
        return;
      }
      try {
        const content = readRegularFile(realRoot, full, maxFileBytes);
        if (typeof content === 'object' && !Buffer.isBuffer(content)) {
          const { size, mtimeMs } = content;
          files.set(path, { hash: `${size}:${mtimeMs}`, size, text: null, withoutText: 'too-large' });
          continue;
        }
        const size = content.length;
        const hash = createHash('sha1').update(content).digest('hex');
        if (isBinary(content)) files.set(path, { hash, size, text: null, withoutText: 'binary' });
        else if (content.length > textBudget)
          files.set(path, { hash, size, text: null, withoutText: 'budget' });
        else {
          textBudget -= content.length;
          files.set(path, { hash, size, text: content.toString('utf8') });
        }
      } catch {
        // Removed or unreadable between readdir and read: not part of this snapshot.
      }
    }
  };
  walk(realRoot, '');
  return { files, truncated };
}
