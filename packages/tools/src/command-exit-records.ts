import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Exit records: what a sandboxed command's end was, kept outside the process that ran it.
 *
 * bubblewrap writes a JSON line with `child-pid` when the command starts and one with `exit-code`
 * when it ends (`--json-status-fd`), into a file its owner opened for it. When the owner is
 * killed while the command runs, the sandbox dies with it (`--die-with-parent`) and the file keeps
 * only the start: a resume can tell a command that ran to its end (and how) from one killed part
 * way through, instead of guessing from whether the workspace changed. The file is named after the
 * call's process tag (journaled before the command started), in a folder of this user's, outside
 * the workspace and out of the command's reach (the sandbox has its own `/tmp`). A record is kept
 * (a resume may need it again if it is itself killed) and removed after a week.
 */

/** What an exit record says about a command. */
export type CommandExit =
  /** No record: the command never started sandboxed (or ran unsandboxed, or the record is gone). */
  | { kind: 'unknown' }
  /** It started and has no end: it was killed part way through (with its owner, or by a resume settling it). */
  | { kind: 'interrupted' }
  /** It ran to its end: its exit code (128 + the signal's number when a signal ended it). */
  | { kind: 'exited'; exitCode: number };

/** Records older than this are removed when the folder is first used by a process. */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;
const TAG = /^[A-Za-z0-9_-]{1,128}$/;

let folder: string | null | undefined;

/**
 * This user's folder of exit records (made `0700` on first use), or `undefined` when it cannot be
 * trusted: not a folder of this user's that only they can write (another user made it first, or
 * it is a link).
 */
function recordsFolder(): string | undefined {
  if (folder !== undefined) return folder ?? undefined;
  const uid = process.getuid?.();
  const candidate = join(tmpdir(), `closedloop-exits-${uid ?? 'user'}`);
  try {
    mkdirSync(candidate, { recursive: true, mode: 0o700 });
    const stats = lstatSync(candidate);
    const owned = uid === undefined || stats.uid === uid;
    folder = stats.isDirectory() && owned && (stats.mode & 0o077) === 0 ? candidate : null;
  } catch {
    folder = null;
  }
  if (folder !== null) removeOldRecords(folder);
  return folder ?? undefined;
}

function removeOldRecords(dir: string): void {
  const cutoff = Date.now() - KEEP_MS;
  try {
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      try {
        if (lstatSync(file).mtimeMs < cutoff) rmSync(file, { force: true });
      } catch {
        // removed meanwhile
      }
    }
  } catch {
    // unreadable: nothing to tidy
  }
}

function recordPath(tag: string): string | undefined {
  if (!TAG.test(tag)) return undefined;
  const dir = recordsFolder();
  return dir === undefined ? undefined : join(dir, `${tag}.json`);
}

/**
 * Opens (truncating) the exit record of the command tagged `tag` for writing and returns its file
 * descriptor — the caller hands it to bubblewrap as its `--json-status-fd` and closes it once the
 * process has started — or `undefined` when no record can be kept here.
 */
export function openCommandExitRecord(tag: string): number | undefined {
  const file = recordPath(tag);
  if (file === undefined) return undefined;
  try {
    return openSync(file, 'w', 0o600);
  } catch {
    return undefined;
  }
}

/** Closes a descriptor from {@link openCommandExitRecord}. */
export function closeCommandExitRecord(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** Reads what the exit record of the command tagged `tag` says (see {@link CommandExit}). */
export function readCommandExit(tag: string): CommandExit {
  const file = recordPath(tag);
  if (file === undefined) return { kind: 'unknown' };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { kind: 'unknown' };
  }
  let started = false;
  for (const line of text.split('\n')) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof record !== 'object' || record === null) continue;
    const { 'exit-code': exitCode, 'child-pid': childPid } = record as Record<string, unknown>;
    if (typeof exitCode === 'number' && Number.isInteger(exitCode)) return { kind: 'exited', exitCode };
    if (typeof childPid === 'number') started = true;
  }
  return started ? { kind: 'interrupted' } : { kind: 'unknown' };
}
