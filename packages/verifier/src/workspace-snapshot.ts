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
  readlinkSync,
  realpathSync,
  type Stats,
  statfsSync,
} from 'node:fs';
import path from 'node:path';
import { openedInside, workspaceActivity } from '@closedloop/tools/internal';
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
  /**
   * The names of the files, folders and links in each folder the walk listed (workspace-relative
   * posix path, `''` for the root): a check looking for a file by name in a walked folder need not
   * list it again. Folders the walk did not enter (VCS data, caches, installed packages) are absent.
   */
  readonly folders?: ReadonlyMap<string, readonly string[]>;
}

/** Options of {@link snapshotWorkspace}. */
export interface SnapshotOptions {
  /** Stop walking after this many files (the snapshot is then `truncated`). Default 50 000. */
  maxFiles?: number;
  /** Files above this size are compared by size and mtime only. Default 2 MB. */
  maxHashBytes?: number;
  /**
   * Reuse the hashes (and texts) of files whose lstat identity — inode, size, mtime and ctime —
   * is unchanged since this root's previous walk, and the listings of directories whose device,
   * inode, mtime and ctime are unchanged, on a local filesystem (default `true`). Every file is
   * still lstat-ed: an edit in place does not move its directory's times. `false` reads every
   * directory and hashes every file and leaves the cache as it is; the result is the same either
   * way.
   */
  cache?: boolean;
  /**
   * Walks of one run (`scope`, e.g. its id): this walk is recorded as the scope's last one when
   * nothing of this process — no tool call, no command (`workspaceActivity` of `@closedloop/tools`)
   * — is running; and with `withinMs`, the scope's last walk of this root is returned instead of
   * walking again when it was taken at most `withinMs` ago, with the same `maxFiles` and
   * `maxHashBytes`, and nothing of this process has started or ended since. The snapshot is then
   * the workspace as it was at that walk's `takenAt` — for a step's baseline, as if the step had
   * started then. Writers outside this process in that window are not told apart from the
   * caller's own changes, as they are not during the rest of a step; a scope keeps another run's
   * (or a test's) walks out. Default: always walk, record nothing.
   */
  reuse?: { scope: string; withinMs?: number };
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
/** Data tables whose small files keep their text (a row the step broke is told against it). */
const DATA_FILE = /\.(?:csv|tsv)$/i;
/** Settings formats whose small files keep their text (a key the step wrote twice is told by it). */
const SETTINGS_FORMAT = /\.(?:json|jsonc|ya?ml|toml|ini|cfg|properties)$|(?:^|\/)\.env(?:\.[\w-]+)?$/i;
/**
 * Settings files by name — config.json, settings.yaml, app.toml, flags.json, `.env*` — whose text
 * is kept: the keys a step added to them are told by it.
 */
export const SETTINGS_NAME =
  /(?:^|[/._-])(?:config|conf|configuration|settings|options|defaults|preferences|app|application|flags|features|toggles)(?:[._-][\w.-]*)?\.(?:json|jsonc|ya?ml|toml|ini|cfg|conf|properties)$|(?:^|\/)\.env(?:\.[\w-]+)?$/i;

/** What the cache keeps of one file: its lstat identity when read, and what the read gave. */
interface CacheEntry {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  hash: string | undefined;
  /** Kept only when a walk wanted the text (test files, small sources, `package.json`). */
  text: string | undefined;
  /** The state a snapshot records for this identity (shared by the snapshots that saw it). */
  state: FileState;
}

/**
 * One entry of a directory listing, with what its path alone decides (computed once per name,
 * not per walk) and the cached read of the file it names.
 */
interface ListedEntry {
  readonly name: string;
  /** Workspace-relative posix path. */
  readonly rel: string;
  readonly absolute: string;
  /** A directory (by its directory entry); else a regular file or a link. */
  readonly isDirectory: boolean;
  /** Its text is kept whatever its size (test files, the root `package.json`). */
  readonly textAlways: boolean;
  /** Its text is kept up to 64 KB (sources, prose, line-entry files). */
  readonly textIfSmall: boolean;
  /** The file's last trusted read, reused while its lstat identity is unchanged. */
  file: CacheEntry | undefined;
}

/**
 * A directory's entries (directories, regular files and links; other types are never recorded)
 * with the directory's own lstat identity when they were read. Creating, removing or renaming an
 * entry, or replacing one by another type, changes the directory's mtime and ctime: while they,
 * its inode and its device are the ones recorded, the names and types are the ones listed. Trusted
 * only on a local filesystem (see {@link LOCAL_FILESYSTEMS}).
 */
interface DirectoryListing {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** False when the directory changed within the racy margin of the read: read it again next walk. */
  trusted: boolean;
  /** False when it could not be read (then no entries). */
  readable: boolean;
  /** An entry named `pyvenv.cfg` is listed (the directory may be a virtualenv). */
  venvMarker: boolean;
  entries: ListedEntry[];
  /** The entries' names (shared by the snapshots whose walks reused this listing). */
  names: readonly string[];
}

/**
 * Directory listings per workspace root (real path) → workspace-relative directory path →
 * listing, each entry holding its file's cached read. Bounded: the last {@link MAX_CACHED_ROOTS}
 * roots walked (least recently walked dropped first), and each root's map is replaced after every
 * walk by the listings that walk read, so it holds only entries that exist in the directories the
 * last walk saw.
 */
const rootCaches = new Map<string, Map<string, DirectoryListing>>();
const MAX_CACHED_ROOTS = 8;

/** A scope's last walk of a root, taken while nothing of this process ran (`reuse`). */
interface LastWalk {
  readonly scope: string;
  readonly snapshot: WorkspaceSnapshot;
  /** `performance.now()` when the walk started. */
  readonly startedAt: number;
  /** The activity epoch when the walk was taken (nothing was running). */
  readonly epoch: number;
  readonly maxFiles: number;
  readonly maxHashBytes: number;
}
/** Root (real path) → the last recorded walk of it; the roots of {@link rootCaches}. */
const lastWalks = new Map<string, LastWalk>();
/** The `reuse.scope` each recorded (or reused) snapshot was taken under. */
const snapshotScopes = new WeakMap<WorkspaceSnapshot, string>();

/** `realRoot`'s last walk when `options` may reuse it now (see `SnapshotOptions.reuse`). */
function reusableWalk(
  realRoot: string,
  options: { scope: string; withinMs: number; maxFiles: number; maxHashBytes: number },
): WorkspaceSnapshot | undefined {
  const last = lastWalks.get(realRoot);
  if (
    last === undefined ||
    last.scope !== options.scope ||
    last.maxFiles !== options.maxFiles ||
    last.maxHashBytes !== options.maxHashBytes
  )
    return undefined;
  const activity = workspaceActivity();
  if (activity.running !== 0 || activity.epoch !== last.epoch) return undefined;
  return performance.now() - last.startedAt <= options.withinMs ? last.snapshot : undefined;
}

/**
 * The workspace now, for the end of the step `baseline` began: walked under the baseline's
 * `reuse` scope, so the next step of the same run may start from it.
 */
export function snapshotAfter(baseline: WorkspaceSnapshot): WorkspaceSnapshot {
  const scope = snapshotScopes.get(baseline);
  return snapshotWorkspace(baseline.root, scope === undefined ? {} : { reuse: { scope } });
}

/**
 * A state (or a listing) is cached only when the file's (directory's) mtime and ctime are this
 * much older than the snapshot's start: file times come from a coarse kernel clock, so a write in
 * the same tick as our read could leave identical stats over different content ("racy git"). Such
 * a file is read again next time.
 */
const RACY_MARGIN_MS = 100;

/**
 * Filesystems (`statfs` magic numbers) whose directory times a walk trusts to tell that no entry
 * was added, removed, renamed or retyped: local disks and memory (ext2/3/4, XFS, Btrfs, tmpfs,
 * overlayfs, ZFS, F2FS). A network or FUSE filesystem can serve a directory's attributes from a
 * client cache that lags another machine's changes: there, and in any directory mounted from
 * another device than the root's, every walk reads every directory.
 */
const LOCAL_FILESYSTEMS: ReadonlySet<number> = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010,
]);

/** The device of `root` when directory times can be trusted on it, else `undefined`. */
function localDevice(root: string): number | undefined {
  try {
    return LOCAL_FILESYSTEMS.has(statfsSync(root).type) ? safeStat(root)?.dev : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How much the snapshot cache holds: roots and cached file reads across them (for tests and
 * diagnostics; not exported from the package).
 */
export function snapshotCacheSize(): { roots: number; entries: number } {
  let entries = 0;
  for (const directories of rootCaches.values())
    for (const listing of directories.values())
      for (const entry of listing.entries) if (entry.file !== undefined) entries += 1;
  return { roots: rootCaches.size, entries };
}

function readFileState(
  realRoot: string,
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
      // Not through a link or into a FIFO a command swapped in since the walk's lstat, nor another
      // file (a folder above it swapped for a link out, a bigger file): the one the walk saw.
      fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      const opened = fstatSync(fd);
      if (
        !opened.isFile() ||
        opened.ino !== stats.ino ||
        opened.dev !== stats.dev ||
        opened.size > maxHashBytes ||
        !openedInside(realRoot, fd)
      )
        throw new Error('not the regular file the walk saw');
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
 * The state (and text, when wanted) of one file: from `cached` when the file's lstat identity
 * (inode, size, mtime and ctime: an agent can restore an mtime, not a ctime) is the one it had
 * when last read and that read was enough for this walk, else read now. `keep` is the entry to
 * cache for the next walk, or `undefined` when the state is too recent to trust again.
 */
function hashFile(
  realRoot: string,
  absolute: string,
  stats: Stats,
  maxHashBytes: number,
  wantText: boolean,
  cached: CacheEntry | undefined,
  racyBefore: number,
): { state: FileState; text: string | undefined; keep: CacheEntry | undefined } {
  // Above the limit nothing is read, whatever an earlier walk with a larger limit cached.
  if (stats.size > maxHashBytes)
    return {
      state: { size: stats.size, mtimeMs: stats.mtimeMs, hash: undefined },
      text: undefined,
      keep: undefined,
    };
  if (
    cached !== undefined &&
    cached.ino === stats.ino &&
    cached.size === stats.size &&
    cached.mtimeMs === stats.mtimeMs &&
    cached.ctimeMs === stats.ctimeMs &&
    cached.hash !== undefined &&
    (!wantText || cached.text !== undefined || stats.size > MAX_TEXT_BYTES)
  ) {
    return { state: cached.state, text: wantText ? cached.text : undefined, keep: cached };
  }
  const { hash, text } = readFileState(realRoot, absolute, stats, maxHashBytes, wantText);
  const state: FileState = { size: stats.size, mtimeMs: stats.mtimeMs, hash };
  const trusted = hash !== undefined && stats.mtimeMs < racyBefore && stats.ctimeMs < racyBefore;
  return {
    state,
    text,
    keep: trusted
      ? {
          ino: stats.ino,
          size: stats.size,
          mtimeMs: stats.mtimeMs,
          ctimeMs: stats.ctimeMs,
          hash,
          text,
          state,
        }
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
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The listing of one directory entry: what its path decides, and the cached read carried over. */
function listedEntry(
  dir: string,
  rel: string,
  name: string,
  isDirectory: boolean,
  file: CacheEntry | undefined,
): ListedEntry {
  const childRel = rel === '' ? name : `${rel}/${name}`;
  return {
    name,
    rel: childRel,
    // `dir` is an absolute real path and `name` one component: no normalisation to do.
    absolute: dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`,
    isDirectory,
    textAlways: !isDirectory && (TEST_FILE.test(childRel) || childRel === 'package.json'),
    textIfSmall:
      !isDirectory &&
      (SOURCE_FILE.test(childRel) ||
        PROSE_FILE.test(childRel) ||
        SETTINGS_NAME.test(childRel) ||
        SETTINGS_FORMAT.test(childRel) ||
        DATA_FILE.test(childRel) ||
        isLineEntryFile(childRel)),
    file,
  };
}

/**
 * The entries of `dir`: the previous walk's listing when the directory is on `localDev` (see
 * {@link localDevice}), its identity (device, inode, mtime, ctime) is unchanged and that listing
 * was trusted, else read now — reusing the previous entries (and their cached file reads) of the
 * names still there with the same type.
 */
function listDirectory(
  dir: string,
  rel: string,
  previous: DirectoryListing | undefined,
  times: { racyBefore: number; localDev: number | undefined },
): DirectoryListing {
  const stats = safeStat(dir);
  if (stats === undefined || !stats.isDirectory()) {
    return {
      dev: 0,
      ino: 0,
      mtimeMs: 0,
      ctimeMs: 0,
      trusted: false,
      readable: false,
      venvMarker: false,
      entries: [],
      names: [],
    };
  }
  const local = times.localDev !== undefined && stats.dev === times.localDev;
  if (
    local &&
    previous?.trusted === true &&
    previous.dev === stats.dev &&
    previous.ino === stats.ino &&
    previous.mtimeMs === stats.mtimeMs &&
    previous.ctimeMs === stats.ctimeMs
  )
    return previous;
  let dirents: Dirent[];
  let readable = true;
  try {
    dirents = readdirSync(dir, { withFileTypes: true });
  } catch {
    dirents = [];
    readable = false;
  }
  let before: Map<string, ListedEntry> | undefined;
  if (previous !== undefined && previous.entries.length > 0) {
    before = new Map();
    for (const entry of previous.entries) before.set(entry.name, entry);
  }
  const entries: ListedEntry[] = [];
  let venvMarker = false;
  for (const dirent of dirents) {
    const name = dirent.name;
    if (name === 'pyvenv.cfg') venvMarker = true;
    const isDirectory = dirent.isDirectory();
    if (!isDirectory && !dirent.isFile() && !dirent.isSymbolicLink()) continue;
    const old = before?.get(name);
    entries.push(
      old !== undefined && old.isDirectory === isDirectory
        ? old
        : listedEntry(dir, rel, name, isDirectory, old?.file),
    );
  }
  return {
    dev: stats.dev,
    ino: stats.ino,
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    trusted: local && readable && stats.mtimeMs < times.racyBefore && stats.ctimeMs < times.racyBefore,
    readable,
    venvMarker,
    entries,
    names: entries.map((entry) => entry.name),
  };
}

/** `node_modules/<name>` and `node_modules/@scope/<name>` → size:mtime of their package.json. */
function snapshotNodeModules(dir: string, rel: string, packages: Map<string, string>): void {
  const manifestOf = (folder: string) => {
    const manifest = safeStat(path.join(folder, 'package.json'));
    return manifest ? `manifest:${manifest.size}:${manifest.mtimeMs}` : 'present';
  };
  for (const entry of safeReaddir(dir)) {
    const child = path.join(dir, entry.name);
    // The programs package scripts run by name (npm puts `.bin` first in their PATH): each
    // entry by its link target or its size and time, so a program planted there shows.
    if (entry.name === '.bin') {
      for (const program of safeReaddir(child)) {
        const at = path.join(child, program.name);
        const stats = program.isSymbolicLink() ? undefined : safeStat(at);
        let target: string | undefined;
        if (program.isSymbolicLink())
          try {
            target = readlinkSync(at);
          } catch {
            target = undefined;
          }
        packages.set(
          `${rel}/.bin/${program.name}`,
          target !== undefined ? `link:${target}` : stats ? `file:${stats.size}:${stats.mtimeMs}` : 'present',
        );
      }
      continue;
    }
    if (entry.name.startsWith('.')) continue;
    if (entry.name.startsWith('@')) {
      for (const scoped of safeReaddir(child))
        packages.set(`${rel}/${entry.name}/${scoped.name}`, manifestOf(path.join(child, scoped.name)));
      continue;
    }
    // A module file right in node_modules (`foo.js`, which `require('foo')` loads).
    if (entry.isFile()) {
      const stats = safeStat(child);
      packages.set(`${rel}/${entry.name}`, stats ? `file:${stats.size}:${stats.mtimeMs}` : 'present');
      continue;
    }
    packages.set(`${rel}/${entry.name}`, manifestOf(child));
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
 * directory's listing with its lstat identity, and each file's hash (and text) with its own; a
 * directory whose device, inode, mtime and ctime are unchanged is not read again (adding,
 * removing, renaming or retyping an entry moves them; on a local filesystem only: a network
 * mount's directory times can lag), a file whose inode, size, mtime and ctime are unchanged keeps
 * its hash — every file is still lstat-ed —, only new or changed files are read. A file or
 * directory changed within 100 ms of a walk's start is never cached (a same-tick write could
 * leave identical stats), and each root's cache holds only the directories its last walk read.
 * The result is exactly the uncached one. `node_modules` and virtualenvs are recorded per
 * package, VCS folders and tool caches are skipped, and the walk stops at `maxFiles` (then
 * `truncated`).
 *
 * @example
 * const before = snapshotWorkspace(root);
 * // … the step runs …
 * const changes = diffSnapshots(before, snapshotWorkspace(root));
 * changes.status('src/a.ts'); // 'created' | 'modified' | 'deleted' | 'unchanged' | 'unknown'
 */
export function snapshotWorkspace(root: string, options: SnapshotOptions = {}): WorkspaceSnapshot {
  const startedAt = performance.now();
  const takenAt = Date.now();
  let realRoot: string;
  try {
    realRoot = realpathSync.native(root);
  } catch {
    realRoot = path.resolve(root);
  }
  const maxFiles = options.maxFiles ?? 50_000;
  const maxHashBytes = options.maxHashBytes ?? 2_000_000;
  const useCache = options.cache !== false;
  const reuse = useCache ? options.reuse : undefined;
  if (reuse?.withinMs !== undefined && reuse.withinMs > 0) {
    const reused = reusableWalk(realRoot, { ...reuse, withinMs: reuse.withinMs, maxFiles, maxHashBytes });
    if (reused !== undefined) return reused;
  }
  const activity = workspaceActivity();
  const files = new Map<string, FileState>();
  const texts = new Map<string, string>();
  const packages = new Map<string, string>();
  let truncated = false;
  const previous = useCache ? rootCaches.get(realRoot) : undefined;
  const next = new Map<string, DirectoryListing>();
  const folders = new Map<string, readonly string[]>();
  const racyBefore = takenAt - RACY_MARGIN_MS;
  const times = { racyBefore, localDev: useCache ? localDevice(realRoot) : undefined };

  const walk = (dir: string, rel: string, depth: number): void => {
    if (truncated) return;
    const listing = listDirectory(dir, rel, previous?.get(rel), times);
    if (useCache) next.set(rel, listing);
    if (listing.readable) folders.set(rel, listing.names);
    // A virtualenv is recorded per package (the root itself is always walked); `pyvenv.cfg` is
    // looked up only where the listing names it (or could not be read).
    if (depth > 0 && (listing.venvMarker || !listing.readable) && existsSync(path.join(dir, 'pyvenv.cfg'))) {
      snapshotVirtualenv(dir, packages);
      return;
    }
    if (depth > 40) return;
    for (const entry of listing.entries) {
      if (entry.isDirectory) {
        const name = entry.name;
        if (SKIPPED_DIRS.has(name)) continue;
        if (name === 'node_modules') {
          snapshotNodeModules(entry.absolute, entry.rel, packages);
          continue;
        }
        walk(entry.absolute, entry.rel, depth + 1);
        if (truncated) return;
        continue;
      }
      if (files.size >= maxFiles) {
        truncated = true;
        return;
      }
      const stats = safeStat(entry.absolute);
      if (stats === undefined) {
        if (useCache) entry.file = undefined;
        continue;
      }
      if (stats.isSymbolicLink()) {
        if (useCache) entry.file = undefined;
        files.set(entry.rel, { size: stats.size, mtimeMs: stats.mtimeMs, hash: `link:${stats.size}` });
        continue;
      }
      const wantText = entry.textAlways || (entry.textIfSmall && stats.size <= MAX_SOURCE_TEXT_BYTES);
      const state = hashFile(
        realRoot,
        entry.absolute,
        stats,
        maxHashBytes,
        wantText,
        useCache ? entry.file : undefined,
        racyBefore,
      );
      if (useCache) entry.file = state.keep;
      files.set(entry.rel, state.state);
      if (wantText && state.text !== undefined) texts.set(entry.rel, state.text);
    }
  };
  walk(realRoot, '', 0);
  const snapshot: WorkspaceSnapshot = {
    root: realRoot,
    takenAt,
    files,
    texts,
    packages,
    git: readGitRefs(realRoot),
    truncated,
    folders,
  };
  if (useCache) {
    rootCaches.delete(realRoot);
    rootCaches.set(realRoot, next);
    if (reuse !== undefined) {
      snapshotScopes.set(snapshot, reuse.scope);
      lastWalks.delete(realRoot);
      // Only a walk taken while nothing of this process could write is a moment's exact state.
      if (activity.running === 0)
        lastWalks.set(realRoot, {
          scope: reuse.scope,
          snapshot,
          startedAt,
          epoch: activity.epoch,
          maxFiles,
          maxHashBytes,
        });
    }
    for (const oldest of rootCaches.keys()) {
      if (rootCaches.size <= MAX_CACHED_ROOTS) break;
      rootCaches.delete(oldest);
      lastWalks.delete(oldest);
    }
  }
  return snapshot;
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
  /**
   * Every installed entry added or changed, with its signature now: the packages, and the
   * programs of `node_modules/.bin` (`node_modules/.bin/vitest` → `link:../vitest/vitest.mjs`).
   */
  readonly installedChanged: ReadonlyMap<string, string>;
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
    } else if (old !== state && !sameFile(old, state)) modified.push(file);
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
  const installedChanged = new Map<string, string>();
  for (const [name, signature] of after.packages) {
    if (before.packages.get(name) === signature) continue;
    installedChanged.set(name, signature);
    if (!name.includes('/.bin/')) packagesChanged.push(name);
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
    installedChanged,
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
