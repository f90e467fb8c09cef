import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import {
  type HiddenIndexEntry,
  hiddenEntryChange,
  parseLsFilesTags,
  readHiddenIndexEntries,
} from './hidden-index-entries';
import { inspectInside } from './inspect-inside';

/**
 * What hides a change from `git status` and `git diff`: the index's `assume-unchanged` or
 * `skip-worktree` bit, or an ignore rule the repository's history does not hold (a line in
 * `.git/info/exclude`, or a `.gitignore` that is itself new or changed — one that ignores itself
 * included). A command can set up any of them.
 */
export type HiddenBy = HiddenIndexEntry['bit'] | 'ignore-rule';

/** A change git's own views do not show. */
export interface HiddenChange {
  /** The path in the repository (forward slashes); a folder (every file in it hidden) ends in `/`. */
  path: string;
  kind: 'modified' | 'deleted' | 'untracked' | 'other';
  hiddenBy: HiddenBy;
  /** The object id the index holds (index bits only): the content git still believes in. */
  oid?: string;
  /** The rule that hides it, `<source>:<line>:<pattern>` (`ignore-rule` only). */
  rule?: string;
}

/** What {@link findHiddenChanges} needs of a git run. */
export interface GitReadResult {
  exitCode: number | null;
  stdout: string;
}

/**
 * Runs `git <args>` in the workspace (through the one command runner: hardened configuration) with
 * `stdin` written to it.
 */
export type GitRead = (args: string[], stdin?: string) => Promise<GitReadResult>;

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** The ignore file sources git may trust: a `.gitignore` in the work tree, not one of git's own files. */
function isWorkTreeGitignore(source: string): boolean {
  return (
    !path.isAbsolute(source) && !source.startsWith('.git/') && path.posix.basename(source) === '.gitignore'
  );
}

/**
 * The changes under the workspace (git runs there) in the repository at `gitTop` that `git status` and `git diff` do not show (see
 * {@link HiddenBy}), in repository paths. Reads the index itself; asks git (through `git`) for the
 * ignored paths and the rule behind each. Throws when git cannot answer: a caller must never take
 * "could not look" for "nothing hidden".
 */
export async function findHiddenChanges(gitTop: string, git: GitRead): Promise<HiddenChange[]> {
  // `core.worktree` in the repository's configuration (a command can write it; `-c` cannot
  // override it) makes every git view show another folder: refuse rather than show it.
  const top = await git(['rev-parse', '--show-toplevel']);
  if (top.exitCode !== 0) throw new Error(`git rev-parse failed (exit ${top.exitCode})`);
  const shown = top.stdout.trim();
  if (realPath(shown) !== realPath(gitTop))
    throw new Error(
      `git's work tree is ${JSON.stringify(shown)}, not the repository's folder ${JSON.stringify(gitTop)}: its configuration (core.worktree) points git at another folder, so git status and git diff would not show this workspace. Remove that setting (git config --unset core.worktree).`,
    );
  const hidden: HiddenChange[] = [];
  let entries = readHiddenIndexEntries(gitTop);
  if (entries === undefined) {
    // An index this reader does not understand: git lists every entry's tag.
    const tags = await git(['ls-files', '-v', '-s', '-z', '--full-name', '--', '.']);
    if (tags.exitCode !== 0) throw new Error(`git ls-files failed (exit ${tags.exitCode})`);
    entries = parseLsFilesTags(tags.stdout);
  }
  for (const entry of entries) {
    const kind = hiddenEntryChange(gitTop, entry);
    if (kind !== undefined) hidden.push({ path: entry.path, kind, hiddenBy: entry.bit, oid: entry.oid });
  }

  const status = await git([
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=normal',
    '--ignored=matching',
    '--ignore-submodules=none',
    '--',
    '.',
  ]);
  if (status.exitCode !== 0) throw new Error(`git status failed (exit ${status.exitCode})`);
  const listed: string[] = [...hidden.map((change) => change.path)];
  const ignored: string[] = [];
  const records = status.stdout.split('\0');
  for (let index = 0; index < records.length; index++) {
    const record = records[index] ?? '';
    if (record.length < 4) continue;
    const code = record.slice(0, 2);
    if (code === '!!') ignored.push(record.slice(3));
    else listed.push(record.slice(3));
    if (code.includes('R') || code.includes('C')) index++;
  }
  if (ignored.length === 0) return hidden;
  // A `.gitignore` is trusted when git has it as committed: not new, changed, ignored or hidden.
  const untrusted = (source: string) =>
    !isWorkTreeGitignore(source) ||
    listed.some((item) => item === source || (item.endsWith('/') && source.startsWith(item))) ||
    ignored.some((item) => item === source || (item.endsWith('/') && source.startsWith(item)));
  const checked = await git(
    ['check-ignore', '--verbose', '--stdin', '-z'],
    ignored.map((item) => `${path.join(gitTop, item)}${item.endsWith('/') ? '/' : ''}\0`).join(''),
  );
  // Exit 1: none of them is ignored any more (a race with the work tree); anything else is a failure.
  if (checked.exitCode !== 0 && checked.exitCode !== 1)
    throw new Error(`git check-ignore failed (exit ${checked.exitCode})`);
  const fields = checked.stdout.split('\0');
  for (let index = 0; index + 3 < fields.length; index += 4) {
    const [source = '', line = '', pattern = '', absolute = ''] = fields.slice(index, index + 4);
    if (source === '' || pattern.startsWith('!') || !untrusted(source)) continue;
    const relative = path.relative(gitTop, absolute).split(path.sep).join('/');
    hidden.push({
      path: absolute.endsWith('/') ? `${relative}/` : relative,
      kind: 'untracked',
      hiddenBy: 'ignore-rule',
      rule: `${source}:${line}:${pattern}`,
    });
  }
  return hidden;
}

/**
 * A unified diff of a change git does not show: `before` (the index's content, undefined when
 * unknown) against `after` (the file's now, undefined when deleted), with a comment line naming
 * what hides it.
 */
export function formatHiddenDiff(options: {
  path: string;
  hiddenBy: HiddenBy;
  before: string | undefined;
  after: string | undefined;
}): string {
  const { path: file, hiddenBy, before, after } = options;
  const lines = (text: string | undefined) => {
    const split = (text ?? '').split('\n');
    if (split.at(-1) === '') split.pop();
    return split;
  };
  const old = lines(before);
  const now = lines(after);
  const why =
    hiddenBy === 'ignore-rule'
      ? 'an ignore rule that is not committed hides this file'
      : `the index's ${hiddenBy} bit hides this file`;
  return (
    `diff --git a/${file} b/${file}\n` +
    `# not shown by git: ${why} from git status and git diff\n` +
    `--- ${before === undefined && hiddenBy === 'ignore-rule' ? '/dev/null' : `a/${file}`}\n` +
    `+++ ${after === undefined ? '/dev/null' : `b/${file}`}\n` +
    `@@ -${old.length === 0 ? 0 : 1},${old.length} +${now.length === 0 ? 0 : 1},${now.length} @@\n` +
    [...old.map((line) => `-${line}`), ...now.map((line) => `+${line}`)].join('\n') +
    (old.length + now.length > 0 ? '\n' : '')
  );
}

/** The top of the git work tree containing `realRoot` (the nearest folder with a `.git`), or undefined. */
export function findGitTop(realRoot: string): string | undefined {
  let dir = realRoot;
  for (;;) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Paths of a `git diff` shown as `Binary files … differ` whose file in the work tree is text (no
 * NUL in its first 8000 bytes, git's own test): binary only because an attribute (`-diff`,
 * `binary`, a driver's `binary`) says so — which a command can write. Paths are the diff's `b/`
 * side, relative to the repository's top.
 */
export function textShownAsBinary(diff: string, gitTop: string): string[] {
  const found: string[] = [];
  for (const match of diff.matchAll(/^Binary files (?:a\/.+?|\/dev\/null) and b\/(.+) differ$/gm)) {
    const file = match[1];
    if (file === undefined) continue;
    // Gone, unreadable, a link out or over 8 MiB: left as git shows it.
    const entry = inspectInside(gitTop, path.join(gitTop, file), 8 * 1024 * 1024);
    if (entry.type === 'file' && !entry.content.subarray(0, 8000).includes(0)) found.push(file);
  }
  return found;
}

/**
 * `diff` with the sections of `files` (the `b/` paths of their headers) taken from `asText` (the
 * same diff run with `--text` for them), each marked as shown as text.
 */
export function replaceBinarySections(diff: string, asText: string, files: readonly string[]): string {
  const header = /^diff --git a\/.+? b\/(.+)$/m;
  const replacements = new Map<string, string>();
  for (const section of asText.split(/^(?=diff --git )/m)) {
    const file = header.exec(section)?.[1];
    if (file !== undefined) replacements.set(file, section);
  }
  return diff
    .split(/^(?=diff --git )/m)
    .map((section) => {
      const file = header.exec(section)?.[1];
      const replacement = file !== undefined && files.includes(file) ? replacements.get(file) : undefined;
      if (replacement === undefined) return section;
      const [first = '', ...rest] = replacement.split('\n');
      return [
        first,
        '# shown as text: an attribute (-diff, binary) marks this text file binary',
        ...rest,
      ].join('\n');
    })
    .join('');
}
