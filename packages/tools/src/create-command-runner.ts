import { randomUUID } from 'node:crypto';
import { lstat, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRedactor, type Redactor } from '@closedloop/model';
import { closeCommandExitRecord, openCommandExitRecord } from './command-exit-records';
import {
  type CheckedCommand,
  type CommandPolicy,
  checkCommand,
  commandEnv,
  isResolvedCommandPolicy,
  localBinPrograms,
  type ResolvedCommandPolicy,
  resolveCommandPolicy,
} from './command-policy';
import { gitDirectoryHazards } from './git-directory-hazards';
import { resolveInWorkspace, workspaceRelative } from './resolve-in-workspace';
import {
  createLimitGroup,
  diskWatch,
  diskWatchIntervalMs,
  limitPrefix,
  pidNamespacePrefix,
  processLimitPrefix,
  type ResourceLimits,
  resolveResourceLimits,
} from './resource-limits';
import { findExecutable, type ProcessRunResult, runProcess } from './run-process';
import {
  bubblewrapArguments,
  findRepository,
  guardGitDirectories,
  holdReadOnlyFolders,
  probeSandbox,
  type SandboxMode,
  type SandboxOptions,
  warnNoSandbox,
} from './sandbox';
import { ToolError } from './tool-error';
import { findWorkspaceBytecode, type WorkspaceBytecode } from './workspace-bytecode';

/** Options of {@link createCommandRunner}. */
export interface CommandRunnerOptions {
  /** The workspace every command is confined to. */
  root: string;
  /** Which programs may run and with what arguments and environment. */
  policy?: CommandPolicy | ResolvedCommandPolicy;
  /** `'auto'` (default), `'required'`, `'off'`, or the full {@link SandboxOptions}. */
  sandbox?: SandboxMode | SandboxOptions;
  /** Cap per stream (stdout, stderr); head and tail are kept. Default 64 KiB. */
  maxOutputBytes?: number;
  /** Timeout when a run gives none. Default 120 000 ms. */
  defaultTimeoutMs?: number;
  /**
   * Cleans stdout, stderr and the interleaved output before anyone sees them (a key a test
   * prints never reaches a finding, the journal or the model). Default `createRedactor()`;
   * `false` returns output as it is.
   */
  redactor?: Redactor | false;
  /**
   * What each command may use (processes, memory, CPU time, file size), sandboxed or not: over
   * {@link defaultResourceLimits}; `false` for no limits. A cgroup where one can be made, and
   * rlimits (`ulimit`; `prlimit --nproc` inside the sandbox for a user other than root) always.
   */
  limits?: ResourceLimits | false;
}

/** Options of one {@link CommandRunner.run}. */
export interface CommandRunOptions {
  /** Folder relative to the root (or absolute inside it). Default the root. */
  cwd?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Written to the command's stdin (closed otherwise). */
  stdin?: string;
  /** More environment variables for this command (variables that inject code are refused). */
  env?: Readonly<Record<string, string>>;
  /** Cap per stream for this command. */
  maxOutputBytes?: number;
  /** Also collect stdout and stderr interleaved (`output`). */
  interleaved?: boolean;
  /** Called with the pid of the process started (the sandbox's, when sandboxed). */
  onSpawn?: (pid: number) => void;
  /** The environment tag the command and its descendants carry (see `ToolContext.processTag`). */
  processTag?: string;
  /**
   * Python reads none of the bytecode the workspace holds and writes none, and reads the bytecode
   * of the interpreter's own modules as usual (the verifier's re-runs: evidence comes from the
   * sources as they are now, never from a stale or forged `.pyc`). Sandboxed, an empty tmpfs of
   * the command's own covers each `__pycache__` of the workspace and `/dev/null` each `.pyc` that
   * has no source beside it; when they cannot all be listed (more than
   * {@link maxHiddenBytecodePaths}, a linked `__pycache__`, a huge workspace) or the command is
   * not sandboxed — and for `python3 -m py_compile` / `compileall`, which write bytecode whatever
   * the environment says — `PYTHONPYCACHEPREFIX` names a folder of this command alone, removed
   * after (every module is then compiled from source). A command run
   * unsandboxed in a workspace holding a sourceless `.pyc` is refused (`execution-failed`): Python
   * would run it whatever the sources say. A `PYTHONPYCACHEPREFIX` in `env` is kept.
   */
  ignoreWorkspaceBytecode?: boolean;
}

/** What one command did. A non-zero exit is a result, not an error. */
export interface CommandRunResult extends ProcessRunResult {
  argv: string[];
  /** Relative to the workspace root. */
  cwd: string;
  /** Whether it ran inside the bubblewrap sandbox. */
  sandboxed: boolean;
  /**
   * With {@link CommandRunOptions.ignoreWorkspaceBytecode}: how Python was kept off the
   * workspace's bytecode — `'hidden'` (covered in the sandbox) or `'prefix'` (a
   * `PYTHONPYCACHEPREFIX` nobody writes).
   */
  bytecode?: 'hidden' | 'prefix';
}

/**
 * How many `__pycache__` folders and sourceless `.pyc` files of a workspace a sandboxed command
 * gets covered, at most (one mount each); above it, `PYTHONPYCACHEPREFIX` keeps Python off them.
 */
export const maxHiddenBytecodePaths = 256;

/**
 * Python modules whose purpose is to write bytecode (`PYTHONDONTWRITEBYTECODE` does not stop
 * them): with `ignoreWorkspaceBytecode` they write to a prefix of their own, not the workspace.
 */
const bytecodeWriters: ReadonlySet<string> = new Set(['py_compile', 'compileall']);

/** The module a `python3` argv runs with `-m` (`-m x`, `-mx`, `-Bm x`, after other options), if any. */
function pythonModuleOf(program: string, args: readonly string[]): string | undefined {
  if (!/^python(?:3(?:\.\d+)?)?$/.test(program)) return undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (!arg.startsWith('-') || arg === '-' || arg === '--') return undefined;
    if (arg.startsWith('--')) continue;
    for (let at = 1; at < arg.length; at++) {
      const flag = arg[at];
      if (flag === 'm') return at + 1 < arg.length ? arg.slice(at + 1) : args[index + 1];
      if (flag === 'W' || flag === 'X') {
        // Its value is the rest of the argument, or the next one.
        if (at + 1 === arg.length) index++;
        break;
      }
    }
  }
  return undefined;
}

/**
 * The one process runner of closedloop: `run_command`, the git tools and the verifier's claim
 * re-runs and protocols all start processes through one. Every command is checked against the
 * {@link CommandPolicy} (program allowlist, per-program argument rules, paths confined to the
 * workspace), gets the minimal environment, runs inside bubblewrap when available (see
 * {@link SandboxOptions}), and dies with its whole process tree.
 */
export interface CommandRunner {
  /** The workspace's real path. */
  readonly root: string;
  readonly policy: ResolvedCommandPolicy;
  /** Checks a command without running it (throws `ToolError` `command-denied` / `path-escape`). */
  check(argv: readonly string[], options?: { cwd?: string }): Promise<CheckedCommand>;
  /**
   * Checks and runs a command. Throws `ToolError`: `command-denied`, `path-escape`,
   * `execution-failed` (cwd missing, program not installed), `sandbox-unavailable` (sandbox
   * `'required'` and bubblewrap unusable); rejects with the signal's reason on abort.
   */
  run(argv: readonly string[], options?: CommandRunOptions): Promise<CommandRunResult>;
  /** Whether commands run sandboxed here, and why not. */
  sandboxStatus(): Promise<{ sandboxed: boolean; reason?: string }>;
}

/** Environment variables a run may not set: they make programs load code or change git. */
const injectingEnv =
  /^(?:LD_|DYLD_|NODE_OPTIONS$|NODE_PATH$|NODE_REPL_EXTERNAL_MODULE$|BASH_ENV$|ENV$|PS4$|PROMPT_COMMAND$|SHELLOPTS$|PYTHON(?:STARTUP|PATH|HOME|INSPECT)$|PERL5?(?:LIB|OPT)$|RUBYOPT$|RUBYLIB$|GIT_(?!OPTIONAL_LOCKS$|AUTHOR_(?:NAME|EMAIL|DATE)$|COMMITTER_(?:NAME|EMAIL|DATE)$)|npm_config_|NPM_CONFIG_|PNPM_|YARN_|PATH$|HOME$|CLOSEDLOOP_)/;

/**
 * `-c` settings every git command runs with: no hooks, no fsmonitor, no pager, no bare repos, no
 * signing, editor or ssh program of the repository's configuration; and
 * none of the repository's settings that change what `git status` and `git diff` show (a command
 * can write the repository's configuration): untracked files listed, ignore and attribute files
 * outside the work tree not read, paths with their `a/` and `b/` prefixes from the repository's
 * top, submodules compared. `diff.external` and textconv drivers cannot be switched off by a
 * setting: readers pass `--no-ext-diff --no-textconv`.
 */
export const gitHardening: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.quotepath=off',
  'color.ui=false',
  'credential.helper=',
  'safe.bareRepository=explicit',
  'status.showUntrackedFiles=normal',
  'core.excludesFile=/dev/null',
  'core.attributesFile=/dev/null',
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'diff.relative=false',
  'diff.ignoreSubmodules=none',
  'diff.srcPrefix=a/',
  'diff.dstPrefix=b/',
  // What the policy refuses as flags (`--gpg-sign`, `-e`, `-c core.sshCommand=…`) the
  // configuration must not do either: no signing, the system's own verifiers, no editor, ssh from
  // the trusted PATH.
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'tag.forceSignAnnotated=false',
  'push.gpgSign=false',
  'log.showSignature=false',
  'gpg.program=gpg',
  'gpg.openpgp.program=gpg',
  'gpg.x509.program=gpgsm',
  'gpg.ssh.program=ssh-keygen',
  'gpg.ssh.defaultKeyCommand=',
  'core.editor=:',
  'sequence.editor=:',
  'core.sshCommand=ssh',
  'core.askPass=',
];

let identity: Promise<Record<string, string>> | undefined;

/**
 * The user's git identity, read from `~/.gitconfig` (commands run with global configuration
 * ignored, so `git commit` would otherwise have no author). Parsed, never executed.
 */
function gitIdentityEnv(): Promise<Record<string, string>> {
  identity ??= (async () => {
    const env: Record<string, string> = {};
    for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL']) {
      const value = process.env[name];
      if (value) env[name] = value;
    }
    try {
      const text = await readFile(path.join(os.homedir(), '.gitconfig'), 'utf8');
      const user = /^\s*\[user\]\s*$([\s\S]*?)(?=^\s*\[|(?![\s\S]))/m.exec(text)?.[1] ?? '';
      const read = (key: string) =>
        new RegExp(`^\\s*${key}\\s*=\\s*"?([^"\\n]*?)"?\\s*$`, 'im').exec(user)?.[1]?.trim();
      const name = read('name');
      const email = read('email');
      if (name) {
        env.GIT_AUTHOR_NAME ??= name;
        env.GIT_COMMITTER_NAME ??= name;
      }
      if (email) {
        env.GIT_AUTHOR_EMAIL ??= email;
        env.GIT_COMMITTER_EMAIL ??= email;
      }
    } catch {
      // no global identity
    }
    return env;
  })();
  return identity;
}

function sandboxSettings(option: CommandRunnerOptions['sandbox']): Required<
  Omit<SandboxOptions, 'bubblewrap'>
> & {
  bubblewrap: string;
} {
  const options: SandboxOptions = typeof option === 'string' ? { mode: option } : (option ?? {});
  const mode = options.mode ?? 'auto';
  if (mode !== 'auto' && mode !== 'required' && mode !== 'off') {
    throw new ToolError({
      code: 'invalid-definition',
      message: `sandbox must be 'auto', 'required' or 'off', got ${JSON.stringify(mode)}.`,
    });
  }
  return {
    mode,
    network: options.network ?? false,
    hide: [...(options.hide ?? [])],
    writable: (options.writable ?? []).map((folder) => path.resolve(folder)),
    readOnly: [...(options.readOnly ?? [])],
    show: [...(options.show ?? [])],
    bubblewrap: options.bubblewrap ?? 'bwrap',
  };
}

/**
 * Throws `ToolError` `execution-failed` when the git directories of the repository at `cwd` hold
 * an entry git would wait on until the timeout (a FIFO as the index, a link to `/dev/zero`: see
 * `gitDirectoryHazards`) — one a command running concurrently has just left there, before its own
 * check moves it aside. Loose objects are not looked at (the check after each command does).
 */
async function assertGitWillNotWait(argv: readonly string[], cwd: string): Promise<void> {
  const repository = await findRepository(cwd);
  for (const gitDir of repository?.gitDirs ?? []) {
    const hazards = await gitDirectoryHazards(gitDir, { objects: false });
    if (hazards.length === 0) continue;
    const named = hazards.slice(0, 3).map((hazard) => `${hazard.entry}, ${hazard.why}`);
    throw new ToolError({
      code: 'execution-failed',
      message: `Command ${JSON.stringify(argv)} was not run: the git directory holds ${named.join('; ')}, which git would wait on until the timeout. Remove it.`,
      details: { argv, gitDir, hazards: hazards.map((hazard) => hazard.entry) },
    });
  }
}

/** True when `child` is `parent` or inside it (both absolute). */
function isInsideFolder(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Builds the {@link CommandRunner} for a workspace.
 *
 * @example
 * ```ts
 * const runner = createCommandRunner({ root, sandbox: 'required' });
 * const result = await runner.run(['npm', 'test'], { timeoutMs: 60_000 });
 * result.exitCode; // 0
 * ```
 */
export function createCommandRunner(options: CommandRunnerOptions): CommandRunner {
  const policy = isResolvedCommandPolicy(options.policy)
    ? options.policy
    : resolveCommandPolicy(options.policy);
  const sandbox = sandboxSettings(options.sandbox);
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const root = path.resolve(options.root);
  const redactor = options.redactor === false ? undefined : (options.redactor ?? createRedactor());
  const limits = resolveResourceLimits(options.limits);

  const sandboxStatus = async (): Promise<{ sandboxed: boolean; reason?: string }> => {
    if (sandbox.mode === 'off') return { sandboxed: false, reason: "sandbox: 'off'" };
    const probe = await probeSandbox(sandbox.bubblewrap);
    return probe.available ? { sandboxed: true } : { sandboxed: false, reason: probe.reason };
  };

  const check = (argv: readonly string[], checkOptions: { cwd?: string } = {}) =>
    checkCommand(argv, { root, cwd: checkOptions.cwd ?? '.', policy });

  const run = async (
    argv: readonly string[],
    runOptions: CommandRunOptions = {},
  ): Promise<CommandRunResult> => {
    const checked = await check(argv, runOptions.cwd !== undefined ? { cwd: runOptions.cwd } : {});
    const cwdStats = await stat(checked.cwd).catch(() => undefined);
    if (!cwdStats?.isDirectory()) {
      throw new ToolError({
        code: 'execution-failed',
        message: `The cwd ${JSON.stringify(runOptions.cwd ?? '.')} is not a folder in the workspace.`,
        details: { cwd: runOptions.cwd ?? '.' },
      });
    }
    for (const name of Object.keys(runOptions.env ?? {})) {
      if (injectingEnv.test(name)) {
        throw new ToolError({
          code: 'command-denied',
          message: `Command ${JSON.stringify(argv)} is denied: the environment variable ${name} changes what programs load or run; set it in the command policy's env instead.`,
          details: { argv, env: name },
        });
      }
    }
    const realRoot = await resolveInWorkspace(root, '.');
    const env: Record<string, string> = { ...commandEnv(policy), ...runOptions.env };
    let args = checked.args;
    if (checked.program === 'git') {
      await assertGitWillNotWait(argv, checked.cwd);
      Object.assign(env, await gitIdentityEnv(), { ...policy.env });
      args = [...gitHardening.flatMap((setting) => ['-c', setting]), ...args];
    }
    // Folders of `PATH` inside the workspace (`pnpm` puts `<project>/node_modules/.bin` there) are
    // skipped: the agent writes that folder, and `git` or `ls` found there would be its program
    // (only the test, build and lint tools come from `node_modules/.bin`, on purpose).
    const trustedPath = (env.PATH ?? '')
      .split(path.delimiter)
      // A relative entry (`.`, `bin`) is a folder of the command's cwd: the workspace.
      .filter((dir) => path.isAbsolute(dir) && !isInsideFolder(realRoot, path.resolve(dir)))
      .join(path.delimiter);
    // The command's own PATH too: what it looks up there (git's `ssh` and `git-merge-*`, ripgrep's
    // decompressors) must not be the agent's either. Package managers add the workspace's
    // `node_modules/.bin` for the scripts they run themselves.
    if (env.PATH !== undefined) env.PATH = trustedPath;
    const executable =
      (await findExecutable(checked.program, {
        pathVariable: trustedPath,
        ...(localBinPrograms.has(checked.program)
          ? { localBinDir: path.join(realRoot, 'node_modules', '.bin') }
          : {}),
      })) ?? (checked.program === 'node' ? process.execPath : undefined);
    if (executable === undefined) {
      throw new ToolError({
        code: 'execution-failed',
        message: `"${checked.program}" is allowed but was not found on PATH. Is it installed?`,
        details: { program: checked.program },
      });
    }

    const status = await sandboxStatus();
    if (!status.sandboxed && sandbox.mode === 'required') {
      throw new ToolError({
        code: 'sandbox-unavailable',
        message: `Command ${JSON.stringify(argv)} was not run: the sandbox is required but ${status.reason}.`,
        details: { argv, reason: status.reason },
      });
    }
    if (!status.sandboxed && sandbox.mode === 'auto') warnNoSandbox(status.reason ?? 'unknown reason');

    let bytecode: WorkspaceBytecode | undefined;
    let ownPrefix: string | undefined;
    if (runOptions.ignoreWorkspaceBytecode) {
      env.PYTHONDONTWRITEBYTECODE = '1';
      // A prefix of the policy's could be a folder commands write: only the caller's is kept.
      if (runOptions.env?.PYTHONPYCACHEPREFIX === undefined) delete env.PYTHONPYCACHEPREFIX;
      // The folders commands write: the workspace, and the `writable` ones.
      bytecode = { caches: [], sourceless: [] };
      for (const folder of [realRoot, ...sandbox.writable.filter((dir) => !isInsideFolder(realRoot, dir))]) {
        const found = await findWorkspaceBytecode(folder, { maxPaths: maxHiddenBytecodePaths });
        if (found === undefined) {
          bytecode = undefined;
          break;
        }
        bytecode.caches.push(...found.caches);
        bytecode.sourceless.push(...found.sourceless);
      }
      if (
        bytecode !== undefined &&
        bytecode.caches.length + bytecode.sourceless.length > maxHiddenBytecodePaths
      )
        bytecode = undefined;
      if (!status.sandboxed && bytecode !== undefined && bytecode.sourceless.length > 0) {
        const named = bytecode.sourceless.slice(0, 3).map((file) => workspaceRelative(realRoot, file));
        throw new ToolError({
          code: 'execution-failed',
          message: `Command ${JSON.stringify(argv)} was not run: the workspace holds Python bytecode with no source beside it (${named.join(', ')}${bytecode.sourceless.length > 3 ? ', …' : ''}), which Python would run whatever the sources say, and without the sandbox it cannot be hidden. Remove it.`,
          details: { argv, sourceless: named },
        });
      }
      if (!status.sandboxed) bytecode = undefined;
      // A folder of this command alone (removed after it): Python finds no bytecode there and,
      // with `PYTHONDONTWRITEBYTECODE`, writes none but what `py_compile`/`compileall` must.
      if (
        env.PYTHONPYCACHEPREFIX === undefined &&
        (bytecode === undefined || bytecodeWriters.has(pythonModuleOf(checked.program, args) ?? ''))
      ) {
        ownPrefix = path.join(os.tmpdir(), `closedloop-no-pycache-${randomUUID()}`);
        env.PYTHONPYCACHEPREFIX = ownPrefix;
      }
    }

    const processOptions = {
      cwd: checked.cwd,
      env,
      timeoutMs: runOptions.timeoutMs ?? defaultTimeoutMs,
      maxOutputBytes: runOptions.maxOutputBytes ?? maxOutputBytes,
      ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      ...(runOptions.stdin !== undefined ? { stdin: runOptions.stdin } : {}),
      ...(runOptions.interleaved ? { interleaved: true } : {}),
      ...(runOptions.onSpawn ? { onSpawn: runOptions.onSpawn } : {}),
      ...(runOptions.processTag !== undefined ? { tag: runOptions.processTag } : {}),
    };
    // A cgroup holds the whole tree (a fork bomb, a memory hog) where one can be made; rlimits
    // bound each process everywhere.
    // The disk is watched while the command runs: RLIMIT_FSIZE bounds one file, not a thousand.
    const disk = limits ? await diskWatch(limits, [realRoot, ...sandbox.writable]) : undefined;
    const group = limits ? await createLimitGroup(limits) : undefined;
    const joinGroup = limits
      ? limitPrefix(
          disk ? { ...limits, maxFileBytes: Math.min(limits.maxFileBytes, disk.budget) } : limits,
          group,
        )
      : [];
    const start = async (argvToRun: string[], options: Parameters<typeof runProcess>[2]) => {
      const [head, ...rest] = [...joinGroup, ...argvToRun];
      return runProcess(head as string, rest, {
        ...options,
        ...(disk ? { watch: { intervalMs: diskWatchIntervalMs, check: disk.check } } : {}),
      });
    };
    let result: ProcessRunResult;
    try {
      if (status.sandboxed) {
        const probe = await probeSandbox(sandbox.bubblewrap);
        const bwrap = probe.available ? probe.executable : sandbox.bubblewrap;
        const layout = {
          root: realRoot,
          cwd: checked.cwd,
          network: sandbox.network,
          hide: sandbox.hide,
          writable: sandbox.writable,
          readOnly: sandbox.readOnly,
          show: sandbox.show,
          executable,
          ...(env.PATH !== undefined ? { searchPath: env.PATH } : {}),
          ...(bytecode !== undefined ? { bytecode } : {}),
          // `/tmp`, `/var/tmp` and `/dev/shm` are memory: a quarter of the memory limit each.
          ...(limits && probe.available && probe.tmpfsSize
            ? { tmpfsBytes: Math.max(1024 * 1024, Math.floor(limits.maxMemoryBytes / 4)) }
            : {}),
        };
        // Inside the sandbox (its own user namespace when not root) RLIMIT_NPROC counts the
        // command's processes alone.
        const inner = limits ? await processLimitPrefix(limits) : [];
        // Root is exempt from RLIMIT_NPROC: without a cgroup bounding its processes, a pid
        // namespace of its own with a small `pid_max` does.
        const outer = limits && !group?.boundsProcesses ? await pidNamespacePrefix(limits) : [];
        // closedloop's own folder and the readOnly ones are bound read-only: they must exist for
        // that, or the command could make them.
        const releaseFolders = await holdReadOnlyFolders(realRoot, sandbox.readOnly);
        const restoreGitDirectories = await guardGitDirectories(realRoot).catch(async (error: unknown) => {
          await releaseFolders();
          throw error;
        });
        let refused: string[] = [];
        try {
          for (let attempt = 1; ; attempt++) {
            const wrapper = await bubblewrapArguments(layout);
            // How the command ends, kept for a resume when this process dies before it can say.
            const statusFd =
              runOptions.processTag === undefined ? undefined : openCommandExitRecord(runOptions.processTag);
            try {
              result = await start(
                [
                  ...outer,
                  bwrap,
                  '--info-fd',
                  '3',
                  ...(statusFd === undefined ? [] : ['--json-status-fd', '4']),
                  ...wrapper,
                  '--',
                  ...inner,
                  executable,
                  ...args,
                ],
                {
                  ...processOptions,
                  env: { ...env, TMPDIR: '/tmp' },
                  // The pid namespace dies with the command: nothing to look for outside it, only
                  // its end to wait for.
                  reapDetached: false,
                  infoFd: true,
                  ...(statusFd === undefined ? {} : { statusFd }),
                  ...(outer.length > 0 ? { outerNamespace: true } : {}),
                },
              );
            } finally {
              closeCommandExitRecord(statusFd);
            }
            if (attempt >= 3 || !(await coveredPathVanished(result, wrapper))) break;
          }
        } finally {
          try {
            refused = await restoreGitDirectories();
          } finally {
            await releaseFolders();
          }
        }
        if (refused.length > 0) {
          result.stderr += `${result.stderr === '' || result.stderr.endsWith('\n') ? '' : '\n'}closedloop: moved aside git settings that run programs, which the command left for git outside the sandbox: ${refused.join('; ')}.\n`;
        }
      } else {
        // Root without a cgroup: a pid namespace with a small `pid_max` bounds its processes here
        // too (against a runaway test suite; root unsandboxed could lift it, as anything else).
        const outer = limits && !group?.boundsProcesses ? await pidNamespacePrefix(limits) : [];
        result = await start([...outer, executable, ...args], processOptions);
      }
    } finally {
      await group?.release();
      // Sandboxed, it was in the command's own `/tmp`; otherwise it is removed here.
      if (ownPrefix !== undefined) await rm(ownPrefix, { recursive: true, force: true });
    }
    const bytecodeKept: 'hidden' | 'prefix' = bytecode !== undefined ? 'hidden' : 'prefix';
    if (result.limitExceeded !== undefined) {
      result.stderr += `${result.stderr === '' || result.stderr.endsWith('\n') ? '' : '\n'}closedloop: killed the command: ${result.limitExceeded}.\n`;
    }
    if (redactor) {
      result.stdout = redactor.redact(result.stdout);
      result.stderr = redactor.redact(result.stderr);
      if (result.output !== undefined) result.output = redactor.redact(result.output);
    }
    return {
      argv: [...argv],
      cwd: workspaceRelative(realRoot, checked.cwd),
      sandboxed: status.sandboxed,
      ...(runOptions.ignoreWorkspaceBytecode ? { bytecode: bytecodeKept } : {}),
      ...result,
    };
  };

  return {
    root,
    policy,
    check,
    run,
    sandboxStatus,
  };
}

/**
 * True when bubblewrap could not start the command because a path it was to cover — a host socket,
 * a credential store, a private folder of `/etc` — vanished between listing and mounting (removed:
 * under a read-only folder the mount point cannot be made). The command never ran, so it is started
 * again with a fresh list. Only bubblewrap's own one-line error for a path it was given as a mount
 * target, gone now, counts.
 */
async function coveredPathVanished(result: ProcessRunResult, wrapper: readonly string[]): Promise<boolean> {
  if (result.exitCode === 0 || result.stdout !== '') return false;
  const target = /^bwrap: Can't (?:mkdir parents for|mkdir|create file at) (\/[^\n]*): [^\n]*\n?$/.exec(
    result.stderr,
  )?.[1];
  if (target === undefined) return false;
  const covered = wrapper.some(
    (arg, index) =>
      arg === target && (wrapper[index - 1] === '--tmpfs' || wrapper[index - 2] === '--ro-bind'),
  );
  return (
    covered &&
    (await lstat(target).then(
      () => false,
      () => true,
    ))
  );
}
