import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `text` to `path` so that a crash or a power loss leaves the old file or the whole new
 * one, never a torn or empty one: a temporary file beside it, fsynced, renamed over it, then the
 * folder fsynced (the rename itself on disk). The journal beside a run's settings is fsynced: its
 * settings must be too, or a resume would find the run's events and not its workspace.
 */
export function writeFileDurably(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    const fd = openSync(temporary, 'wx');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  const folder = openSync(dirname(path), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}
