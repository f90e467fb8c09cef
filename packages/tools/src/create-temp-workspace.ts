import { execFile } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Options of {@link createTempWorkspace}. */
export interface TempWorkspaceOptions {
  /** Files to create, by path relative to the root. */
  files?: Record<string, string>;
  /** `git init` the folder and commit the files (with a local user.name/user.email). */
  git?: boolean;
  /** Prefix of the folder name. Default `closedloop-ws-`. */
  prefix?: string;
}

/** A real temporary folder for tests. */
export interface TempWorkspace {
  /** Absolute real path (symlinks such as macOS `/tmp` resolved). */
  readonly root: string;
  /** Writes a file (parents created) relative to the root. */
  write(relativePath: string, content: string): Promise<void>;
  /** Reads a UTF-8 file relative to the root. */
  read(relativePath: string): Promise<string>;
  exists(relativePath: string): Promise<boolean>;
  /** Runs `git` in the root and returns its stdout (throws on a non-zero exit). */
  git(...args: string[]): Promise<string>;
  /** Removes the folder. Safe to call twice. */
  cleanup(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Environment for test git processes: no system/global config, a fixed identity. */
function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'closedloop test',
    GIT_AUTHOR_EMAIL: 'test@closedloop.invalid',
    GIT_COMMITTER_NAME: 'closedloop test',
    GIT_COMMITTER_EMAIL: 'test@closedloop.invalid',
  };
}

/** What a test repository's `.git/config` gets after `git init`: a fixed identity, no signing. */
const LOCAL_GIT_CONFIG = [
  '[user]',
  '\tname = closedloop test',
  '\temail = test@closedloop.invalid',
  '[commit]',
  '\tgpgsign = false',
  '',
].join('\n');

function inside(root: string, relativePath: string): string {
  const full = path.resolve(root, relativePath);
  const relative = path.relative(root, full);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`createTempWorkspace: ${JSON.stringify(relativePath)} is outside the workspace.`);
  }
  return full;
}

/**
 * Creates a real temporary folder, optionally filled with `files` and turned into a git
 * repository with one initial commit (branch `main`, local user config). For tests of tools,
 * verifier fact checks and whole runs.
 *
 * @example
 * ```ts
 * const ws = await createTempWorkspace({ files: { 'src/a.ts': 'export const a = 1;\n' }, git: true });
 * try { ... } finally { await ws.cleanup(); }
 * ```
 */
export async function createTempWorkspace(options: TempWorkspaceOptions = {}): Promise<TempWorkspace> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), options.prefix ?? 'closedloop-ws-')));
  const write = async (relativePath: string, content: string) => {
    const full = inside(root, relativePath);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content, 'utf8');
  };
  const git = async (...args: string[]) => {
    const { stdout } = await execFileAsync('git', args, {
      cwd: root,
      env: gitEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  };
  for (const [relativePath, content] of Object.entries(options.files ?? {}))
    await write(relativePath, content);
  if (options.git) {
    await git('init', '--quiet', '--initial-branch=main');
    // The local config in one write, not one `git config` process per key (thousands of test
    // workspaces); no background maintenance after the first commit of a throwaway repository.
    await appendFile(path.join(root, '.git', 'config'), LOCAL_GIT_CONFIG, 'utf8');
    await git('add', '--all');
    await git('-c', 'maintenance.auto=false', 'commit', '--quiet', '--allow-empty', '-m', 'initial commit');
  }
  let removed = false;
  const cleanup = async () => {
    if (removed) return;
    removed = true;
    // A step abandoned at a deadline may still be settling: rm retries a folder refilled under it.
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  };
  return {
    root,
    write,
    read: (relativePath) => readFile(inside(root, relativePath), 'utf8'),
    async exists(relativePath) {
      try {
        await stat(inside(root, relativePath));
        return true;
      } catch {
        return false;
      }
    },
    git,
    cleanup,
    [Symbol.asyncDispose]: cleanup,
  };
}
