import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandRunner } from '@closedloop/tools';
import {
  findGitTop,
  findHiddenChanges,
  formatHiddenDiff,
  type HiddenBy,
  inspectInside,
  replaceBinarySections,
  textShownAsBinary,
} from '@closedloop/tools/internal';
import { excerpt } from './finding';
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
   * and its content differs from the index's (or, assume-unchanged, it is gone); or
   * `ignore-rule`: a new file ignored by a rule git's history does not hold (`.git/info/exclude`,
   * a `.gitignore` that is new or changed).
   */
  hiddenBy?: HiddenBy;
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

  const git = (args: string[], stdin?: string) =>
    runCommand({
      argv: ['git', ...args],
      ...(stdin !== undefined ? { stdin } : {}),
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
    const hidden = await findHiddenChanges(gitTop, (args, stdin) =>
      git(args, stdin).then((result) => ({
        exitCode: result.truncated || result.timedOut ? null : result.exitCode,
        stdout: result.stdout,
      })),
    );
    for (const change of hidden) {
      if (prefix !== '' && !change.path.startsWith(`${prefix}/`)) continue;
      const rel = prefix === '' ? change.path : change.path.slice(prefix.length + 1);
      if (!rel.endsWith('/')) {
        if (!changes.has(rel)) changes.set(rel, { path: rel, kind: change.kind, hiddenBy: change.hiddenBy });
        if (change.oid !== undefined) hiddenOids.set(rel, change.oid);
        continue;
      }
      // A folder every file of which an ignore rule hides: its files, one by one.
      const listed = await git(['ls-files', '-z', '--others', '--', rel]);
      if (listed.exitCode !== 0)
        throw new Error(`git ls-files failed (exit ${listed.exitCode}): ${excerpt(listed.output, 500)}`);
      for (const file of listed.stdout.split('\0')) {
        if (file !== '' && !changes.has(file))
          changes.set(file, { path: file, kind: 'untracked', hiddenBy: change.hiddenBy });
      }
    }
    return changes;
  };

  const hiddenOids = new Map<string, string>();
  /** A change git does not show, as a diff of the index's content against the file's. */
  const hiddenDiff = async (change: ChangedFile): Promise<string> => {
    const oid = hiddenOids.get(change.path);
    const before = oid === undefined ? undefined : await git(['cat-file', 'blob', oid]);
    return formatHiddenDiff({
      path: change.path,
      hiddenBy: change.hiddenBy ?? 'ignore-rule',
      before: before?.exitCode === 0 ? before.stdout : undefined,
      after: change.kind === 'deleted' ? undefined : facts.read(change.path),
    });
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
      // No external diff or textconv program of the repository's configuration, and a text file an
      // attribute marks binary (`-diff`, `binary`: a command can write them) shown as text.
      const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', '--relative', baseRef];
      const tracked = await git([...args, '--']);
      let text = tracked.exitCode === 0 ? tracked.stdout : '';
      const asText = textShownAsBinary(text, realRoot);
      if (asText.length > 0) {
        const shown = await git([...args, '--text', '--', ...asText]);
        if (shown.exitCode === 0) text = replaceBinarySections(text, shown.stdout, asText);
      }
      const changes = await facts.changes();
      for (const change of changes?.values() ?? []) {
        if (text.length >= maxChars) break;
        if (change.hiddenBy !== undefined && change.hiddenBy !== 'ignore-rule') {
          text += await hiddenDiff(change);
          continue;
        }
        if (change.kind !== 'untracked') continue;
        const content = facts.read(change.path);
        if (content === undefined) continue;
        const lines = content.split('\n');
        if (lines.at(-1) === '') lines.pop();
        if (change.hiddenBy === 'ignore-rule') {
          text += formatHiddenDiff({
            path: change.path,
            hiddenBy: 'ignore-rule',
            before: undefined,
            after: content,
          });
          continue;
        }
        text += `diff --git a/${change.path} b/${change.path}\nnew file\n--- /dev/null\n+++ b/${change.path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((line) => `+${line}`).join('\n')}\n`;
      }
      return text.length > maxChars
        ? `${text.slice(0, maxChars)}\n… [diff cut at ${maxChars} characters]\n`
        : text;
    },
  };
  return facts;
}
