import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandRunner } from '@closedloop/tools';
import { inspectInside } from '@closedloop/tools/internal';
import { excerpt } from './finding';
import {
  blobOid,
  gitDirOf,
  type HiddenIndexEntry,
  parseHiddenIndexEntries,
  parseLsFilesTags,
} from './hidden-index-entries';
import { commandProblem, runCommand } from './run-command';

/** How git sees one changed path. */
export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed' | 'untracked' | 'other';

/** A path git reports as changed, relative to the workspace root (forward slashes). */
export interface ChangedFile {
  path: string;
  kind: ChangeKind;
  /**
   * Set when git itself does not show the change: the index's `assume-unchanged` or
   * `skip-worktree` bit hides the file from `git status` and `git diff` (a command can set them),
   * and its content differs from the index's (or, assume-unchanged, it is gone).
   */
  hiddenBy?: HiddenIndexEntry['bit'];
}

/** Options of {@link createWorkspaceFacts}. */
export interface WorkspaceFactsOptions {
  /**
   * What "changed" is measured against: a commit-ish (`HEAD` by default). Pass the commit the
   * run started from so changes a step already committed still count.
   */
  baseRef?: string;
  /** Timeout of each git command. Default 30 000 ms. */
  gitTimeoutMs?: number;
  signal?: AbortSignal;
  /** The process runner for git (share `run_command`'s). Default: default policy, `sandbox: 'auto'`. */
  runner?: CommandRunner;
}

/**
 * Read-only facts about a workspace, cached for one verification: files, git changes, diff.
 * Never trusts anything a model or a tool printed.
 */
export interface WorkspaceFacts {
  /** Absolute, real path of the root. */
  readonly root: string;
  /** The git repository containing the root, or undefined. */
  readonly gitTop: string | undefined;
  /**
   * Normalises a path (absolute or relative, `./` prefixes, backslashes) to a workspace-relative
   * posix path; `undefined` when it is outside the workspace.
   */
  relative(file: string): string | undefined;
  /** Absolute path of a workspace-relative path. */
  absolute(relativePath: string): string;
  /** True when the workspace-relative path is an existing file. */
  isFile(relativePath: string): boolean;
  /** True when anything exists at the path. */
  exists(relativePath: string): boolean;
  /** UTF-8 content of a file (cached), or undefined. Files over 2 MB are not read. */
  read(relativePath: string): string | undefined;
  /** Changed paths by git (`status --porcelain` ∪ `diff --name-only <base>`); undefined without git. */
  changes(): Promise<ReadonlyMap<string, ChangedFile> | undefined>;
  /** `git diff <base>` plus new untracked files, capped; empty without git. */
  diff(maxChars?: number): Promise<string>;
}

/**
 * The real path of `folder` when it is inside `realRoot` (a folder to list: one linked out of the
 * workspace is not), else undefined.
 */
export function folderInside(realRoot: string, folder: string): string | undefined {
  try {
    const real = realpathSync(folder);
    const inside = path.relative(realRoot, real);
    if (inside.startsWith('..') || path.isAbsolute(inside)) return undefined;
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The real path of `root` (itself when it cannot be resolved). */
export function realRootOf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

function findGitTop(root: string): string | undefined {
  let dir = root;
  for (;;) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}

function kindOf(code: string): ChangeKind {
  if (code === '??') return 'untracked';
  if (code.includes('R')) return 'renamed';
  if (code.includes('A')) return 'added';
  if (code.includes('D')) return 'deleted';
  if (code.includes('M') || code.includes('T')) return 'modified';
  return 'other';
}

const GIT_ENV = { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };

/**
 * The text of a regular file whose real path is inside `realRoot` (links inside it are fine, a
 * link out — planted by a command — is not followed), opened without following a last-moment
 * link and without blocking (a FIFO); undefined otherwise or above `maxBytes`. The verifier's one
 * way to read a workspace file outside {@link WorkspaceFacts.read} (which uses it).
 */
export function readInside(realRoot: string, file: string, maxBytes: number): string | undefined {
  const entry = inspectInside(realRoot, file, maxBytes);
  return entry.type === 'file' ? entry.content.toString('utf8') : undefined;
}

/** The length of the repository's object ids: 32 bytes when it uses SHA-256, else 20. */
function oidBytes(gitDir: string | undefined): 20 | 32 {
  if (gitDir === undefined) return 20;
  let common = gitDir;
  try {
    common = path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    // Not a linked worktree: the config is in the git directory itself.
  }
  try {
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(readFileSync(path.join(common, 'config'), 'utf8'))
      ? 32
      : 20;
  } catch {
    return 20;
  }
}

/**
 * Creates the cached fact source for one verification of a workspace.
 *
 * @example
 * const facts = createWorkspaceFacts('/repo');
 * (await facts.changes())?.has('src/auth.ts');
 */
export function createWorkspaceFacts(root: string, options: WorkspaceFactsOptions = {}): WorkspaceFacts {
  const realRoot = realRootOf(root);
  const gitTop = findGitTop(realRoot);
  const prefix = gitTop === undefined ? '' : toPosix(path.relative(gitTop, realRoot));
  const baseRef = options.baseRef ?? 'HEAD';
  const timeoutMs = options.gitTimeoutMs ?? 30_000;
  const contents = new Map<string, string | undefined>();
  let changesPromise: Promise<ReadonlyMap<string, ChangedFile> | undefined> | undefined;

  const git = (args: string[]) =>
    runCommand({
      argv: ['git', ...args],
      cwd: realRoot,
      timeoutMs,
      env: GIT_ENV,
      ...(options.runner ? { runner: options.runner } : {}),
      maxOutputChars: 4_000_000,
      ...(options.signal ? { signal: options.signal } : {}),
    });

  const relativeCache = new Map<string, string | undefined>();
  const relative = (file: string): string | undefined => {
    if (relativeCache.has(file)) return relativeCache.get(file);
    const cleaned = file.trim().replace(/\\/g, '/');
    let result: string | undefined;
    if (cleaned !== '') {
      const rel = path.relative(realRoot, path.resolve(realRoot, cleaned));
      if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) result = toPosix(rel);
    }
    if (relativeCache.size > 10_000) relativeCache.clear();
    relativeCache.set(file, result);
    return result;
  };
  const absolute = (relativePath: string) => path.join(realRoot, relativePath);
  const stat = (relativePath: string) => {
    try {
      return statSync(absolute(relativePath));
    } catch {
      return undefined;
    }
  };

  const loadChanges = async (): Promise<ReadonlyMap<string, ChangedFile> | undefined> => {
    if (gitTop === undefined) return undefined;
    const [status, diff] = await Promise.all([
      git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.']),
      git(['diff', '--name-status', '-z', '--relative', baseRef, '--']),
    ]);
    if (status.exitCode !== 0) {
      // Fail closed: the caller's check becomes an infrastructure error, never a pass.
      const problem = commandProblem(status);
      throw new Error(
        problem !== undefined
          ? `git status could not run: ${problem}`
          : `git status failed (exit ${status.exitCode}): ${excerpt(status.output, 500)}`,
      );
    }
    const changes = new Map<string, ChangedFile>();
    const add = (repoPath: string, kind: ChangeKind) => {
      if (prefix !== '' && !repoPath.startsWith(`${prefix}/`)) return;
      const rel = prefix === '' ? repoPath : repoPath.slice(prefix.length + 1);
      if (!changes.has(rel)) changes.set(rel, { path: rel, kind });
    };
    const parts = status.stdout.split('\0');
    for (let index = 0; index < parts.length; index += 1) {
      const entry = parts[index] ?? '';
      if (entry.length < 4) continue;
      const code = entry.slice(0, 2);
      add(entry.slice(3), kindOf(code));
      if (code.includes('R') || code.includes('C')) index += 1;
    }
    // `git diff <base>` adds what a step already committed since the base (a failing diff means
    // the base does not exist yet, e.g. a repository without commits: status is then complete).
    if (diff.exitCode === 0) {
      const items = diff.stdout.split('\0').filter((item) => item !== '');
      for (let index = 0; index < items.length; ) {
        const code = items[index] ?? '';
        const renamed = code.startsWith('R') || code.startsWith('C');
        const file = items[renamed ? index + 2 : index + 1];
        index += renamed ? 3 : 2;
        if (file === undefined) break;
        const rel = file;
        if (!changes.has(rel)) changes.set(rel, { path: rel, kind: kindOf(code.slice(0, 1)) });
      }
    }
    for (const entry of await hiddenEntries()) {
      if (prefix !== '' && !entry.path.startsWith(`${prefix}/`)) continue;
      const rel = prefix === '' ? entry.path : entry.path.slice(prefix.length + 1);
      if (changes.has(rel)) continue;
      const kind = hiddenChange(entry);
      if (kind === undefined) continue;
      changes.set(rel, { path: rel, kind, hiddenBy: entry.bit });
      hiddenOids.set(rel, entry.oid);
    }
    return changes;
  };

  /** Index entries whose bits hide them from git (read from the index itself: no process). */
  const hiddenEntries = async (): Promise<HiddenIndexEntry[]> => {
    if (gitTop === undefined) return [];
    const gitDir = gitDirOf(gitTop);
    let index: Buffer | undefined;
    try {
      if (gitDir !== undefined) index = readFileSync(path.join(gitDir, 'index'));
    } catch (error) {
      // No index yet (a repository before its first add): nothing can be hidden.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    }
    const parsed = index === undefined ? undefined : parseHiddenIndexEntries(index, oidBytes(gitDir));
    if (parsed !== undefined) return parsed;
    // An index this reader does not understand: git lists every entry's tag (fail closed on error).
    const listed = await git(['ls-files', '-v', '-s', '-z', '--full-name', '--', '.']);
    if (listed.exitCode !== 0)
      throw new Error(`git ls-files failed (exit ${listed.exitCode}): ${excerpt(listed.output, 500)}`);
    return parseLsFilesTags(listed.stdout);
  };

  /** How a hidden entry changed: its content against the index's, undefined when it did not. */
  const hiddenChange = (entry: HiddenIndexEntry): ChangeKind | undefined => {
    const file = path.join(gitTop ?? realRoot, entry.path);
    let content: Buffer;
    try {
      const info = lstatSync(file);
      if (info.isSymbolicLink()) content = Buffer.from(readlinkSync(file));
      else if (!info.isFile()) return 'other';
      // Too large to hash here: changed as far as anyone can tell (never "unchanged" unseen).
      else if (info.size > 64 * 1024 * 1024) return 'modified';
      else content = readFileSync(file);
    } catch {
      // Gone: a sparse checkout leaves skip-worktree files out on purpose; assume-unchanged does not.
      return entry.bit === 'skip-worktree' ? undefined : 'deleted';
    }
    return blobOid(content, entry.oid.length === 64 ? 32 : 20) === entry.oid ? undefined : 'modified';
  };

  const hiddenOids = new Map<string, string>();
  /** A change git does not show, as a diff of the index's content against the file's. */
  const hiddenDiff = async (change: ChangedFile): Promise<string> => {
    const oid = hiddenOids.get(change.path);
    const before = oid === undefined ? undefined : await git(['cat-file', 'blob', oid]);
    const lines = (text: string | undefined) => {
      const split = (text ?? '').split('\n');
      if (split.at(-1) === '') split.pop();
      return split;
    };
    const old = lines(before?.exitCode === 0 ? before.stdout : undefined);
    const now = change.kind === 'deleted' ? [] : lines(facts.read(change.path));
    return (
      `diff --git a/${change.path} b/${change.path}\n` +
      `# not shown by git: the index's ${change.hiddenBy} bit hides this file from git status and git diff\n` +
      `--- a/${change.path}\n+++ ${change.kind === 'deleted' ? '/dev/null' : `b/${change.path}`}\n` +
      `@@ -1,${old.length} +1,${now.length} @@\n` +
      [...old.map((line) => `-${line}`), ...now.map((line) => `+${line}`)].join('\n') +
      '\n'
    );
  };

  const facts: WorkspaceFacts = {
    root: realRoot,
    gitTop,
    relative,
    absolute,
    isFile: (relativePath) => stat(relativePath)?.isFile() === true,
    exists: (relativePath) => stat(relativePath) !== undefined,
    read(relativePath) {
      if (contents.has(relativePath)) return contents.get(relativePath);
      const text = readInside(realRoot, absolute(relativePath), 2_000_000);
      contents.set(relativePath, text);
      return text;
    },
    changes() {
      changesPromise ??= loadChanges();
      return changesPromise;
    },
    async diff(maxChars = 60_000) {
      if (gitTop === undefined) return '';
      const tracked = await git(['diff', '--no-color', '--relative', baseRef, '--']);
      let text = tracked.exitCode === 0 ? tracked.stdout : '';
      const changes = await facts.changes();
      for (const change of changes?.values() ?? []) {
        if (text.length >= maxChars) break;
        if (change.hiddenBy !== undefined) {
          text += await hiddenDiff(change);
          continue;
        }
        if (change.kind !== 'untracked') continue;
        const content = facts.read(change.path);
        if (content === undefined) continue;
        const lines = content.split('\n');
        if (lines.at(-1) === '') lines.pop();
        text += `diff --git a/${change.path} b/${change.path}\nnew file\n--- /dev/null\n+++ b/${change.path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((line) => `+${line}`).join('\n')}\n`;
      }
      return text.length > maxChars
        ? `${text.slice(0, maxChars)}\n… [diff cut at ${maxChars} characters]\n`
        : text;
    },
  };
  return facts;
}
