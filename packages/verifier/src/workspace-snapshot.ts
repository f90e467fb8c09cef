import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { isLineEntryFile } from './line-entries';

/** What a snapshot keeps of one file. */
export interface FileState {
  size: number;
  mtimeMs: number;
  /** SHA-1 of the content; `undefined` for files above `maxHashBytes` (compared by size and mtime). */
  hash: string | undefined;
}

/** The git refs of a workspace at snapshot time (read from `.git`, no process started). */
export interface GitRefs {
  /** The commit HEAD points at (`undefined` in a repository without commits). */
  head: string | undefined;
  /** The checked-out branch (`undefined` on a detached HEAD). */
  branch: string | undefined;
  /** Every ref under `refs/heads`, `refs/remotes` and `refs/tags` → its commit. */
  refs: ReadonlyMap<string, string>;
}

/**
 * The state of a workspace at one moment: every file (untracked and git-ignored ones too, within
 * limits) with its size, mtime and content hash; installed packages (`node_modules/<name>`,
 * Python `site-packages/<name>`) by signature, not file by file; the git refs; and the text of
 * test files (for the tampering check). Taken when a step starts, it is the step's baseline.
 */
export interface WorkspaceSnapshot {
  /** Absolute real path of the root. */
  readonly root: string;
  /** Epoch ms when the snapshot was taken. */
  readonly takenAt: number;
  /** Workspace-relative posix path → state. */
  readonly files: ReadonlyMap<string, FileState>;
  /**
   * Text of test files and small source files (≤ 64 KB): what a test asserted, and whether a
   * claimed symbol was already there when the step started.
   */
  readonly texts: ReadonlyMap<string, string>;
  /** Installed packages: `node_modules/lodash`, `site-packages/requests` → signature. */
  readonly packages: ReadonlyMap<string, string>;
  /** `undefined` when the root is not in a git repository. */
  readonly git: GitRefs | undefined;
  /** True when `maxFiles` cut the walk: files beyond it are unknown, never "unchanged". */
  readonly truncated: boolean;
}

/** Options of {@link snapshotWorkspace}. */
export interface SnapshotOptions {
  /** Stop walking after this many files (the snapshot is then `truncated`). Default 50 000. */
  maxFiles?: number;
  /** Files above this size are compared by size and mtime only. Default 2 MB. */
  maxHashBytes?: number;
  /**
   * Reuse the hashes (and texts) of files whose lstat identity — inode, size, mtime and ctime —
   * is unchanged since this root's previous walk (default `true`). `false` reads and hashes every
   * file and leaves the cache as it is; the result is the same either way.
   */
  cache?: boolean;
}

/** Folders never walked: VCS data and caches whose content is no one's work. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.pnpm-store',
  '.turbo',
  '.cache',
  '.closedloop',
]);

/** A test file, by name or folder. */
export const TEST_FILE =
  /(?:^|\/)(?:__tests__|tests?|spec)\/|\.(?:test|spec)\.[cm]?[jt]sx?$|(?:^|\/)test_[^/]+\.py$|_test\.(?:py|go)$|(?:^|\/)[^/]+Test\.(?:java|kt)$|_spec\.rb$/;

const MAX_TEXT_BYTES = 256 * 1024;
const MAX_SOURCE_TEXT_BYTES = 64 * 1024;
/** Source files whose text a baseline keeps (symbols already declared before the step). */
/** Docs whose text is kept (whitespace-only edits are told by it). */
const PROSE_FILE = /\.(?:md|mdx|rst|txt|adoc)$/i;
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|swift|scala|c|cc|cpp|h|hpp|vue|svelte)$/;

/** What the cache keeps of one file: its lstat identity when read, and what the read gave. */
interface CacheEntry {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  hash: string | undefined;
  /** Kept only when a walk wanted the text (test files, small sources, `package.json`). */
  text: string | undefined;
}

/**
 * File states per workspace root (real path) → workspace-relative path → entry. Bounded: the
 * last {@link MAX_CACHED_ROOTS} roots walked (least recently walked dropped first), and each
 * root's map is replaced after every walk by the entries of the files that walk saw, so it never
 * holds more entries than the last walk's files (≤ `maxFiles`).
 */
const rootCaches = new Map<string, Map<string, CacheEntry>>();
const MAX_CACHED_ROOTS = 8;
/**
 * A state is cached only when the file's mtime and ctime are this much older than the snapshot's
 * start: file times come from a coarse kernel clock, so a write in the same tick as our read could
 * leave identical stats over different content ("racy git"). Such a file is read again next time.
 */
const RACY_MARGIN_MS = 100;

/**
 * How much the snapshot cache holds: roots and file entries across them (for tests and
 * diagnostics; not exported from the package).
 */
export function snapshotCacheSize(): { roots: number; entries: number } {
  let entries = 0;
  for (const files of rootCaches.values()) entries += files.size;
  return { roots: rootCaches.size, entries };
}

function readFileState(
  absolute: string,
  stats: Stats,
  maxHashBytes: number,
  wantText: boolean,
): Pick<CacheEntry, 'hash' | 'text'> {
  let hash: string | undefined;
  let text: string | undefined;
  if (stats.size <= maxHashBytes) {
    let fd: number | undefined;
    try {
      // Not through a link or into a FIFO a command swapped in since the walk's lstat.
      fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
      const content = readFileSync(fd);
      hash = createHash('sha1').update(content).digest('hex');
      if (wantText && stats.size <= MAX_TEXT_BYTES) text = content.toString('utf8');
    } catch {
      hash = undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return { hash, text };
}

/**
 * The hash (and text, when wanted) of one file: from `previous` when the file's lstat identity
 * (inode, size, mtime and ctime: an agent can restore an mtime, not a ctime) is the one it had
 * when last read and that read was enough for this walk, else read now. Returns the entry to
 * keep for the next walk, or `undefined` when the state is too recent to trust again.
 */
function hashFile(
  absolute: string,
  rel: string,
  stats: Stats,
  maxHashBytes: number,
  wantText: boolean,
  previous: Map<string, CacheEntry> | undefined,
  racyBefore: number,
): { hash: string | undefined; text: string | undefined; keep: CacheEntry | undefined } {
  // Above the limit nothing is read, whatever an earlier walk with a larger limit cached.
  if (stats.size > maxHashBytes) return { hash: undefined, text: undefined, keep: undefined };
  const cached = previous?.get(rel);
  if (
    cached !== undefined &&
    cached.ino === stats.ino &&
    cached.size === stats.size &&
    cached.mtimeMs === stats.mtimeMs &&
    cached.ctimeMs === stats.ctimeMs &&
    cached.hash !== undefined &&
    (!wantText || cached.text !== undefined || stats.size > MAX_TEXT_BYTES)
  ) {
    return { hash: cached.hash, text: wantText ? cached.text : undefined, keep: cached };
  }
  const { hash, text } = readFileState(absolute, stats, maxHashBytes, wantText);
  const trusted = hash !== undefined && stats.mtimeMs < racyBefore && stats.ctimeMs < racyBefore;
  return {
    hash,
    text,
    keep: trusted
      ? { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, hash, text }
      : undefined,
  };
}

function safeReaddir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function safeStat(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** `node_modules/<name>` and `node_modules/@scope/<name>` → size:mtime of their package.json. */
function snapshotNodeModules(dir: string, rel: string, packages: Map<string, string>): void {
  for (const entry of safeReaddir(dir)) {
    if (entry.name.startsWith('.')) continue;
    const child = path.join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      for (const scoped of safeReaddir(child)) {
        const manifest = safeStat(path.join(child, scoped.name, 'package.json'));
        packages.set(
          `${rel}/${entry.name}/${scoped.name}`,
          manifest ? `${manifest.size}:${manifest.mtimeMs}` : 'present',
        );
      }
      continue;
    }
    const manifest = safeStat(path.join(child, 'package.json'));
    packages.set(`${rel}/${entry.name}`, manifest ? `${manifest.size}:${manifest.mtimeMs}` : 'present');
  }
}

/** A virtualenv: `site-packages` entries (`requests`, `requests-2.31.0.dist-info`) by name. */
function snapshotVirtualenv(dir: string, packages: Map<string, string>): void {
  const lib = path.join(dir, 'lib');
  const pythons = safeReaddir(lib).filter((entry) => entry.name.startsWith('python'));
  const sites = [
    ...pythons.map((entry) => path.join(lib, entry.name, 'site-packages')),
    path.join(dir, 'Lib', 'site-packages'),
  ];
  for (const site of sites) {
    for (const entry of safeReaddir(site)) {
      if (entry.name.startsWith('_') || entry.name.startsWith('.')) continue;
      const stats = safeStat(path.join(site, entry.name));
      packages.set(`site-packages/${entry.name}`, stats ? String(stats.mtimeMs) : 'present');
    }
  }
}

/** The git directory of a checkout (`.git` folder, or the `gitdir:` of a worktree's `.git` file). */
function findGitDir(root: string): string | undefined {
  let dir = root;
  for (;;) {
    const dotGit = path.join(dir, '.git');
    const stats = safeStat(dotGit);
    if (stats?.isDirectory()) return dotGit;
    if (stats?.isFile()) {
      try {
        const pointer = /^gitdir:\s*(.+)$/m.exec(readText(dotGit) ?? '')?.[1]?.trim();
        if (pointer) return path.resolve(dir, pointer);
      } catch {
        return undefined;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The most {@link readText} reads of one git file (a large `packed-refs` fits). */
const MAX_GIT_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A git file's text, or undefined: only a regular file, opened without following a last link and
 * without blocking, up to {@link MAX_GIT_FILE_BYTES}. A command writes the git directory: a ref
 * that is a FIFO would block this process for good, and one linked to `/dev/zero` would fill its
 * memory.
 */
function readText(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_GIT_FILE_BYTES) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Reads HEAD and every branch, remote-tracking ref and tag from `.git` (loose and packed refs). */
export function readGitRefs(root: string): GitRefs | undefined {
  const gitDir = findGitDir(root);
  if (gitDir === undefined) return undefined;
  const commonPointer = readText(path.join(gitDir, 'commondir'))?.trim();
  const commonDir = commonPointer ? path.resolve(gitDir, commonPointer) : gitDir;
  const refs = new Map<string, string>();
  const packed = readText(path.join(commonDir, 'packed-refs')) ?? '';
  for (const line of packed.split('\n')) {
    const match = /^([0-9a-f]{40,64}) (refs\/\S+)$/.exec(line);
    if (match?.[1] && match[2]) refs.set(match[2], match[1]);
  }
  const walk = (dir: string, name: string, depth: number) => {
    if (depth > 8) return;
    for (const entry of safeReaddir(dir)) {
      const child = path.join(dir, entry.name);
      const ref = `${name}/${entry.name}`;
      if (entry.isDirectory()) walk(child, ref, depth + 1);
      else {
        const value = readText(child)?.trim();
        if (value && /^[0-9a-f]{40,64}$/.test(value)) refs.set(ref, value);
      }
    }
  };
  for (const kind of ['heads', 'remotes', 'tags'])
    walk(path.join(commonDir, 'refs', kind), `refs/${kind}`, 0);
  const headText = readText(path.join(gitDir, 'HEAD'))?.trim() ?? '';
  const symbolic = /^ref:\s*(\S+)$/.exec(headText)?.[1];
  let head: string | undefined;
  let branch: string | undefined;
  if (symbolic !== undefined) {
    branch = symbolic.replace(/^refs\/heads\//, '');
    head = refs.get(symbolic) ?? readText(path.join(gitDir, symbolic))?.trim();
    if (head !== undefined && !/^[0-9a-f]{40,64}$/.test(head)) head = undefined;
  } else if (/^[0-9a-f]{40,64}$/.test(headText)) {
    head = headText;
  }
  return { head, branch, refs };
}

/**
 * Takes a snapshot of a workspace (synchronously: it must be exact at the moment the step starts).
 * Fast path (unless `cache: false`): a process-wide cache of the last 8 roots walked keeps each
 * file's hash (and text) with its lstat identity; a file whose inode, size, mtime and ctime are
 * unchanged keeps its hash, only new or changed files are read. A file written within 100 ms of a
 * walk's start is never cached (a same-tick write could leave identical stats), and each root's
 * cache holds only the files its last walk saw. The result is exactly the uncached one. `node_modules` and virtualenvs are recorded per package,
 * VCS folders and tool caches are skipped, and the walk stops at `maxFiles` (then `truncated`).
 *
 * @example
 * const before = snapshotWorkspace(root);
 * // … the step runs …
 * const changes = diffSnapshots(before, snapshotWorkspace(root));
 * changes.status('src/a.ts'); // 'created' | 'modified' | 'deleted' | 'unchanged' | 'unknown'
 */
export function snapshotWorkspace(root: string, options: SnapshotOptions = {}): WorkspaceSnapshot {
  const takenAt = Date.now();
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = path.resolve(root);
  }
  const maxFiles = options.maxFiles ?? 50_000;
  const maxHashBytes = options.maxHashBytes ?? 2_000_000;
  const files = new Map<string, FileState>();
  const texts = new Map<string, string>();
  const packages = new Map<string, string>();
  let truncated = false;
  const useCache = options.cache !== false;
  const previous = useCache ? rootCaches.get(realRoot) : undefined;
  const next = new Map<string, CacheEntry>();
  const racyBefore = takenAt - RACY_MARGIN_MS;

  const walk = (dir: string, rel: string, depth: number): void => {
    if (truncated || depth > 40) return;
    for (const entry of safeReaddir(dir)) {
      const name = entry.name;
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const absolute = path.join(dir, name);
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(name)) continue;
        if (name === 'node_modules') {
          snapshotNodeModules(absolute, childRel, packages);
          continue;
        }
        if (existsSync(path.join(absolute, 'pyvenv.cfg'))) {
          snapshotVirtualenv(absolute, packages);
          continue;
        }
        walk(absolute, childRel, depth + 1);
        if (truncated) return;
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (files.size >= maxFiles) {
        truncated = true;
        return;
      }
      const stats = safeStat(absolute);
      if (stats === undefined) continue;
      if (stats.isSymbolicLink()) {
        files.set(childRel, { size: stats.size, mtimeMs: stats.mtimeMs, hash: `link:${stats.size}` });
        continue;
      }
      const wantText =
        TEST_FILE.test(childRel) ||
        childRel === 'package.json' ||
        ((SOURCE_FILE.test(childRel) || PROSE_FILE.test(childRel) || isLineEntryFile(childRel)) &&
          stats.size <= MAX_SOURCE_TEXT_BYTES);
      const state = hashFile(absolute, childRel, stats, maxHashBytes, wantText, previous, racyBefore);
      if (state.keep !== undefined) next.set(childRel, state.keep);
      files.set(childRel, { size: stats.size, mtimeMs: stats.mtimeMs, hash: state.hash });
      if (wantText && state.text !== undefined) texts.set(childRel, state.text);
    }
  };
  walk(realRoot, '', 0);
  if (useCache) {
    rootCaches.delete(realRoot);
    rootCaches.set(realRoot, next);
    for (const oldest of rootCaches.keys()) {
      if (rootCaches.size <= MAX_CACHED_ROOTS) break;
      rootCaches.delete(oldest);
    }
  }
  return {
    root: realRoot,
    takenAt,
    files,
    texts,
    packages,
    git: readGitRefs(realRoot),
    truncated,
  };
}

/** How one path changed between two snapshots. */
export type PathChange = 'created' | 'modified' | 'deleted' | 'unchanged' | 'unknown';

/** What changed between two snapshots of one workspace. */
export interface WorkspaceChanges {
  readonly before: WorkspaceSnapshot;
  readonly after: WorkspaceSnapshot;
  readonly created: readonly string[];
  readonly modified: readonly string[];
  readonly deleted: readonly string[];
  /** A deleted file whose exact content reappeared under a new path. */
  readonly moved: readonly { from: string; to: string }[];
  /** Package entries (`node_modules/x`, `site-packages/x`) added or changed. */
  readonly packagesChanged: readonly string[];
  /** Refs whose commit changed (`refs/heads/main`, `refs/remotes/origin/main`, `HEAD`…). */
  readonly refsChanged: readonly { ref: string; before: string | undefined; after: string | undefined }[];
  /** How `file` (workspace-relative posix) changed. */
  status(file: string): PathChange;
  /** True when any file was created, modified or deleted. */
  readonly any: boolean;
}

function sameFile(a: FileState, b: FileState): boolean {
  if (a.hash !== undefined && b.hash !== undefined) return a.hash === b.hash;
  return a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/**
 * Compares two snapshots of the same workspace: created, modified (content differs), deleted and
 * moved files, changed packages and refs. A path neither snapshot covers is `unknown` when
 * either was truncated, else `unchanged` only if it exists in neither (never existed).
 */
export function diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): WorkspaceChanges {
  const created: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const [file, state] of after.files) {
    const old = before.files.get(file);
    if (old === undefined) {
      if (!before.truncated) created.push(file);
    } else if (!sameFile(old, state)) modified.push(file);
  }
  for (const file of before.files.keys()) {
    if (!after.files.has(file) && !after.truncated) deleted.push(file);
  }
  const createdByHash = new Map<string, string>();
  for (const file of created) {
    const hash = after.files.get(file)?.hash;
    if (hash !== undefined && !createdByHash.has(hash)) createdByHash.set(hash, file);
  }
  const moved: { from: string; to: string }[] = [];
  for (const file of deleted) {
    const hash = before.files.get(file)?.hash;
    const to = hash === undefined ? undefined : createdByHash.get(hash);
    if (to !== undefined) moved.push({ from: file, to });
  }
  const packagesChanged: string[] = [];
  for (const [name, signature] of after.packages) {
    if (before.packages.get(name) !== signature) packagesChanged.push(name);
  }
  const refsChanged: { ref: string; before: string | undefined; after: string | undefined }[] = [];
  if (before.git !== undefined || after.git !== undefined) {
    const names = new Set([...(before.git?.refs.keys() ?? []), ...(after.git?.refs.keys() ?? [])]);
    for (const ref of names) {
      const old = before.git?.refs.get(ref);
      const now = after.git?.refs.get(ref);
      if (old !== now) refsChanged.push({ ref, before: old, after: now });
    }
    if (before.git?.head !== after.git?.head)
      refsChanged.push({ ref: 'HEAD', before: before.git?.head, after: after.git?.head });
  }
  const createdSet = new Set(created);
  const modifiedSet = new Set(modified);
  const deletedSet = new Set(deleted);
  return {
    before,
    after,
    created,
    modified,
    deleted,
    moved,
    packagesChanged,
    refsChanged,
    any: created.length + modified.length + deleted.length > 0,
    status(file) {
      if (createdSet.has(file)) return 'created';
      if (modifiedSet.has(file)) return 'modified';
      if (deletedSet.has(file)) return 'deleted';
      const was = before.files.has(file);
      const is = after.files.has(file);
      if (was && is) return 'unchanged';
      if (before.truncated || after.truncated) return 'unknown';
      if (!was && !is) return isInsideSkipped(file) ? 'unknown' : 'unchanged';
      return 'unknown';
    },
  };
}

function isInsideSkipped(file: string): boolean {
  return file
    .split('/')
    .slice(0, -1)
    .some((part) => SKIPPED_DIRS.has(part) || part === 'node_modules' || part === 'site-packages');
}
