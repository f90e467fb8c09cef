import { lstat, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { MAX_GIT_TEXT_BYTES, readBounded, readBoundedText } from './read-bounded';

/** The most a git index is read (to find its gitlinks). */
const MAX_INDEX_BYTES = 1024 * 1024 * 1024;

/**
 * Keys a nested repository's configuration may hold: what `git init`, `git clone` and
 * `git submodule` write. Anything else (`core.fsmonitor`, `core.hooksPath`, `core.sshCommand`,
 * `diff.*.textconv`, `filter.*.clean`, `include.path`…) may name a program git runs.
 */
const allowedKeys = [
  /^core\.(?:repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|worktree)$/,
  /^extensions\.(?:objectformat|worktreeconfig|preciousobjects|partialclone|noop)$/,
  /^remote\.[^\n]*\.(?:url|pushurl|fetch|tagopt|promisor|partialclonefilter|mirror)$/,
  /^branch\.[^\n]*\.(?:remote|merge|rebase)$/,
  /^submodule\.[^\n]*\.(?:url|active|branch)$/,
  /^user\.(?:name|email)$/,
  /^init\.defaultbranch$/,
];

/** The keys of a git configuration text that are not allowed (lower-cased `section.sub.key`). */
export function unsafeConfigKeys(text: string): string[] {
  const found: string[] = [];
  let section = '';
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\s\]"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      const [, name = '', subsection] = header;
      // `[section.sub]` is the old form of `[section "sub"]`.
      section = subsection === undefined ? name.toLowerCase() : `${name.toLowerCase()}.${subsection}`;
      line = (header[3] ?? '').trim();
      if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    } else if (line.startsWith('[')) {
      found.push(line);
      continue;
    }
    const key = /^([A-Za-z][A-Za-z0-9-]*)/.exec(line)?.[1];
    const full = `${section}.${(key ?? line).toLowerCase()}`;
    if (key === undefined || section === '' || !allowedKeys.some((pattern) => pattern.test(full)))
      found.push(full);
  }
  return found;
}

interface IndexIdentity {
  key: string;
  gitlinks: string[];
}

const gitlinkCache = new Map<string, IndexIdentity>();

/** The paths (relative to the work tree) of the submodules in a git index (mode 160000). */
export function indexGitlinks(index: Buffer, hashBytes = 20): string[] {
  if (index.length < 12 || index.toString('latin1', 0, 4) !== 'DIRC') return [];
  const version = index.readUInt32BE(4);
  const count = index.readUInt32BE(8);
  const out: string[] = [];
  let offset = 12;
  let previous = '';
  for (let entry = 0; entry < count && offset < index.length; entry++) {
    const start = offset;
    const mode = index.readUInt32BE(start + 24);
    const flagsAt = start + 40 + hashBytes;
    const flags = index.readUInt16BE(flagsAt);
    let pathAt = flagsAt + 2;
    if (version >= 3 && (flags & 0x4000) !== 0) pathAt += 2;
    let name: string;
    if (version >= 4) {
      // Prefix compression: a varint of bytes to drop from the previous path, then the rest.
      let strip = 0;
      let byte = index[pathAt] ?? 0;
      let at = pathAt + 1;
      strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = index[at++] ?? 0;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const end = index.indexOf(0, at);
      if (end < 0) break;
      name = previous.slice(0, previous.length - strip) + index.toString('utf8', at, end);
      offset = end + 1;
    } else {
      const end = index.indexOf(0, pathAt);
      if (end < 0) break;
      name = index.toString('utf8', pathAt, end);
      offset = start + ((end - start + 8) & ~7);
    }
    previous = name;
    if (mode >>> 12 === 0o16) out.push(name);
  }
  return out;
}

/** The git directory of a nested repository at `folder` (a `.git` folder, or the one a `.git` file names). */
async function nestedGitDir(folder: string): Promise<string | undefined> {
  const dotGit = path.join(folder, '.git');
  const stats = await lstat(dotGit).catch(() => undefined);
  if (stats?.isDirectory()) return dotGit;
  if (stats?.isFile()) {
    const text = (await readBoundedText(dotGit, MAX_GIT_TEXT_BYTES)) ?? '';
    const pointer = /^gitdir:\s*(.+)$/m.exec(text)?.[1]?.trim();
    return pointer === undefined ? undefined : path.resolve(folder, pointer);
  }
  return undefined;
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The suffix a refused file or folder gets. */
export const refusedSuffix = '.refused-by-closedloop';

/**
 * After a sandboxed command: the submodules of the workspace repository (gitlinks in its index)
 * whose git directory is in the work tree get their configuration and hooks checked. The user's
 * own `git status` in the outer repository runs `git status` in each submodule, with the
 * submodule's configuration: a `core.fsmonitor` the command planted there would run outside the
 * sandbox. A configuration with keys beyond what `git init` and `git clone` write, and hooks that
 * are not samples, are renamed (`config.refused-by-closedloop`); returns what was refused.
 */
export async function refuseSubmoduleConfigs(options: {
  /** The work tree of the repository. */
  top: string;
  /** Its git directory (where its index is). */
  gitDir: string;
  /** What the command could write: the workspace (its real path). */
  writable: string;
}): Promise<string[]> {
  const indexFile = path.join(options.gitDir, 'index');
  const stats = await stat(indexFile).catch(() => undefined);
  if (stats === undefined) return [];
  const key = `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  let cached = gitlinkCache.get(indexFile);
  if (cached?.key !== key) {
    const index = await readBounded(indexFile, MAX_INDEX_BYTES);
    const config = (await readBoundedText(path.join(options.gitDir, 'config'), MAX_GIT_TEXT_BYTES)) ?? '';
    const hashBytes = /objectformat\s*=\s*sha256/i.test(config) ? 32 : 20;
    let gitlinks: string[] = [];
    try {
      gitlinks = index === undefined ? [] : indexGitlinks(index, hashBytes);
    } catch {
      gitlinks = [];
    }
    cached = { key, gitlinks };
    gitlinkCache.set(indexFile, cached);
    if (gitlinkCache.size > 100) gitlinkCache.delete(gitlinkCache.keys().next().value as string);
  }
  const refused: string[] = [];
  for (const gitlink of cached.gitlinks.slice(0, 1000)) {
    const folder = path.join(options.top, gitlink);
    const found = await nestedGitDir(folder);
    // Its real path: through a link (`sub` → another repository of the user's) it is not the
    // workspace's, and is left alone. Under `.git/modules` the sandbox mounts it read-only;
    // elsewhere outside the workspace the command could not write it.
    const gitDir = found === undefined ? undefined : await realpath(found).catch(() => undefined);
    if (gitDir === undefined || !isInside(options.writable, gitDir) || isInside(options.gitDir, gitDir))
      continue;
    refused.push(...(await refuseGitDirectory(gitDir, options.writable)));
  }
  return refused;
}

/** Renames `target` to `<target>.refused-by-closedloop` (replacing an earlier one). */
export async function moveAside(target: string): Promise<void> {
  await rm(`${target}${refusedSuffix}`, { recursive: true, force: true });
  await rename(target, `${target}${refusedSuffix}`);
}

/** The values of `section.key` (no subsection) in a git configuration text, unquoted. */
function configValues(text: string, section: string, key: string): string[] {
  const values: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    const header = /^\[\s*([^\s\]"]+)(\s+"(?:[^"\\]|\\.)*")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      // A subsection (`[core "x"]`) is another section.
      current = header[2] === undefined ? (header[1] ?? '').toLowerCase() : '';
      line = (header[3] ?? '').trim();
    }
    const value = new RegExp(`^${key}\\s*=\\s*(.*)$`, 'i').exec(line)?.[1];
    if (current === section && value !== undefined)
      values.push(
        value
          .replace(/\s+[#;].*$/, '')
          .replace(/^"(.*)"$/, '$1')
          .trim(),
      );
  }
  return values;
}

/** True when `target` (absolute) is inside one of `folders` (real paths), by its real path when it exists. */
async function leadsInside(target: string, folders: readonly string[]): Promise<boolean> {
  const real = (await realpath(target).catch(() => undefined)) ?? path.resolve(target);
  return folders.some((folder) => isInside(folder, real));
}

/**
 * Why the file `name` of `gitDir` holding `text` sends git outside `confines`, or undefined: an
 * `objects/info/alternates` line naming an object store outside (git would read another
 * repository's objects), a `commondir` naming a directory outside (its refs, objects and
 * configuration), or any `info/grafts` (deprecated, it rewrites the history git shows).
 */
async function outsideReason(
  gitDir: string,
  name: string,
  text: string,
  confines: readonly string[],
): Promise<string | undefined> {
  if (name === 'info/grafts') return 'grafts rewrite the history git shows';
  if (name === 'commondir')
    return (await leadsInside(path.resolve(gitDir, text.trim()), confines))
      ? undefined
      : 'names a git directory outside the workspace';
  const objects = path.join(gitDir, 'objects');
  for (const line of text.split('\n').map((entry) => entry.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const store = line.startsWith('"') ? line.slice(1, -1) : line;
    if (!(await leadsInside(path.resolve(objects, store), confines)))
      return `reads objects from ${store.slice(0, 80)}, outside the workspace`;
  }
  return undefined;
}

/** The files of a git directory that send git to objects or history elsewhere. */
export const gitPointerFiles = ['objects/info/alternates', 'commondir', 'info/grafts'] as const;

/**
 * Renames the files of `gitDir` among `names` (see {@link gitPointerFiles}) that send git outside
 * `confines` (real paths: the workspace, and git directories mounted writable), or that are not a
 * small readable file. Returns what was refused, relative to `base`.
 */
export function refusePointerFiles(
  gitDir: string,
  base: string,
  names: readonly string[],
  confines: readonly string[],
): Promise<string[]> {
  return refuseFiles(gitDir, base, names, (name, text) => outsideReason(gitDir, name, text, confines));
}

/**
 * Renames each file `names` (relative to `gitDir`) that is there and for which `reasonOf` gives a
 * reason, or that is not a small readable file. Returns what was refused, `path (why)` relative to
 * `base`.
 */
async function refuseFiles(
  gitDir: string,
  base: string,
  names: readonly string[],
  reasonOf: (name: string, text: string) => string | undefined | Promise<string | undefined>,
): Promise<string[]> {
  const refused: string[] = [];
  for (const name of names) {
    const file = path.join(gitDir, name);
    if ((await lstat(file).catch(() => undefined)) === undefined) continue;
    const text = await readBoundedText(file, MAX_GIT_TEXT_BYTES);
    const reason = text === undefined ? 'not a readable file' : await reasonOf(name, text);
    if (reason === undefined) continue;
    await moveAside(file);
    refused.push(`${path.relative(base, file)} (${reason})`);
  }
  return refused;
}

/**
 * Renames the configuration files of `gitDir` (`config`, `config.worktree`, or only those in
 * `files`) that hold keys which may run a program, and its hooks folder when it holds a hook that
 * is not a sample (`hooks: false` skips it). Returns what was refused, relative to `base`.
 */
export async function refuseGitDirectory(
  gitDir: string,
  base: string,
  options: { files?: readonly string[]; hooks?: boolean; confines?: readonly string[] } = {},
): Promise<string[]> {
  const refused: string[] = [];
  for (const name of options.files ?? ['config', 'config.worktree']) {
    const file = path.join(gitDir, name);
    const text = await readBoundedText(file, MAX_GIT_TEXT_BYTES);
    if (text === undefined) {
      // Not there: nothing to refuse. There but not a small regular file (a FIFO, a link to a
      // device, a huge file hiding a key): git may still read it, so it goes.
      if ((await lstat(file).catch(() => undefined)) === undefined) continue;
      await moveAside(file);
      refused.push(`${path.relative(base, file)} (not a readable configuration file)`);
      continue;
    }
    const unsafe = unsafeConfigKeys(text);
    if (options.confines !== undefined)
      for (const worktree of configValues(text, 'core', 'worktree'))
        if (!(await leadsInside(path.resolve(gitDir, worktree), options.confines)))
          unsafe.push(`core.worktree outside the workspace`);
    if (unsafe.length === 0) continue;
    await moveAside(file);
    refused.push(`${path.relative(base, file)} (${unsafe.slice(0, 5).join(', ')})`);
  }
  if (options.hooks === false) return refused;
  const hooks = path.join(gitDir, 'hooks');
  const names = await readdir(hooks).catch(() => [] as string[]);
  if (names.some((name) => !name.endsWith('.sample'))) {
    await moveAside(hooks);
    refused.push(`${path.relative(base, hooks)} (hooks)`);
  }
  return refused;
}

/** The merge strategies git has built in: any other it runs as the program `git-merge-<name>`. */
const builtinStrategies = new Set(['ort', 'recursive', 'resolve', 'octopus', 'ours', 'subtree']);

/**
 * Why a paused rebase's or cherry-pick's file `name` (relative to its git directory) holding
 * `text` would run a program at `git rebase --continue` / `git cherry-pick --continue`, or
 * undefined: an `exec` step in its list, or a merge strategy that is not built in.
 */
export function unsafeSequencerReason(name: string, text: string): string | undefined {
  if (name.endsWith('todo')) {
    const exec = text.split('\n').find((line) => /^\s*(?:x|exec)(?:\s|$)/i.test(line));
    return exec === undefined ? undefined : `runs "${exec.trim().slice(0, 80)}"`;
  }
  const strategies = name.endsWith('opts')
    ? [...text.matchAll(/^\s*strategy\s*=\s*"?([^"\n]*?)"?\s*$/gim)].map((match) => match[1] ?? '')
    : [text.trim()];
  const unknown = strategies.find(
    (strategy) => strategy !== '' && !builtinStrategies.has(strategy.toLowerCase()),
  );
  return unknown === undefined ? undefined : `merge strategy "${unknown.slice(0, 80)}" is a program`;
}

/**
 * Renames the files of a paused rebase or cherry-pick in `gitDir` (`names`, relative to it) that
 * would run a program when it is continued (see {@link unsafeSequencerReason}), or that are not
 * a small readable file. Returns what was refused, relative to `base`.
 */
export function refuseSequencerFiles(
  gitDir: string,
  base: string,
  names: readonly string[],
): Promise<string[]> {
  return refuseFiles(gitDir, base, names, unsafeSequencerReason);
}
