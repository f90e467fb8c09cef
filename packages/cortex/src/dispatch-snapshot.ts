import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { AnyTool } from '@closedloop/tools';
import { inspectInside } from '@closedloop/tools/internal';
import { literalRedirectOf } from './literal-redirect';

/** What a path held when looked at. */
export type FileState =
  | { type: 'missing' }
  | { type: 'file'; sha256: string; bytes: number }
  | { type: 'directory' }
  | { type: 'other' };

/**
 * What the journal records right before a tool call runs (in `tool-call-dispatched`), so a resume
 * can tell whether a call with no recorded result took effect:
 * - `file`: for `write_file`, `edit_file` and `delete_file`, the target's state before the call
 *   and the state the call is to produce (`after`: its hash; for an edit also its text, up to
 *   256 KB, so an edit cut off mid-write can be completed); also for a `run_command` that is a
 *   shell writing a literal to one file (`sh -c 'echo done >> log.txt'`);
 * - `workspace`: for other non-idempotent tools (commands), a fingerprint of the workspace's
 *   files (path, size, modification time) and, when the workspace is a git repository, of its
 *   history (`git`: HEAD and refs — a `git commit` changes no file outside `.git`), and the
 *   git lock files there were (`gitLocks`, paths relative to the workspace: normally none), so
 *   that the locks a killed git command left can be told from others'.
 */
export type DispatchSnapshot =
  | { kind: 'file'; path: string; state: FileState; after?: { sha256: string; text?: string } }
  | { kind: 'workspace'; fingerprint: string; files: number; git?: string; gitLocks?: string[] };

/** Edits of files up to this size keep their intended text in the snapshot. */
const maxEditTextBytes = 256 * 1024;

/** The workspace tools whose effect on one file resume can check exactly. */
export const fileEffectTools: ReadonlySet<string> = new Set(['write_file', 'edit_file', 'delete_file']);

const skippedFolders = new Set(['.git', 'node_modules', '.closedloop']);
const maxFingerprintFiles = 20_000;

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `path` inside `workspace` (lexically), or `undefined` when it points outside. */
export function resolveWorkspacePath(workspace: string, path: string): string | undefined {
  const absolute = resolve(workspace, path);
  const inside = relative(resolve(workspace), absolute);
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return undefined;
  return absolute;
}

/** Files larger than this are `other` to a snapshot (a tool never writes one that big). */
const maxSnapshotBytes = 256 * 1024 * 1024;

/**
 * The state of a path of `workspace` now, with its content when it is a file. Links inside the
 * workspace are followed, as the file tools follow them; a link out of it is `other` and is not
 * read (its target's content would otherwise reach the journal), nor is a FIFO.
 */
function readState(workspace: string, absolute: string): { state: FileState; content?: Buffer } {
  const entry = inspectInside(workspace, absolute, maxSnapshotBytes);
  if (entry.type !== 'file') return { state: { type: entry.type } };
  return {
    state: { type: 'file', sha256: sha256(entry.content), bytes: entry.content.length },
    content: entry.content,
  };
}

/** The state of a path of `workspace` now (see {@link readState}: never through a link out of it). */
export function fileState(workspace: string, absolute: string): FileState {
  return readState(workspace, absolute).state;
}

/** The content of a file of `workspace` (see {@link readState}), or undefined. */
export function fileContent(workspace: string, absolute: string): Buffer | undefined {
  return readState(workspace, absolute).content;
}

/** The SHA-256 of a text as UTF-8 (what a file holding it hashes to). */
export function textSha256(text: string): string {
  return sha256(Buffer.from(text, 'utf8'));
}

/** True when two file states are the same (same kind; same content for files). */
export function sameFileState(a: FileState, b: FileState): boolean {
  if (a.type !== b.type) return false;
  return a.type !== 'file' || (b.type === 'file' && a.sha256 === b.sha256);
}

/**
 * A fingerprint of the workspace's files: every path with its size and modification time
 * (skipping `.git`, `node_modules` and `.closedloop`, at most 20 000 files; a link counts as itself). Any write to a file
 * changes it; it reads no file content, so it stays cheap on large trees.
 */
export function workspaceFingerprint(workspace: string): { fingerprint: string; files: number } {
  const hash = createHash('sha256');
  const stack = [workspace];
  const entries: string[] = [];
  while (stack.length > 0 && entries.length < maxFingerprintFiles) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (skippedFolders.has(name)) continue;
      const path = join(dir, name);
      try {
        // lstat: a link is fingerprinted as itself, never followed (one to `/` would walk the host).
        const stats = lstatSync(path);
        if (stats.isDirectory()) stack.push(path);
        else
          entries.push(`${relative(workspace, path).split(sep).join('/')}\0${stats.size}\0${stats.mtimeMs}`);
      } catch {
        // vanished while walking
      }
    }
  }
  entries.sort();
  for (const entry of entries) hash.update(`${entry}\n`);
  return { fingerprint: hash.digest('hex'), files: entries.length };
}

/** The git directory of a workspace whose root is a repository (`.git` folder or `gitdir:` file). */
function gitDirOf(workspace: string): string | undefined {
  const dotGit = join(workspace, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
  } catch {
    return undefined;
  }
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readGitText(dotGit));
  return match ? resolve(workspace, match[1]!) : undefined;
}

/** The most of one git file (a ref, `HEAD`, `packed-refs`, a `.git` pointer) the fingerprint reads. */
const maxGitFileBytes = 4 * 1024 * 1024;

/**
 * The text of a regular file of at most {@link maxGitFileBytes} (a link to one is followed); `''`
 * otherwise. Opened without blocking: a command may have left a FIFO or a link to `/dev/zero` in the
 * git directory, and reading it the ordinary way would hang the run (or its resume) for good.
 */
function readGitText(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > maxGitFileBytes) return '';
    const buffer = Buffer.alloc(stats.size);
    const read = readSync(fd, buffer, 0, stats.size, 0);
    return buffer.toString('utf8', 0, read);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A fingerprint of the history of the git repository at the workspace's root — what HEAD names
 * and every ref (loose and packed) — or `undefined` when the root is no repository. A commit, a
 * tag, a branch, a reset or a stash changes it; `workspaceFingerprint` skips `.git`, so without
 * it those effects of a command would go unseen. The index is left out: a read-only `git status`
 * rewrites it (refreshed stat data), which would make a call that never ran look applied.
 */
export function gitFingerprint(workspace: string): string | undefined {
  const gitDir = gitDirOf(workspace);
  if (gitDir === undefined) return undefined;
  let commonDir = gitDir;
  const commonPointer = readGitText(join(gitDir, 'commondir')).trim();
  // A linked worktree names its repository's common directory.
  if (commonPointer !== '') commonDir = resolve(gitDir, commonPointer);
  const hash = createHash('sha256');
  const read = readGitText;
  hash.update(`HEAD\0${read(join(gitDir, 'HEAD'))}\n`);
  hash.update(`packed-refs\0${read(join(commonDir, 'packed-refs'))}\n`);
  const refs: string[] = [];
  const stack = [join(commonDir, 'refs'), ...(gitDir === commonDir ? [] : [join(gitDir, 'refs')])];
  while (stack.length > 0 && refs.length < maxFingerprintFiles) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      // A lock file is not a ref: a git command killed while updating a ref leaves one.
      if (name.endsWith('.lock')) continue;
      try {
        // lstat: a link to a folder is not walked (one to `/` would walk the host).
        if (lstatSync(path).isDirectory()) stack.push(path);
        else refs.push(`${relative(commonDir, path).split(sep).join('/')}\0${read(path)}`);
      } catch {
        // vanished while walking
      }
    }
  }
  refs.sort();
  for (const ref of refs) hash.update(`${ref}\n`);
  return hash.digest('hex');
}

/**
 * Whether resume judges an uninterrupted `tool` call with `input` by the whole workspace's
 * fingerprint (a non-idempotent tool that is not a file tool with a path): such a call must act
 * alone on the workspace for that evidence to be its own.
 */
export function judgedByWorkspace(options: { tool: AnyTool; input: unknown }): boolean {
  const input = (options.input ?? {}) as { path?: unknown };
  if (fileEffectTools.has(options.tool.name) && typeof input.path === 'string') return false;
  return !options.tool.idempotent;
}

/**
 * The snapshot journaled before `tool` runs with `input` (see {@link DispatchSnapshot}), or
 * `undefined` when resume needs none (idempotent tools are simply re-run) or there is no
 * workspace to look at.
 */
export function snapshotBeforeDispatch(options: {
  workspace: string | undefined;
  tool: AnyTool;
  input: unknown;
}): DispatchSnapshot | undefined {
  const { workspace, tool } = options;
  if (workspace === undefined) return undefined;
  const input = (options.input ?? {}) as {
    path?: unknown;
    content?: unknown;
    old_string?: unknown;
    new_string?: unknown;
    argv?: unknown;
    cwd?: unknown;
  };
  if (fileEffectTools.has(tool.name) && typeof input.path === 'string') {
    const absolute = resolveWorkspacePath(workspace, input.path);
    if (absolute === undefined) return undefined;
    const { state, content } = readState(workspace, absolute);
    const snapshot: DispatchSnapshot = { kind: 'file', path: input.path, state };
    if (tool.name === 'write_file' && typeof input.content === 'string') {
      snapshot.after = { sha256: textSha256(input.content) };
    } else if (
      tool.name === 'edit_file' &&
      content !== undefined &&
      typeof input.old_string === 'string' &&
      typeof input.new_string === 'string'
    ) {
      // Only an edit that can succeed (old_string exactly once) has an intended result.
      const text = content.toString('utf8');
      const at = text.indexOf(input.old_string);
      if (at !== -1 && text.indexOf(input.old_string, at + 1) === -1) {
        const edited = text.slice(0, at) + input.new_string + text.slice(at + input.old_string.length);
        snapshot.after = {
          sha256: textSha256(edited),
          ...(Buffer.byteLength(edited) <= maxEditTextBytes ? { text: edited } : {}),
        };
      }
    }
    return snapshot;
  }
  if (tool.idempotent) return undefined;
  const redirect = tool.name === 'run_command' ? literalRedirectSnapshot(workspace, input) : undefined;
  if (redirect !== undefined) return redirect;
  const git = gitFingerprint(workspace);
  return {
    kind: 'workspace',
    ...workspaceFingerprint(workspace),
    ...(git !== undefined ? { git, gitLocks: gitLockFiles(workspace) } : {}),
  };
}

/**
 * A `file` snapshot of a `run_command` whose whole effect is a literal written to one file of the
 * workspace ({@link literalRedirectOf}): the file's state, and what the command is to leave in it.
 * `undefined` for any other command, or a target that is outside, a folder or a link out.
 */
function literalRedirectSnapshot(
  workspace: string,
  input: { argv?: unknown; cwd?: unknown },
): DispatchSnapshot | undefined {
  const redirect = literalRedirectOf(input.argv);
  if (redirect === undefined) return undefined;
  const path = relative(
    resolve(workspace),
    resolve(workspace, typeof input.cwd === 'string' ? input.cwd : '.', redirect.path),
  );
  const absolute = resolveWorkspacePath(workspace, path);
  if (absolute === undefined) return undefined;
  const { state, content } = readState(workspace, absolute);
  if (state.type !== 'missing' && state.type !== 'file') return undefined;
  const after = Buffer.concat([
    redirect.append && content !== undefined ? content : Buffer.alloc(0),
    Buffer.from(redirect.text, 'utf8'),
  ]);
  const text = after.toString('utf8');
  // Its text is kept (to finish a write cut off part way) only when it is that text's exact bytes.
  const exact = after.length <= maxEditTextBytes && Buffer.from(text, 'utf8').equals(after);
  return { kind: 'file', path, state, after: { sha256: sha256(after), ...(exact ? { text } : {}) } };
}

/**
 * The lock files of the git repository at the workspace's root (`index.lock`, `HEAD.lock`,
 * `packed-refs.lock`, `config.lock`, `refs/heads/main.lock`, …), as paths relative to the
 * workspace. git creates one exclusively before it changes a file and renames it into place
 * after; a git process killed in between leaves it, and every later git command that needs that
 * file fails ("Unable to create '.git/index.lock': File exists").
 */
export function gitLockFiles(workspace: string): string[] {
  const gitDir = gitDirOf(workspace);
  if (gitDir === undefined) return [];
  let commonDir = gitDir;
  const commonPointer = readGitText(join(gitDir, 'commondir')).trim();
  if (commonPointer !== '') commonDir = resolve(gitDir, commonPointer);
  const locks = new Set<string>();
  const stack: Array<{ dir: string; deep: boolean }> = [
    { dir: gitDir, deep: false },
    { dir: commonDir, deep: false },
    { dir: join(commonDir, 'refs'), deep: true },
    { dir: join(gitDir, 'refs'), deep: true },
  ];
  let seen = 0;
  while (stack.length > 0 && seen < maxFingerprintFiles) {
    const { dir, deep } = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      seen++;
      const path = join(dir, name);
      try {
        const stat = lstatSync(path);
        if (deep && stat.isDirectory()) stack.push({ dir: path, deep });
        else if (name.endsWith('.lock') && stat.isFile()) locks.add(relative(workspace, path));
      } catch {
        // vanished while walking
      }
    }
  }
  return [...locks].sort();
}

/** The paths of `candidates` that a live process of this host has open (from `/proc/<pid>/fd`). */
function heldOpen(candidates: ReadonlySet<string>): Set<string> {
  const held = new Set<string>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    // No /proc to look at: every lock counts as held, none is removed.
    return new Set(candidates);
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (candidates.has(target)) held.add(target);
      } catch {
        // closed meanwhile
      }
    }
  }
  return held;
}

/**
 * Removes the git lock files that a killed call left in the workspace's repository: those there
 * now and not at its dispatch (`before`, from its snapshot) that no live process holds open (git
 * keeps a lock open while it works). Call it only once the call's own processes are gone. Returns
 * the removed paths (relative to the workspace).
 */
export function removeLeftoverGitLocks(workspace: string, before: readonly string[]): string[] {
  const earlier = new Set(before);
  const fresh = gitLockFiles(workspace).filter((path) => !earlier.has(path));
  if (fresh.length === 0) return [];
  const absolute = new Map(fresh.map((path) => [join(workspace, path), path]));
  const held = heldOpen(new Set(absolute.keys()));
  const removed: string[] = [];
  for (const [path, relativePath] of absolute) {
    if (held.has(path)) continue;
    try {
      unlinkSync(path);
      removed.push(relativePath);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}
