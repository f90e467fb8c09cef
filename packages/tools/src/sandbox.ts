import { execFile } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { lstat, mkdir, readdir, readlink, realpath, rm, rmdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { controlFingerprints } from './git-control-fingerprint';
import { refuseGitLeftovers } from './git-leftovers';
import { moveAside, refuseSubmoduleConfigs } from './nested-repositories';
import { openFolderBeneath } from './open-beneath';
import { MAX_GIT_TEXT_BYTES, readBoundedText } from './read-bounded';
import { findExecutable } from './run-process';
import type { WorkspaceBytecode } from './workspace-bytecode';
import { findWorkspaceGitDirectories } from './workspace-git-directories';

/**
 * Whether commands run inside a bubblewrap sandbox:
 * - `'auto'` (default): when `bwrap` is installed and works; otherwise commands run unsandboxed
 *   and the process warns once;
 * - `'required'`: always; a command fails with `ToolError('sandbox-unavailable')` when the
 *   sandbox cannot be used (fail closed);
 * - `'off'`: never.
 */
export type SandboxMode = 'auto' | 'required' | 'off';

/** Sandbox settings of a command runner. */
export interface SandboxOptions {
  /** Default `'auto'`. */
  mode?: SandboxMode;
  /** Let commands reach the network. Default false (a private network namespace: loopback only). */
  network?: boolean;
  /**
   * Paths hidden from commands (an empty folder or file is mounted over each), on top of
   * {@link defaultHiddenPaths}. `~/` is the user's home folder.
   */
  hide?: readonly string[];
  /**
   * More folders of the host commands may read, on top of {@link defaultShownPaths}: the sandbox
   * shows no home folder, `/var` or other data folder of the host (see {@link hostDataFolders})
   * beyond the workspace, its repository, `writable` and the installations of the programs on
   * `PATH`. `~/` is the user's home folder.
   */
  show?: readonly string[];
  /** More folders commands may write, besides the workspace (absolute). */
  writable?: readonly string[];
  /**
   * Folders inside the workspace that commands may read but not write, on top of
   * {@link productStateFolder} (a run journal kept in the workspace: a command could otherwise
   * forge what a resume trusts). Absolute, or relative to the workspace.
   */
  readOnly?: readonly string[];
  /** The bubblewrap program. Default `bwrap` on `PATH` (`/usr/bin/bwrap` on Debian). */
  bubblewrap?: string;
}

/**
 * closedloop's own folder in a workspace (`.closedloop`: run journals, notes): read-only to
 * sandboxed commands, and refused to the file tools.
 */
export const productStateFolder = '.closedloop';

/** Folders made for commands that are running, by absolute path: how many hold each, and what was made. */
const heldFolders = new Map<string, { holders: number; made: Promise<string[]> }>();

/**
 * Makes the folders of `target` from the first missing one down (through descriptors, never
 * following a link: a link on the way, to anywhere, makes nothing); returns those it made,
 * deepest first.
 */
async function makeMissing(root: string, target: string): Promise<string[]> {
  const missing: string[] = [];
  for (let folder = target; folder !== root && isInside(root, folder); folder = path.dirname(folder)) {
    if ((await lstat(folder).catch(() => undefined)) !== undefined) break;
    missing.push(folder);
  }
  if (missing.length === 0) return [];
  const opened = await openFolderBeneath(root, path.relative(root, target), { create: true }).catch(
    () => undefined,
  );
  opened?.close();
  return opened === undefined ? [] : missing;
}

/**
 * Holds {@link productStateFolder} and the `readOnly` folders inside `root` (absolute, or relative
 * to it) as folders while a sandboxed command runs, making those that are missing: the sandbox
 * binds them read-only only when they exist, so a command run before closedloop first wrote there
 * could otherwise create them — forged journals, a `workspace-id` of another workspace, or a
 * symbolic link (`.closedloop -> /etc/cron.d`) that closedloop itself would then write through,
 * outside the sandbox. Something already there is left as it is (the bind then follows it only to
 * a folder inside the workspace). The returned release, called when the command has ended,
 * removes what was made once no other running command holds it and it is still empty (nothing of
 * closedloop's is left in a workspace that had none). Failures to make are ignored: a workspace
 * this process cannot write, a command cannot either.
 */
export async function holdReadOnlyFolders(
  root: string,
  readOnly: readonly string[] = [],
): Promise<() => Promise<void>> {
  const held: string[] = [];
  for (const folder of [productStateFolder, ...readOnly]) {
    const target = path.resolve(root, folder);
    if (target === root || !isInside(root, target)) continue;
    // Claimed before any await: a command starting meanwhile shares this hold, never a second one.
    const hold = heldFolders.get(target) ?? { holders: 0, made: makeMissing(root, target) };
    hold.holders++;
    heldFolders.set(target, hold);
    held.push(target);
    await hold.made;
  }
  return async () => {
    for (const target of held) {
      const hold = heldFolders.get(target);
      if (hold === undefined || --hold.holders > 0) continue;
      heldFolders.delete(target);
      // rmdir removes only an empty folder and never follows a link.
      for (const folder of await hold.made) if ((await rmdir(folder).catch(() => false)) === false) break;
    }
  };
}

/** Credential stores (of the home folder, and root's of the system) that commands never see (when the sandbox is on). */
export const defaultHiddenPaths: readonly string[] = [
  '~/.ssh',
  '~/.aws',
  '~/.azure',
  '~/.gnupg',
  '~/.kube',
  '~/.docker',
  '~/.config/gcloud',
  '~/.config/gh',
  '~/.config/hub',
  '~/.password-store',
  '~/.terraform.d',
  '~/.npmrc',
  '~/.yarnrc.yml',
  '~/.pypirc',
  '~/.netrc',
  '~/.git-credentials',
  '~/.config/git/credentials',
  '~/.vault-token',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.m2/settings.xml',
  '~/.gradle/gradle.properties',
  '~/.composer/auth.json',
  '~/.config/composer/auth.json',
  '~/.bundle/config',
  '~/.config/configstore',
  '~/.pgpass',
  '~/.my.cnf',
  '~/.s3cfg',
  '~/.boto',
  '~/.oci',
  '~/.config/doctl',
  '~/.fly',
  '~/.huggingface',
  '~/.cache/huggingface/token',
  '~/.config/op',
  '~/.local/share/keyrings',
  '~/.config/rclone',
  '~/.pulumi',
  '~/.wrangler',
  '~/.config/.wrangler',
  '~/.config/netlify',
  '~/.local/share/com.vercel.cli',
  '~/.terraformrc',
  '~/.databrickscfg',
  '~/.config/ngrok',
  // Coding assistants' sign-ins (an agent's own key among them).
  '~/.claude',
  '~/.claude.json',
  '~/.codex',
  '~/.gemini',
  '~/.config/github-copilot',
  // Shells' startup files, where tokens are often exported (`export OPENAI_API_KEY=…`).
  '~/.bashrc',
  '~/.bash_profile',
  '~/.bash_login',
  '~/.profile',
  '~/.zshrc',
  '~/.zshenv',
  '~/.zprofile',
  '~/.config/fish',
  // Browsers' profiles (cookies, saved passwords) and shells' histories (secrets typed in them).
  '~/.mozilla',
  '~/.config/google-chrome',
  '~/.config/chromium',
  '~/.bash_history',
  '~/.zsh_history',
  '~/.python_history',
  '~/.node_repl_history',
  '~/.psql_history',
  '~/.mysql_history',
  // Readable only by root, who owns them: an agent running as root (a container, CI) would
  // otherwise show its commands the password hashes and the host's SSH keys.
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
];

/**
 * Toolchains kept in the home folder that sandboxed commands still see, read-only (where they
 * exist): version managers' installations and the package caches their programs run from
 * (`rustfmt` is rustup's proxy for a toolchain in `~/.rustup`; corepack's `pnpm` lives in
 * `~/.cache/node`). Credential stores in them stay hidden ({@link defaultHiddenPaths}).
 */
export const defaultShownPaths: readonly string[] = [
  '~/.rustup',
  '~/.cargo',
  '~/.nvm',
  '~/.volta',
  '~/.fnm',
  '~/.local/share/fnm',
  '~/.bun',
  '~/.deno',
  '~/.pyenv',
  '~/.rbenv',
  '~/.sdkman',
  '~/go',
  '~/.local/bin',
  '~/.local/lib',
  '~/.local/share/pnpm',
  '~/.npm',
  '~/.cache/node',
  '~/.cache/ms-playwright',
];

/** The outcome of probing bubblewrap. */
export type SandboxProbe =
  | {
      available: true;
      executable: string;
      /** bubblewrap takes `--size` for a tmpfs (0.8 and later): the sandbox's `/tmp` is bounded. */
      tmpfsSize?: boolean;
    }
  | { available: false; reason: string };

const probes = new Map<string, Promise<SandboxProbe>>();
const warned = new Set<string>();

/** The bubblewrap arguments of the probe: the namespaces and mounts every command needs. */
export const probeArguments: readonly string[] = [
  '--ro-bind',
  '/',
  '/',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--unshare-pid',
  '--unshare-net',
  '--die-with-parent',
  '--new-session',
  '--cap-drop',
  'ALL',
];

async function findOnPath(program: string): Promise<string | undefined> {
  if (path.isAbsolute(program)) return program;
  // Debian's own folders too, when the agent's PATH is minimal.
  return findExecutable(program, {
    pathVariable: `${process.env.PATH ?? ''}${path.delimiter}/usr/bin:/bin:/usr/local/bin`,
  });
}

/**
 * Checks once per process (per program) that bubblewrap is installed and can create the
 * namespaces the runner uses (some containers forbid them).
 */
export function probeSandbox(bubblewrap = 'bwrap'): Promise<SandboxProbe> {
  let probe = probes.get(bubblewrap);
  if (probe === undefined) {
    probe = (async (): Promise<SandboxProbe> => {
      if (process.platform !== 'linux')
        return { available: false, reason: `bubblewrap needs Linux (this is ${process.platform})` };
      const executable = await findOnPath(bubblewrap);
      if (executable === undefined)
        return {
          available: false,
          reason: 'bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)',
        };
      return new Promise<SandboxProbe>((resolve) => {
        execFile(
          executable,
          [...probeArguments, '--', 'true'],
          { timeout: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
          (error, _stdout, stderr) => {
            if (error) {
              const why = String(stderr || error.message)
                .trim()
                .split('\n')[0];
              resolve({ available: false, reason: `bubblewrap cannot create a sandbox here: ${why}` });
            } else {
              // Is `--size` known (bubblewrap 0.8)? Without it a tmpfs is only bounded by memory.
              execFile(
                executable,
                [...probeArguments, '--size', '65536', '--tmpfs', '/tmp', '--', 'true'],
                { timeout: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
                (sizeError) => resolve({ available: true, executable, tmpfsSize: sizeError === null }),
              );
            }
          },
        );
      });
    })();
    probes.set(bubblewrap, probe);
  }
  return probe;
}

/** Emits the "running without a sandbox" warning once per process (and reason). */
export function warnNoSandbox(reason: string): void {
  if (warned.has(reason)) return;
  warned.add(reason);
  process.emitWarning(
    `closedloop runs commands WITHOUT a sandbox: ${reason}. Commands can read and write outside the workspace. Install bubblewrap, or set sandbox: 'off' to silence this warning.`,
    { code: 'CLOSEDLOOP_NO_SANDBOX' },
  );
}

function expandHome(target: string): string {
  if (target === '~') return os.homedir();
  if (target.startsWith('~/')) return path.join(os.homedir(), target.slice(2));
  return target;
}

async function kindOf(target: string): Promise<'file' | 'directory' | undefined> {
  try {
    const stats = await lstat(target);
    if (stats.isSymbolicLink()) {
      const real = await stat(target);
      return real.isDirectory() ? 'directory' : 'file';
    }
    return stats.isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The git repository the workspace is in: its top folder and git directories (the `.git`
 * folder, or for a worktree its own git dir and the common one).
 */
export async function findRepository(
  root: string,
): Promise<{ top: string; gitDirs: string[]; gitFile?: string } | undefined> {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const kind = await kindOf(dotGit);
    if (kind === 'directory') return { top: dir, gitDirs: [dotGit] };
    if (kind === 'file') {
      try {
        const text = await readBoundedText(dotGit, MAX_GIT_TEXT_BYTES);
        const pointer = text === undefined ? undefined : /^gitdir:\s*(.+)$/m.exec(text)?.[1]?.trim();
        if (pointer === undefined) return undefined;
        const gitDir = path.resolve(dir, pointer);
        const gitDirs = [gitDir];
        const common = await readBoundedText(path.join(gitDir, 'commondir'), MAX_GIT_TEXT_BYTES);
        if (common !== undefined) gitDirs.push(path.resolve(gitDir, common.trim()));
        return { top: dir, gitDirs, gitFile: dotGit };
      } catch {
        return undefined;
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The real path of a git directory of the workspace's repository that the sandbox may mount
 * writable: inside the workspace, or elsewhere (a linked worktree's own and common git
 * directories) when it is a git directory (`HEAD`, `objects`, `refs`). Undefined otherwise.
 */
async function bindableGitDir(root: string, gitDir: string): Promise<string | undefined> {
  const real = await realpath(gitDir).catch(() => undefined);
  if (real === undefined) return undefined;
  if (isInside(root, real)) return real;
  const [head, objects, refs] = await Promise.all(
    ['HEAD', 'objects', 'refs'].map((name) => lstat(path.join(real, name)).catch(() => undefined)),
  );
  return head?.isFile() && objects?.isDirectory() && refs?.isDirectory() ? real : undefined;
}

/** The real path of `target`, or `undefined`. */
const realPathOf = (target: string) => realpath(target).catch(() => undefined);

/**
 * The git directories of the workspace's repository the sandbox mounts writable (real paths, see
 * {@link bindableGitDir}). One outside the workspace is mounted only when it shows it is this work
 * tree's: a `.git` file, link or `commondir` in the workspace may have been written a moment ago
 * by a command still running (steps run concurrently) — its pointer is moved aside when it ends,
 * but a command started meanwhile would get another repository of the host mounted writable. So,
 * when the `.git` entry is in the workspace, its git directory outside must point back at it (a
 * linked worktree's `gitdir` file names this `.git`, an absorbed submodule's `core.worktree` names
 * this folder), and a common directory outside must list that git directory among its
 * `worktrees`. A git directory a `.git` entry above the workspace names (the workspace is a folder
 * of a larger repository) is mounted as before: no command writes there.
 */
async function bindableGitDirs(
  root: string,
  repository: { top: string; gitDirs: string[] },
): Promise<string[]> {
  const gitDirs: string[] = [];
  const [ownNamed, ...others] = repository.gitDirs;
  const own = ownNamed === undefined ? undefined : await realPathOf(ownNamed);
  if (own === undefined) return gitDirs;
  if (!isInside(root, own) && isInside(root, repository.top)) {
    const dotGit = await realPathOf(path.join(repository.top, '.git'));
    const top = await realPathOf(repository.top);
    const back = await readBoundedText(path.join(own, 'gitdir'), MAX_GIT_TEXT_BYTES);
    const config = (await readBoundedText(path.join(own, 'config'), MAX_GIT_TEXT_BYTES)) ?? '';
    const worktree = /^\s*worktree\s*=\s*"?([^"\n]*?)"?\s*$/im.exec(config)?.[1];
    const pointsBack =
      (back !== undefined &&
        dotGit !== undefined &&
        (await realPathOf(path.resolve(own, back.trim()))) === dotGit) ||
      (worktree !== undefined &&
        top !== undefined &&
        (await realPathOf(path.resolve(own, worktree))) === top);
    if (!pointsBack) return gitDirs;
  }
  // Only a git directory (by its real path) is made writable: a `.git` file, link or
  // `commondir` a command wrote could otherwise name any folder (`gitdir: /etc`).
  const ownGitDir = await bindableGitDir(root, own);
  if (ownGitDir !== undefined) gitDirs.push(ownGitDir);
  for (const named of others) {
    const gitDir = await bindableGitDir(root, named);
    if (gitDir === undefined || gitDirs.includes(gitDir)) continue;
    // A common directory outside lists this work tree's git directory among its linked worktrees.
    if (
      !isInside(root, gitDir) &&
      (await realPathOf(path.join(gitDir, 'worktrees', path.basename(own)))) !== own
    )
      continue;
    gitDirs.push(gitDir);
  }
  return gitDirs;
}

/**
 * Where a repository's git directories are: the `.git` entry (what a link or `gitdir:` file names)
 * and each git directory's `commondir`.
 */
async function gitPointers(root: string): Promise<Map<string, string>> {
  const pointers = new Map<string, string>();
  const repository = await findRepository(root);
  if (repository === undefined) return pointers;
  const dotGit = path.join(repository.top, '.git');
  pointers.set(dotGit, (await realpath(dotGit).catch(() => undefined)) ?? '');
  if (repository.gitFile !== undefined)
    pointers.set(dotGit, ((await readBoundedText(repository.gitFile, MAX_GIT_TEXT_BYTES)) ?? '').trim());
  for (const gitDir of repository.gitDirs) {
    const commondir = path.join(gitDir, 'commondir');
    const text = await readBoundedText(commondir, MAX_GIT_TEXT_BYTES);
    if (text !== undefined) pointers.set(commondir, text.trim());
  }
  return pointers;
}

/**
 * The files and folders of a git directory that decide what git runs: its configuration, hooks,
 * and `commondir` (which points git at another directory's configuration).
 */
const gitControlFiles = ['config', 'config.worktree', 'hooks', 'commondir', 'modules'] as const;

/** Folders of a git directory mounted empty and read-only when they are missing. */
const gitControlFolders: ReadonlySet<string> = new Set(['hooks', 'modules']);

interface HiddenMount {
  target: string;
  args: string[];
}

/** What is at `target` now, following a link (synchronous: a few dozen of these cost < 1 ms). */
function kindOfNow(target: string): 'file' | 'directory' | undefined {
  // A dangling link: nothing to hide (and nothing to mount onto).
  try {
    const stats = statSync(target, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    return stats.isDirectory() ? 'directory' : 'file';
  } catch {
    // Not reachable by this user: not by its commands either.
    return undefined;
  }
}

/** The real path of `target` now, or undefined (synchronous, like {@link kindOfNow}). */
function realPathNow(target: string): string | undefined {
  try {
    return realpathSync.native(target);
  } catch {
    return undefined;
  }
}

/**
 * The mounts that hide credential stores: an empty tmpfs over a folder, `/dev/null` over a file.
 * Looked up for every command (never cached: a credential file created a moment ago is hidden
 * too).
 */
async function hiddenMounts(extra: readonly string[]): Promise<HiddenMount[]> {
  const out: HiddenMount[] = [];
  const seen = new Set<string>();
  for (const entry of [...defaultHiddenPaths, ...privateSystemFiles(), ...extra]) {
    const target = path.resolve(expandHome(entry));
    if (seen.has(target)) continue;
    seen.add(target);
    const kind = kindOfNow(target);
    if (kind === 'directory') out.push({ target, args: ['--tmpfs', target] });
    else if (kind === 'file') out.push({ target, args: ['--ro-bind', '/dev/null', target] });
  }
  return out;
}

/** The folders of the system walked for {@link privateSystemFiles}. */
const PRIVATE_FILE_FOLDERS = ['/etc'];

/** How many entries {@link privateSystemFiles} looks at, at most (`/etc` has ~1 000-3 000). */
const MAX_SYSTEM_ENTRIES = 20_000;

/**
 * The files and folders of `/etc` that others may not read but this user may (`/etc/shadow-`,
 * `/etc/ssl/private`, a WireGuard key): meant for their owner and group only. A command started by
 * root is their owner — dropping capabilities does not change that — so they are hidden like
 * credential stores (a folder hidden is not walked into: what is in it is hidden with it). Walked
 * synchronously (~3-10 ms for 1 200 entries), the list reused for a second.
 */
function privateSystemFiles(): string[] {
  const now = Date.now();
  if (privateFiles !== undefined && now - privateFiles.at < PRIVATE_FILES_TTL_MS) return privateFiles.paths;
  const out: string[] = [];
  let seen = 0;
  const uid = process.getuid?.();
  const groups = new Set(process.getgroups?.() ?? []);
  const walk = (folder: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (++seen > MAX_SYSTEM_ENTRIES) return;
      const target = path.join(folder, name);
      const stats = lstatSync(target, { throwIfNoEntry: false });
      if (stats === undefined || stats.isSymbolicLink()) continue;
      // Others may not read it (a folder: list or enter it), but this user may, as its owner or
      // by its group (hiding what commands cannot read anyway would only cost mounts).
      const bits = stats.isDirectory() ? 0o5 : 0o4;
      const mine =
        (stats.uid === uid && ((stats.mode >> 6) & bits) !== 0) ||
        (groups.has(stats.gid) && ((stats.mode >> 3) & bits) !== 0);
      if ((stats.mode & bits) !== bits && mine) out.push(target);
      else if (stats.isDirectory() && depth < 16) walk(target, depth + 1);
    }
  };
  for (const folder of PRIVATE_FILE_FOLDERS) walk(folder, 0);
  privateFiles = { at: now, paths: out };
  return out;
}

/**
 * How long the list of {@link privateSystemFiles} is reused (the walk costs ~10 ms under load; the
 * verifier runs commands in bursts). Only root and the system's packages write `/etc`, never a
 * command: a private file made there within that time before a command is the only one missed.
 */
const PRIVATE_FILES_TTL_MS = 1000;

let privateFiles: { at: number; paths: string[] } | undefined;

let runFolderList: Promise<string[]> | undefined;

let emptyFolderPath: Promise<string | undefined> | undefined;

/**
 * An empty folder of this user, read-only (`<tmpdir>/closedloop-empty-<uid>`, made once, kept):
 * bound over a replaced folder that shows nothing again, cheaper than a tmpfs. Undefined when it
 * cannot be made, or what is there is not an empty folder of this user's (then a tmpfs is used).
 */
function emptyFolder(): Promise<string | undefined> {
  emptyFolderPath ??= (async () => {
    const folder = path.join(os.tmpdir(), `closedloop-empty-${process.getuid?.() ?? 'user'}`);
    await mkdir(folder, { mode: 0o555 }).catch(() => undefined);
    const stats = await lstat(folder).catch(() => undefined);
    const entries = await readdir(folder).catch(() => ['unreadable']);
    return stats?.isDirectory() &&
      stats.uid === process.getuid?.() &&
      (stats.mode & 0o222) === 0 &&
      entries.length === 0
      ? folder
      : undefined;
  })();
  return emptyFolderPath;
}

/** `/run` and `/var/run` when they are real folders (`/var/run` is usually a link to `/run`). */
function runFolders(): Promise<string[]> {
  runFolderList ??= (async () => {
    const out: string[] = [];
    for (const folder of ['/run', '/var/run']) {
      const stats = await lstat(folder).catch(() => undefined);
      if (stats?.isDirectory()) out.push(folder);
    }
    return out;
  })();
  return runFolderList;
}

/** Folders the sandbox replaces by empty ones, besides {@link hostDataFolders} (shown empty): sockets there are out of reach already. */
const REPLACED_FOLDERS = ['/run', '/var/run', '/tmp', '/var/tmp'];

/**
 * The top-level folders of the system the sandbox shows as they are (read-only): installed
 * programs, their libraries and the system's configuration, which only root writes and where no
 * service binds a socket or makes a FIFO. Every other top-level folder (`/home`, `/root`, `/var`,
 * `/srv`, `/mnt`, `/media`, a `/work` or `/data` of the machine's own) is shown empty.
 */
export const systemFolders: ReadonlySet<string> = new Set([
  'bin',
  'boot',
  'etc',
  'gnu',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'nix',
  'opt',
  'sbin',
  'snap',
  'usr',
  // Mounted fresh (`/dev`, `/proc`), replaced (`/tmp`, `/run`), or the kernel's (`/sys`).
  'dev',
  'proc',
  'run',
  'sys',
  'tmp',
]);

/**
 * The top-level folders outside {@link systemFolders}, which the sandbox shows empty (folders made
 * in its own root) and again only in part (the workspace, its repository, the folders of the programs it runs):
 * the home folders, `/var` and the like are where users and services bind unix sockets and make
 * FIFOs. A read-only mount stops neither `connect()` nor opening a FIFO for writing, and one bound
 * after the command started is in no list made before: only a folder the sandbox does not show
 * keeps it out of reach. Listed again for a command when `/` changed (one `lstat`), or a second after.
 */
export async function hostDataFolders(): Promise<string[]> {
  return [...(await hostFolders()).folders];
}

/**
 * What identifies the entry at `target` now (device, inode, change times; `-` when there is none),
 * not following a last link: a folder's changes when an entry is added, removed or renamed in it.
 */
function stampOf(target: string): string {
  try {
    const stats = lstatSync(target, { throwIfNoEntry: false, bigint: true });
    return stats === undefined ? '-' : `${stats.dev}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
  } catch {
    return '?';
  }
}

/** What the sandbox shows of `/` (see {@link hostFolders}). */
interface HostFolders {
  /** {@link hostDataFolders}. */
  folders: string[];
  /** The links each data folder holds into `/run`, as `--symlink` arguments. */
  runLinks: Map<string, string[]>;
  /**
   * The arguments that show the rest of `/`, read-only: the {@link systemFolders} (but those mounted
   * fresh) and the files bound, the links made again (`/bin` → `usr/bin`).
   */
  system: string[];
}

/** The system folders mounted fresh for each command, not bound from the host. */
const FRESH_FOLDERS: ReadonlySet<string> = new Set(['dev', 'proc', 'run', 'tmp']);

/**
 * How long {@link hostFolders} is reused while `/` is unchanged (only its links into `/run` can be
 * older: a link missed there only leaves an empty sandbox without it).
 */
const HOST_FOLDERS_TTL_MS = 1000;

let hostFolderList: (HostFolders & { at: number; rootStamp: string }) | undefined;

/**
 * {@link hostDataFolders} and the links each holds into `/run` (`/var/run`, `/var/lock`), listed
 * again when `/` changed (a folder made, removed or renamed there; one `lstat` per command) or
 * after {@link HOST_FOLDERS_TTL_MS}.
 */
async function hostFolders(): Promise<HostFolders> {
  const now = Date.now();
  // Stamped before it is listed: a change while listing is listed again next time.
  const rootStamp = stampOf('/');
  if (hostFolderList?.rootStamp === rootStamp && now - hostFolderList.at < HOST_FOLDERS_TTL_MS)
    return hostFolderList;
  const entries = await readdir('/', { withFileTypes: true }).catch(() => []);
  const folders: string[] = [];
  const system: string[] = [];
  for (const entry of entries) {
    const target = `/${entry.name}`;
    if (entry.isSymbolicLink()) {
      const to = await readlink(target).catch(() => undefined);
      if (to !== undefined) system.push('--symlink', to, target);
    } else if (entry.isDirectory()) {
      if (!systemFolders.has(entry.name)) folders.push(target);
      else if (!FRESH_FOLDERS.has(entry.name)) system.push('--ro-bind-try', target, target);
    } else if (entry.isFile()) system.push('--ro-bind-try', target, target);
    // A socket or a FIFO at `/` is not shown.
  }
  const run = await runFolders();
  const runLinks = new Map<string, string[]>();
  for (const folder of folders) {
    const links: string[] = [];
    for (const link of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
      if (!link.isSymbolicLink()) continue;
      const entry = path.join(folder, link.name);
      const target = await readlink(entry).catch(() => undefined);
      if (target !== undefined && run.some((top) => isInside(top, path.resolve(folder, target))))
        links.push('--symlink', target, entry);
    }
    runLinks.set(folder, links);
  }
  hostFolderList = { at: now, rootStamp, folders, runLinks, system };
  return hostFolderList;
}

/**
 * The paths of the unix sockets bound in the file system by processes of this network namespace
 * (`/proc/net/unix`: the machine's services, the user's agents and desktop), and of the named
 * pipes processes hold open, that a sandboxed command would still see: outside the folders it
 * gets empty, or inside the folders it gets read-write (the workspace under `/tmp`, say). A
 * read-only mount stops neither `connect()` nor opening a FIFO for writing.
 */
function visibleEndpoints(
  visible: readonly string[],
  hidden: readonly string[],
  replaced: readonly string[],
): string[] {
  let table = '';
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    // no /proc/net/unix: no sockets to see
  }
  const out = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line.
    const match = /^\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(\/.*)$/.exec(line);
    const socket = match?.[1];
    if (socket === undefined) continue;
    const hiddenAlready =
      replaced.some((folder) => isInside(folder, socket)) &&
      !visible.some((folder) => isInside(folder, socket));
    if (!hiddenAlready && !hidden.some((folder) => isInside(folder, socket))) out.add(socket);
    if (out.size >= 1000) break;
  }
  const found: string[] = [];
  for (const socket of out) {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(socket, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (stats?.isSocket()) found.push(socket);
  }
  for (const fifo of heldFifos()) {
    const hiddenAlready =
      replaced.some((folder) => isInside(folder, fifo)) && !visible.some((folder) => isInside(folder, fifo));
    if (!hiddenAlready && !hidden.some((folder) => isInside(folder, fifo))) found.push(fifo);
    if (found.length >= 2000) break;
  }
  return found;
}

/** `open` (path in the first argument) and `openat`/`openat2` (in the second) per architecture. */
const OPEN_SYSCALLS: Readonly<Record<string, { open?: number; openat: number[] }>> = {
  x64: { open: 2, openat: [257, 437] },
  arm64: { openat: [56, 437] },
};

/**
 * The paths of the FIFOs that processes of the machine are waiting in `open()` to be the other end
 * of (`wait_for_partner`: a `while read line < fifo` loop, `cat fifo`): held by nobody yet, they
 * are not in `/proc/<pid>/fd`, and a command that opened one for writing would reach the reader at
 * once. The path is read where the process passed it (`/proc/<pid>/syscall`, `/proc/<pid>/mem`);
 * only the main thread of each process is looked at (one read each: a thread of a larger program
 * waiting so is not seen), and only processes this user may trace (root: all).
 */
function fifosWaitedFor(pids: readonly string[]): string[] {
  const calls = OPEN_SYSCALLS[process.arch];
  if (calls === undefined) return [];
  const out: string[] = [];
  for (const pid of pids) {
    if (!/^\d+$/.test(pid) || pid === String(process.pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/wchan`, 'utf8') !== 'wait_for_partner') continue;
      const [number, ...args] = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ');
      const call = Number(number);
      const at = calls.openat.includes(call);
      if (!at && call !== calls.open) continue;
      const pointer = args[at ? 1 : 0];
      if (pointer === undefined) continue;
      const name = readCString(pid, BigInt(pointer));
      if (name === undefined || name === '') continue;
      let base: string;
      if (path.isAbsolute(name)) base = '/';
      else {
        // The directory descriptor, as a signed 32-bit number (AT_FDCWD is -100).
        const dirfd = at ? Number(BigInt.asIntN(32, BigInt(args[0] ?? '0'))) : -100;
        base = readlinkSync(dirfd === -100 ? `/proc/${pid}/cwd` : `/proc/${pid}/fd/${dirfd}`);
      }
      out.push(path.resolve(base, name));
    } catch {
      // gone, or not ours to trace
    }
    if (out.length >= 1000) return out;
  }
  return out;
}

/** The NUL-terminated string at `address` in the memory of process `pid` (at most 4 KiB). */
function readCString(pid: string, address: bigint): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r');
    // Up to the end of the page, then the next one: the string may end before an unmapped page.
    const firstPage = 4096 - Number(address % 4096n);
    const buffer = Buffer.alloc(4096);
    let length = readSync(fd, buffer, 0, firstPage, address);
    if (!buffer.subarray(0, length).includes(0) && length === firstPage) {
      try {
        length += readSync(fd, buffer, length, 4096 - length, address + BigInt(length));
      } catch {
        // the next page is not mapped
      }
    }
    const end = buffer.subarray(0, length).indexOf(0);
    return end < 0 ? undefined : buffer.subarray(0, end).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** How many open files of other processes {@link heldFifos} looks at, at most. */
const MAX_SCANNED_FILES = 100_000;

/**
 * The named pipes (FIFOs) that processes of the machine hold open now (`/proc/<pid>/fd`: a service
 * reading commands from one, or writing to one), or wait in `open()` for (see {@link fifosWaitedFor}). A read-only mount does not stop opening a FIFO
 * for writing: a command could feed a service running outside the sandbox. Only the processes
 * this user may look into are seen (root: all); those are also the only FIFOs it could open.
 * Synchronous: hundreds of tiny reads cost less without the thread pool (~10 ms for 800 files).
 */
function heldFifos(): string[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return [];
  }
  const now = Date.now();
  if (openFiles === undefined || now - openFiles.at >= OPEN_FILES_TTL_MS) {
    // Only the FIFOs among them are kept (a file held open is held as the file it was: one made at
    // its path since is held by nobody), and looked at again for each command (gone, or still there).
    const held = [...new Set([...openFilePaths(pids), ...fifosWaitedFor(pids)])];
    openFiles = { at: now, paths: held.filter(isFifoNow) };
  }
  const found: string[] = [];
  for (const target of openFiles.paths) if (isFifoNow(target)) found.push(target);
  return found;
}

/** Whether `target` is a named pipe now (not following a link). */
function isFifoNow(target: string): boolean {
  try {
    return lstatSync(target, { throwIfNoEntry: false })?.isFIFO() === true;
  } catch {
    return false; // not ours to see
  }
}

/**
 * How long the list of files processes hold open or wait for is reused (one `readlink` per open
 * file of the machine: ~10 ms for 1 000 files on an idle machine, ten times that under load; the
 * verifier runs commands in bursts). A FIFO first held within that time is no different from one
 * held after the command started: out of reach of a mount made before.
 */
const OPEN_FILES_TTL_MS = 1000;

/** The FIFOs processes held open or waited for when last listed. */
let openFiles: { at: number; paths: string[] } | undefined;

/** The absolute paths (outside `/dev` and `/proc`) of the files processes of the machine hold open. */
function openFilePaths(pids: readonly string[]): string[] {
  const paths = new Set<string>();
  let scanned = 0;
  for (const pid of pids) {
    if (scanned > MAX_SCANNED_FILES) break;
    if (!/^\d+$/.test(pid) || pid === String(process.pid)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      if (++scanned > MAX_SCANNED_FILES) break;
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      // Anonymous pipes, sockets and the like read `pipe:[…]`; devices and /proc are not FIFOs.
      if (target.startsWith('/') && !target.startsWith('/dev/') && !target.startsWith('/proc/'))
        paths.add(target);
    }
  }
  return [...paths];
}

/** Read-only binds over the writable kernel interfaces of a fresh `/proc`. */
const kernelSettingsReadOnly = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus'].flatMap(
  (target) => ['--ro-bind-try', target, target],
);

/** What {@link bubblewrapArguments} needs. */
export interface BubblewrapLayout {
  /** The workspace (absolute, real): mounted read-write. */
  root: string;
  /** Where the command starts (inside the root). */
  cwd: string;
  network: boolean;
  hide: readonly string[];
  writable: readonly string[];
  /** Folders inside the workspace mounted read-only (see {@link SandboxOptions.readOnly}). */
  readOnly?: readonly string[];
  /** Folders of the host shown read-only, on top of {@link defaultShownPaths} (see {@link SandboxOptions.show}). */
  show?: readonly string[];
  /** The program's resolved path: when it lives under a temporary folder, it stays visible. */
  executable?: string;
  /**
   * The command's `PATH`: its folders outside the system folders (a Node.js installed by nvm in the
   * home folder) stay visible, read-only, with their installation (`bin/..`).
   */
  searchPath?: string;
  /**
   * The size of the writable `/tmp`, `/var/tmp` and `/dev/shm` (each) in bytes; the other tmpfs mounts
   * (`/run`, hidden folders) get {@link smallTmpfsBytes}. A tmpfs is memory: unbounded, a command
   * could fill it past any memory limit. Undefined: no `--size` (bubblewrap before 0.8).
   */
  tmpfsBytes?: number;
  /**
   * Python bytecode in the workspace the command must not see: an empty tmpfs of its own is
   * mounted over each `__pycache__`, `/dev/null` over each sourceless `.pyc` (Python then finds
   * no bytecode file there). See `CommandRunOptions.ignoreWorkspaceBytecode`.
   */
  bytecode?: WorkspaceBytecode;
}

/** The size of the tmpfs mounts nothing needs to write much in: `/run`, hidden folders. */
export const smallTmpfsBytes = 16 * 1024 * 1024;

const TEMP_FOLDERS = ['/tmp', '/var/tmp'];

/** The tmpfs mounts commands write freely: `/tmp`, `/var/tmp` and shared memory. */
const LARGE_TMPFS = [...TEMP_FOLDERS, '/dev/shm'];

/**
 * The folders outside the workspace, in folders the sandbox replaces (`/tmp`, `/var/tmp`, the home
 * folders, `/var`…), that stay visible read-only: the `node_modules` folders the workspace's
 * `node_modules` entries (and `.bin` links) and the program itself resolve into (the outermost
 * `node_modules` on each real path, so a package's own dependencies resolve too), and the
 * installation of the program and of each folder of `PATH` (`prefix` of `prefix/bin`, else the
 * folder itself).
 */
async function linkedHostFolders(
  root: string,
  replaced: readonly string[],
  executable: string | undefined,
  searchPath: string | undefined,
): Promise<string[]> {
  const modules = path.join(root, 'node_modules');
  const found = new Set<string>();
  // `prefix` of `prefix/bin`, unless that is a whole replaced folder (`~/bin`: the bin folder alone).
  const installation = (folder: string) =>
    path.basename(folder) === 'bin' && !replaced.includes(path.dirname(folder))
      ? path.dirname(folder)
      : folder;
  const consider = async (entry: string, kind: 'package' | 'program' | 'path-folder' = 'package') => {
    let real: string;
    try {
      real = await realpath(entry);
    } catch {
      return;
    }
    if (isInside(root, real) || !replaced.some((folder) => isInside(folder, real))) return;
    const parts = real.split(path.sep);
    const index = parts.indexOf('node_modules');
    const folder =
      index > 0
        ? parts.slice(0, index + 1).join(path.sep)
        : kind === 'program'
          ? installation(path.dirname(real))
          : kind === 'path-folder'
            ? installation(real)
            : undefined;
    // Never a whole replaced folder (`~/bin` on PATH would show all of `/home` or `/root`) nor one
    // holding the workspace (a `bin` folder of it on PATH: the workspace is bound on its own).
    if (folder === undefined || replaced.some((top) => isInside(folder, top)) || isInside(folder, root))
      return;
    found.add(folder);
  };
  // A program found on the trusted PATH (a Node.js unpacked under /tmp in CI, or installed in the
  // home folder) shows its installation; one the workspace links to from its `node_modules/.bin`
  // only its `node_modules`, like any package: a link to any executable under /tmp would
  // otherwise show that executable's whole folder (another workspace).
  if (executable !== undefined)
    await consider(executable, isInside(root, executable) ? 'package' : 'program');
  for (const folder of (searchPath ?? '').split(path.delimiter).slice(0, 64))
    if (path.isAbsolute(folder)) await consider(folder, 'path-folder');
  const list = async (folder: string): Promise<string[]> => {
    try {
      return await readdir(folder);
    } catch {
      return [];
    }
  };
  const names = await list(modules);
  if (names.length <= 2000) {
    for (const name of names) {
      if (name.startsWith('@')) {
        for (const scoped of (await list(path.join(modules, name))).slice(0, 500))
          await consider(path.join(modules, name, scoped));
      } else await consider(path.join(modules, name));
    }
    for (const bin of (await list(path.join(modules, '.bin'))).slice(0, 2000))
      await consider(path.join(modules, '.bin', bin));
  }
  return [...found].filter(
    (folder) => ![...found].some((other) => other !== folder && isInside(other, folder)),
  );
}

/**
 * How long a list of {@link linkedHostFolders} is reused while nothing it was made from changed
 * (the walk of `node_modules` is one `realpath` per package).
 */
const LINKED_FOLDERS_TTL_MS = 1000;

/** The lists of {@link linkedHostFolders} kept (one per workspace, PATH and program). */
const MAX_LINKED_LISTS = 32;

const linkedFolderLists = new Map<
  string,
  { at: number; watched: string[]; stamps: string; folders: string[] }
>();

/**
 * {@link linkedHostFolders}, reused for {@link LINKED_FOLDERS_TTL_MS} while the entries it was made
 * from are unchanged (one `lstat` each, see {@link stampOf}): the workspace's `node_modules`, its
 * `.bin` and scope folders (a package linked, removed or re-linked changes them), the program and
 * the folders of `PATH`. A stale list only shows what the workspace linked to a moment before.
 */
async function linkedHostFoldersCached(
  root: string,
  replaced: readonly string[],
  executable: string | undefined,
  searchPath: string | undefined,
): Promise<string[]> {
  const key = JSON.stringify([root, replaced, executable ?? null, searchPath ?? null]);
  const now = Date.now();
  const kept = linkedFolderLists.get(key);
  if (kept !== undefined && now - kept.at < LINKED_FOLDERS_TTL_MS && stampsOf(kept.watched) === kept.stamps)
    return kept.folders;
  const modules = path.join(root, 'node_modules');
  let scopes: string[] = [];
  try {
    scopes = readdirSync(modules)
      .filter((name) => name.startsWith('@'))
      .slice(0, 500)
      .map((name) => path.join(modules, name));
  } catch {
    // no node_modules
  }
  const watched = [
    modules,
    path.join(modules, '.bin'),
    ...scopes,
    ...(executable !== undefined ? [executable] : []),
    ...(searchPath ?? '')
      .split(path.delimiter)
      .slice(0, 64)
      .filter((folder) => path.isAbsolute(folder)),
  ];
  // Stamped before the walk: a change during it is seen next time.
  const stamps = stampsOf(watched);
  const folders = await linkedHostFolders(root, replaced, executable, searchPath);
  linkedFolderLists.delete(key);
  linkedFolderLists.set(key, { at: now, watched, stamps, folders });
  if (linkedFolderLists.size > MAX_LINKED_LISTS)
    linkedFolderLists.delete(linkedFolderLists.keys().next().value as string);
  return folders;
}

function stampsOf(targets: readonly string[]): string {
  return targets.map(stampOf).join('|');
}

/**
 * The bubblewrap arguments (before `--`) for one command: the whole system read-only, a private
 * `/proc`, `/dev`, `/tmp` and `/var/tmp`, an empty `/run` (no sockets of the machine's services), the
 * sockets bound elsewhere covered, the workspace (and `writable`) read-write, credential
 * stores hidden, the workspace repository's `config` and `hooks` read-only (nothing the agent
 * runs can plant a hook or an fsmonitor that fires later outside the sandbox), new pid, IPC, UTS
 * and (unless `network`) network namespaces, a new session, and death with the parent.
 */
export async function bubblewrapArguments(layout: BubblewrapLayout): Promise<string[]> {
  /** A tmpfs at `target`, bounded when bubblewrap can (`/tmp`, `/var/tmp`, `/dev/shm` large, the others small). */
  const tmpfs = (target: string): string[] => {
    if (layout.tmpfsBytes === undefined) return ['--tmpfs', target];
    const size = LARGE_TMPFS.includes(target)
      ? layout.tmpfsBytes
      : Math.min(layout.tmpfsBytes, smallTmpfsBytes);
    return ['--size', String(size), '--tmpfs', target];
  };
  // The system folders (and files) of `/`, read-only, on bubblewrap's own empty root: the home
  // folders, `/var`, `/srv`… are empty folders made in it (see `hostDataFolders`); what the command
  // needs of them is mounted again below, its mount point made in the root (read-only at the end).
  const { folders: dataFolders, runLinks, system } = await hostFolders();
  const args = [
    ...system,
    '--dev',
    '/dev',
    // bubblewrap's `/dev` is a tmpfs of its own, unbounded, with `/dev/shm` a folder of it: shared
    // memory gets a tmpfs of its own and the rest of `/dev` is read-only (its devices still work).
    ...tmpfs('/dev/shm'),
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
    // The kernel's settings are global: `/proc/sys/kernel/core_pattern` names a program the kernel
    // runs as root, outside any sandbox. Started by root, a command could write them.
    ...kernelSettingsReadOnly,
  ];
  const replaced = [...REPLACED_FOLDERS, ...dataFolders];
  const repository = await findRepository(layout.root);
  const gitDirs = repository === undefined ? [] : await bindableGitDirs(layout.root, repository);
  // Installed packages the workspace links to from a replaced folder (a pnpm store, a monorepo
  // checked out under /tmp, a Node.js in the home folder) stay visible, read-only.
  const linked = await linkedHostFoldersCached(layout.root, replaced, layout.executable, layout.searchPath);
  const shownFolders: string[] = [];
  for (const entry of [...defaultShownPaths, ...(layout.show ?? [])]) {
    const target = path.resolve(expandHome(entry));
    if (
      replaced.some((folder) => isInside(folder, target)) &&
      !linked.some((folder) => isInside(folder, target)) &&
      kindOfNow(target) === 'directory'
    )
      shownFolders.push(target);
  }
  const shown = [layout.root, ...layout.writable, ...linked, ...shownFolders, ...gitDirs];
  if (repository !== undefined) shown.push(repository.top);
  const empty = await emptyFolder();
  // The data folders are there, empty (a folder made in the root: no mount), with their links into
  // `/run` (`/var/run`).
  for (const folder of dataFolders) args.push('--dir', folder, ...(runLinks.get(folder) ?? []));
  args.push(...tmpfs('/tmp'), ...tmpfs('/var/tmp'));
  // `/run` holds the sockets of the machine's services (Docker, D-Bus and the user's session
  // bus, databases, agents): a read-only mount does not stop `connect()`, so it is replaced by an
  // empty one, like `/tmp`. With the network on, the resolver configuration it may hold stays.
  for (const folder of await runFolders()) args.push(...tmpfs(folder));
  if (layout.network) {
    const resolver = await realpath('/etc/resolv.conf').catch(() => undefined);
    if (resolver !== undefined && (await runFolders()).some((folder) => isInside(folder, resolver)))
      args.push('--ro-bind', path.dirname(resolver), path.dirname(resolver));
  }
  // Credential stores, but not those in a replaced folder that nothing shows again.
  const hidden = (await hiddenMounts(layout.hide)).filter(
    (mount) =>
      !replaced.some((folder) => isInside(folder, mount.target)) ||
      shown.some((folder) => isInside(folder, mount.target)),
  );
  if (repository && !isInside(layout.root, repository.top)) {
    // The workspace is part of a larger repository: git must see its work tree (read-only).
    args.push('--ro-bind', repository.top, repository.top);
  }
  for (const folder of [...linked, ...shownFolders]) args.push('--ro-bind', folder, folder);
  args.push('--bind', layout.root, layout.root);
  for (const folder of layout.writable) {
    if (kindOfNow(folder) === 'directory') args.push('--bind', folder, folder);
  }
  for (const folder of [productStateFolder, ...(layout.readOnly ?? [])]) {
    // Its real path, when that is a folder inside the workspace (the journal may be named through
    // a link; a link out of the workspace is nothing to protect here).
    const target = realPathNow(path.resolve(layout.root, folder));
    if (target !== undefined && kindOfNow(target) === 'directory' && isInside(layout.root, target))
      args.push('--ro-bind', target, target);
  }
  // The workspace's Python bytecode (and the `writable` folders'), when the command must read none
  // of it: only inside those folders (what a command left there may not send a mount elsewhere).
  const coverable = (target: string) =>
    [layout.root, ...layout.writable].some((folder) => folder !== target && isInside(folder, target));
  // A `__pycache__` gets an empty tmpfs of its own (small, gone with the command): Python finds
  // nothing there, and what `py_compile` writes there (Python's imports write nothing) is lost.
  for (const folder of layout.bytecode?.caches ?? []) {
    if (coverable(folder)) args.push(...tmpfs(folder));
  }
  for (const file of layout.bytecode?.sourceless ?? []) {
    if (coverable(file)) args.push('--ro-bind', '/dev/null', file);
  }
  // Credential stores are hidden after every bind: a workspace, a `writable` folder or the
  // repository's work tree (a home folder kept in git) that contains one would show it again.
  for (const mount of hidden) {
    // Never hide the workspace itself.
    if (!isInside(mount.target, layout.root))
      args.push(
        ...(mount.args[0] !== '--tmpfs'
          ? mount.args
          : empty !== undefined
            ? ['--ro-bind', empty, mount.target]
            : tmpfs(mount.target)),
      );
  }
  if (repository?.gitFile !== undefined && isInside(layout.root, repository.gitFile)) {
    // A worktree's `.git` file says where its git directory is: rewritten, it would send the
    // user's own git to a directory (and config) the command made.
    args.push('--ro-bind', repository.gitFile, repository.gitFile);
  }
  for (const gitDir of gitDirs) {
    // The repository's objects, refs and index are writable (commits); its config and hooks are
    // not, so nothing run here can plant a hook or an fsmonitor that fires later, outside. The
    // git directory is a mount point of its own, so it cannot be renamed or removed and replaced
    // by one with another config either.
    args.push('--bind', gitDir, gitDir);
    for (const name of gitControlFiles) {
      const target = path.join(gitDir, name);
      if (kindOfNow(target) !== undefined) args.push('--ro-bind', target, target);
      else if (gitControlFolders.has(name)) {
        // Without a hooks folder (`git init --template=`) one could be created, and submodules'
        // git directories (`modules/<name>`, with their own config and hooks) too: an empty,
        // read-only one is mounted (its mount point stays behind, empty, as git would make it).
        args.push(
          ...(empty !== undefined
            ? ['--ro-bind', empty, target]
            : [...tmpfs(target), '--remount-ro', target]),
        );
      }
    }
    // The linked worktrees' own git directories: where each finds its common directory, and its
    // own configuration.
    const worktrees = path.join(gitDir, 'worktrees');
    let names: string[] = [];
    try {
      names = readdirSync(worktrees);
    } catch {
      // no linked worktrees
    }
    for (const name of names.slice(0, 200)) {
      for (const file of ['commondir', 'config.worktree', 'gitdir']) {
        const target = path.join(worktrees, name, file);
        if (kindOfNow(target) === 'file') args.push('--ro-bind', target, target);
      }
    }
  }
  // Sockets and named pipes of the machine's services elsewhere (`/var/lib`, `/srv`, a home folder,
  // the workspace itself): `/dev/null` is mounted over each (binds are `nodev`), so `connect()` and
  // `open()` are refused.
  const hiddenTargets = hidden
    .filter((mount) => !isInside(mount.target, layout.root))
    .map((mount) => mount.target);
  for (const endpoint of visibleEndpoints(shown, hiddenTargets, replaced))
    args.push('--ro-bind', '/dev/null', endpoint);
  // The root, with the mount points and links made in it, is read-only, as the system it stands for
  // (what is mounted in it stays as it is: the workspace and `/tmp` are writable).
  args.push('--remount-ro', '/');
  // No capabilities: bubblewrap started by root keeps them all by default, and with them a command
  // could remount `/` read-write, unmount the hidden folders or mount anything anywhere.
  args.push('--cap-drop', 'ALL');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!layout.network) args.push('--unshare-net');
  args.push('--die-with-parent', '--new-session', '--chdir', layout.cwd);
  return args;
}

/**
 * Guards the git directories of the workspace's repository during one sandboxed command: call it
 * before the command, and the function it returns after the command's process tree is gone. The
 * user's own git runs later, outside the sandbox, with what the command left:
 * - a `commondir` file the command created in a git directory that had none is removed (it would
 *   point git at a configuration the command wrote). One that existed is mounted read-only by
 *   {@link bubblewrapArguments};
 * - in a git directory the command could write, a `config` or `config.worktree` it changed
 *   (created, re-pointed through a link, rewritten through a hard link: see
 *   `controlFingerprint`) that holds keys which may run a program (`core.fsmonitor`,
 *   `core.hooksPath`, a diff or filter driver, `include.path`…), hooks it changed that are not
 *   samples, and a paused rebase's or cherry-pick's steps it changed that run a program (`exec`,
 *   a merge strategy that is not built in), are renamed aside;
 * - so are those of the submodules in the work tree (gitlinks in the index): `git status` in the
 *   outer repository runs git in each of them, with their configuration.
 * The function returns what was refused (to tell the command's caller).
 */
export async function guardGitDirectories(root: string): Promise<() => Promise<string[]>> {
  const real = (target: string) => realpath(target).catch(() => undefined);
  const pointersBefore = await gitPointers(root);
  const before = await findRepository(root);
  const missing: string[] = [];
  for (const gitDir of before?.gitDirs ?? []) {
    const target = path.join(gitDir, 'commondir');
    if ((await kindOf(target)) === undefined && (await lstat(target).catch(() => undefined)) === undefined)
      missing.push(target);
  }
  // What the command may write: the git directories mounted writable (a linked worktree's common
  // one is outside the workspace, its own in that), and any inside the workspace. The control
  // entries of the repository's git directories as they are now:
  // one the command changed — made, re-pointed, rewritten through a link — is checked after it.
  const writable = before === undefined ? [] : await bindableGitDirs(root, before);
  const ownGitDirs = (await Promise.all((before?.gitDirs ?? []).map(real))).filter(
    (gitDir): gitDir is string => gitDir !== undefined,
  );
  // The other git directories in the workspace (nested repositories, which are no submodules, and
  // their `.git` files): git run in their folders uses them.
  const nestedBefore = await findWorkspaceGitDirectories(root);
  const fingerprintsBefore = await controlFingerprints([
    ...new Set([...ownGitDirs, ...nestedBefore.gitDirs]),
  ]);
  const confines = [root, ...writable];
  return async () => {
    for (const target of missing) await rm(target, { recursive: true, force: true });
    const refused: string[] = [];
    // A `.git` file or link, or a `commondir`, the command wrote that names a folder outside the
    // workspace: the next command's sandbox would mount that folder writable (and the user's git
    // would use its configuration).
    for (const [file, value] of await gitPointers(root)) {
      if (pointersBefore.get(file) === value || !isInside(root, file)) continue;
      const stats = await lstat(file).catch(() => undefined);
      if (stats === undefined || stats.isDirectory()) continue;
      const named =
        path.basename(file) === 'commondir'
          ? path.resolve(path.dirname(file), value)
          : stats.isSymbolicLink()
            ? value
            : path.resolve(path.dirname(file), value.replace(/^gitdir:\s*/, ''));
      const target = (await real(named)) ?? named;
      if (isInside(root, target)) continue;
      await moveAside(file);
      refused.push(`${path.relative(root, file) || '.git'} (points outside the workspace)`);
    }
    // A nested `.git` file or link the command re-pointed outside the workspace: git in its folder
    // would work on another repository of the user's.
    const nested = await findWorkspaceGitDirectories(root);
    for (const [file, named] of nested.pointers) {
      if (nestedBefore.pointers.get(file) === named) continue;
      if (isInside(root, (await real(named)) ?? named)) continue;
      await moveAside(file);
      refused.push(`${path.relative(root, file)} (points outside the workspace)`);
    }
    const after = await findRepository(root);
    const gitDirs = new Set(nested.gitDirs);
    for (const found of after?.gitDirs ?? []) {
      // Only what the command could write: really inside the workspace, or mounted writable (a
      // `.git` link to another repository of the user's is left alone).
      const gitDir = await real(found);
      if (gitDir !== undefined && confines.some((folder) => isInside(folder, gitDir))) gitDirs.add(gitDir);
    }
    for (const gitDir of gitDirs) {
      const changed = new Set<string>();
      for (const [target, fingerprint] of await controlFingerprints([gitDir]))
        if (fingerprintsBefore.get(target) !== fingerprint) changed.add(path.relative(gitDir, target));
      refused.push(...(await refuseGitLeftovers(gitDir, root, changed, confines)));
    }
    if (after === undefined) return refused;
    const gitDir = after.gitDirs[0] === undefined ? undefined : await real(after.gitDirs[0]);
    if (gitDir !== undefined)
      refused.push(...(await refuseSubmoduleConfigs({ top: after.top, gitDir, writable: root })));
    return refused;
  };
}
