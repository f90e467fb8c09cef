import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, constants, openSync, readdirSync, readFileSync } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beginWorkspaceActivity } from './workspace-activity';

/** The result of one finished (or killed) process. */
export interface ProcessResult {
  /** `null` when the process was killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Some output was dropped because a stream went over its byte cap. */
  truncated: boolean;
  durationMs: number;
  /**
   * Why the process tree was killed before it ended, when a {@link RunProcessOptions.watch}
   * check found it over a limit (e.g. the disk it may fill).
   */
  limitExceeded?: string;
}

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Per stream; the head and the tail are kept. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Grace period between SIGTERM and SIGKILL. Default 1000 ms. */
  killGraceMs?: number;
  /** Written to stdin, which is then closed. Default: stdin is closed at once. */
  stdin?: string;
  /** Also collect stdout and stderr interleaved as they arrived (`output`). */
  interleaved?: boolean;
  /**
   * Find and kill descendants that left the process group (`setsid`, double fork) by an
   * environment tag every descendant inherits (Linux `/proc`). Default true; a runner that puts
   * the command in its own pid namespace turns it off (the namespace dies with the command).
   */
  reapDetached?: boolean;
  /**
   * The program writes a JSON line with `child-pid` to file descriptor 3 (bubblewrap's
   * `--info-fd 3`): once the process is killed, wait until that pid is gone — the pid
   * namespace's init, whose end takes every process of the namespace with it — so nothing of the
   * tree is still running when the result is returned.
   */
  infoFd?: boolean;
  /**
   * With `infoFd`: the process started is `unshare --pid --fork` in front of bubblewrap, so the
   * pid namespace to wait for is the one whose init is its child, and the pid bubblewrap reports
   * counts in that namespace (meaningless here).
   */
  outerNamespace?: boolean;
  /**
   * A descriptor the program gets as its next one after stdio and the `infoFd` pipe (4 with
   * `infoFd`): bubblewrap's `--json-status-fd`, a file that keeps how the command ended when this
   * process is gone. The caller keeps it and closes it.
   */
  statusFd?: number;
  /** Called with the process id once the process started (it leads its own process group). */
  onSpawn?: (pid: number) => void;
  /**
   * Checked every `intervalMs` while the process runs: a reason it returns kills the whole tree at
   * once (SIGKILL, no grace: a disk filling up does not wait) and becomes the result's
   * `limitExceeded`.
   */
  watch?: { intervalMs: number; check: () => Promise<string | undefined> };
  /**
   * The environment tag ({@link processTagVariable}) the process and its descendants carry.
   * Default a fresh random one when `reapDetached`; given, it is set even without `reapDetached`.
   */
  tag?: string;
}

/** A {@link ProcessResult} with the interleaved output when it was asked for. */
export interface ProcessRunResult extends ProcessResult {
  /** stdout and stderr interleaved (only with `interleaved: true`). */
  output?: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC
const ansiPattern = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

/** The environment variable that tags every process a command starts. */
export const processTagVariable = 'CLOSEDLOOP_PROCESS_TAG';

/**
 * The environment variable that marks every process started inside {@link runInProcessScope}
 * (the scope's value): a resume finds what a killed run left running in a scope (a verifier's
 * test run) by it. Separate from {@link processTagVariable}, which one command's end reaps.
 */
export const processScopeVariable = 'CLOSEDLOOP_PROCESS_SCOPE';

// One store for every copy of this module in a process: the scope set by one copy reaches a
// process started by another. The count of scopes still running is shared the same way.
const scopeKey = Symbol.for('closedloop.process-scope');
const openKey = Symbol.for('closedloop.process-scope.open');
const scopeHolder = globalThis as Record<symbol, unknown>;
if (!(scopeHolder[scopeKey] instanceof AsyncLocalStorage))
  scopeHolder[scopeKey] = new AsyncLocalStorage<string>();
const processScope = scopeHolder[scopeKey] as AsyncLocalStorage<string>;
if (typeof scopeHolder[openKey] !== 'object' || scopeHolder[openKey] === null)
  scopeHolder[openKey] = { count: 0 };
const openScopes = scopeHolder[openKey] as { count: number };

/** One scope ended: the last one switches the store off (see {@link runInProcessScope}). */
function closeScope(): void {
  openScopes.count--;
  if (openScopes.count === 0) processScope.disable();
}

/**
 * Runs `fn` with every process `runProcess` starts inside it — in any async continuation of it
 * until the promise `fn` returns settles (until `fn` returns, for a value that is no promise) —
 * marked with `scope` ({@link processScopeVariable}). Find them with `findTagged(scope,
 * processScopeVariable)`.
 *
 * The store behind it is switched off once no scope is running: on Node < 24 an
 * `AsyncLocalStorage` that is on makes every promise of the process pay an async hook (a call and
 * a property per promise, ~12 % of a run's CPU), not just the promises of a verification.
 */
export function runInProcessScope<T>(scope: string, fn: () => T): T {
  openScopes.count++;
  let result: T;
  try {
    result = processScope.run(scope, fn);
  } catch (error) {
    closeScope();
    throw error;
  }
  if (result instanceof Promise) result.then(closeScope, closeScope);
  else closeScope();
  return result;
}

/** Keeps the first and last `max / 2` bytes of a stream. */
class CappedOutput {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private dropped = 0;
  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const headRoom = Math.ceil(this.max / 2) - this.headBytes;
    if (headRoom > 0) {
      const taken = chunk.subarray(0, headRoom);
      this.head.push(taken);
      this.headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0) return;
    const tailMax = Math.floor(this.max / 2);
    const joined = Buffer.concat([this.tail, chunk]);
    const excess = Math.max(0, joined.length - tailMax);
    this.dropped += excess;
    this.tail = joined.subarray(excess);
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = this.tail.toString('utf8');
    const joined = this.dropped > 0 ? `${head}\n[… ${this.dropped} bytes omitted …]\n${tail}` : head + tail;
    return joined.replace(ansiPattern, '');
  }
}

/** Finds `program` in the workspace's `node_modules/.bin` (when `localBinDir` is given) or on `PATH`. */
export async function findExecutable(
  program: string,
  options: { pathVariable: string | undefined; localBinDir?: string },
): Promise<string | undefined> {
  const dirs = [
    ...(options.localBinDir ? [options.localBinDir] : []),
    ...(options.pathVariable ?? '').split(path.delimiter).filter((dir) => dir !== '' && path.isAbsolute(dir)),
  ];
  for (const dir of dirs) {
    const candidate = path.join(dir, program);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * The processes of this user (this one aside) whose environment carries `tag` (in `variable`,
 * default {@link processTagVariable}): a command and its descendants, wherever they went
 * (`setsid`, double fork). Linux only (reads `/proc`); elsewhere none.
 */
export async function findTagged(tag: string, variable: string = processTagVariable): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${variable}=${tag}\0`);
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  await Promise.all(
    names.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      const pid = Number(name);
      if (pid === process.pid) return;
      try {
        const environ = await readFile(`/proc/${name}/environ`);
        if (!environ.includes(needle)) return;
        // A zombie has done all it will do.
        const stat = await readFile(`/proc/${name}/stat`, 'utf8');
        if (!stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) found.push(pid);
      } catch {
        // gone, or another user's
      }
    }),
  );
  return found;
}

/**
 * Kills every process of this user whose environment carries `tag` (descendants that called
 * `setsid` or double-forked out of the process group). Repeats while it finds some, because a
 * process may fork while it is being killed (zombies, done already, are left to their parent).
 * Linux only (reads `/proc`); elsewhere a no-op.
 */
export async function killTagged(
  tag: string,
  signal: NodeJS.Signals = 'SIGKILL',
  variable: string = processTagVariable,
): Promise<number> {
  let killed = 0;
  for (let round = 0; round < 5; round++) {
    const found = await findTagged(tag, variable);
    if (found.length === 0) return killed;
    for (const pid of found) {
      try {
        process.kill(pid, signal);
        killed++;
      } catch {
        // already gone
      }
    }
  }
  return killed;
}

/** The children list of a task (`/proc/<pid>/task/<tid>/children`), empty when unreadable. */
function readChildren(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The highest descriptor {@link coveredStdio} covers (a stdio array entry each). */
const MAX_COVERED_DESCRIPTOR = 4096;

/**
 * The descriptors (above stdio) this process holds without close-on-exec: every child would
 * inherit them. Node.js opens its own with close-on-exec, but one this process inherited (from
 * whatever started it) or a native module opened stays open across `exec` — a folder outside the
 * workspace, a socket to a daemon — and a descriptor reaches past every mount of a sandbox
 * (`/proc/self/fd/N/…`). Linux only (`/proc/self/fdinfo`).
 */
export function inheritableDescriptors(): number[] {
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${name}`, 'utf8'))?.[1];
      // O_CLOEXEC (octal 02000000) is shown in the flags.
      if (flags !== undefined && (Number.parseInt(flags, 8) & 0o2000000) === 0) out.push(fd);
    } catch {
      // closed meanwhile (the descriptor readdir used)
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * The stdio of a child: its first entries, then `/dev/null` (`nullFd`) over every inheritable
 * descriptor of this process, so none reaches the child.
 */
function coveredStdio(
  first: readonly ('ignore' | 'pipe' | number)[],
  inheritable: readonly number[],
  nullFd: number,
): ('ignore' | 'pipe' | number)[] {
  const stdio: ('ignore' | 'pipe' | number)[] = [...first];
  for (const fd of inheritable) {
    if (fd < first.length || fd > MAX_COVERED_DESCRIPTOR) continue;
    while (stdio.length < fd) stdio.push('ignore');
    stdio[fd] = nullFd;
  }
  return stdio;
}

/** Resolves once `pid` no longer exists (or is a zombie), or after `maxMs`. */
async function waitGone(pid: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return;
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs `executable` without a shell in its own process group, so a timeout or an abort kills
 * the whole tree (SIGTERM, then SIGKILL after a grace period). When the main process exits, what
 * is left of its group is killed, and so are descendants that left the group (`setsid`, double
 * fork): every process it starts inherits an environment tag that is looked for in `/proc`.
 * Stdin is closed (or gets `stdin`); stdout/stderr are capped and ANSI escapes removed. Rejects
 * only when the process cannot start or the signal aborts.
 */
export function runProcess(
  executable: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessRunResult> {
  const started = Date.now();
  const killGraceMs = options.killGraceMs ?? 1000;
  const reapDetached = (options.reapDetached ?? true) && process.platform === 'linux';
  const tag = options.tag ?? randomUUID();
  const scope = processScope.getStore();
  if (options.signal?.aborted) return Promise.reject(options.signal.reason ?? new Error('aborted'));
  // Activity until the process and its tree are gone: reaped, or in a pid namespace that dies with
  // it (`reapDetached: false`); for good where detached descendants are neither (not Linux):
  // nothing tells when they stop writing.
  const ended = beginWorkspaceActivity();
  const treeEnds = reapDetached || options.reapDetached === false;
  const running = new Promise<ProcessRunResult>((resolve, reject) => {
    const first: ('ignore' | 'pipe' | number)[] = [
      options.stdin === undefined ? 'ignore' : 'pipe',
      'pipe',
      'pipe',
      ...(options.infoFd ? (['pipe'] as const) : []),
      ...(options.statusFd !== undefined ? [options.statusFd] : []),
    ];
    // Descriptors this process would pass on: each gets `/dev/null` in the child instead.
    const inheritable = inheritableDescriptors();
    const nullFd = inheritable.length > 0 ? openSync('/dev/null', 'r') : undefined;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(executable, [...args], {
        cwd: options.cwd,
        env: {
          ...options.env,
          ...(reapDetached || options.tag !== undefined ? { [processTagVariable]: tag } : {}),
          ...(scope !== undefined ? { [processScopeVariable]: scope } : {}),
        },
        stdio: nullFd === undefined ? first : coveredStdio(first, inheritable, nullFd),
        detached: true,
        windowsHide: true,
        shell: false,
      });
    } finally {
      if (nullFd !== undefined) closeSync(nullFd);
    }
    if (child.pid !== undefined) {
      try {
        options.onSpawn?.(child.pid);
      } catch {
        // An observer's failure must not stop the process.
      }
    }
    const stdout = new CappedOutput(options.maxOutputBytes);
    const stderr = new CappedOutput(options.maxOutputBytes);
    const output = options.interleaved ? new CappedOutput(options.maxOutputBytes * 2) : undefined;
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      output?.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      output?.push(chunk);
    });
    if (options.stdin !== undefined && child.stdin) {
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }

    let timedOut = false;
    let limitExceeded: string | undefined;
    let settled = false;
    let exit: { code: number | null; signal: string | null } | undefined;
    const timers: ReturnType<typeof setTimeout>[] = [];
    let innerPid: number | undefined;
    if (options.infoFd) {
      let info = '';
      const stream = child.stdio[3] as NodeJS.ReadableStream | null | undefined;
      stream?.on('data', (chunk: Buffer) => {
        info += chunk.toString('utf8');
        const pid = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
        if (pid === undefined || innerPid !== undefined) return;
        if (!options.outerNamespace) innerPid = Number(pid);
        else {
          // bubblewrap runs, so `unshare` has forked the namespace's init: its only child.
          const init = /^\d+/.exec(readChildren(`/proc/${child.pid}/task/${child.pid}/children`))?.[0];
          if (init !== undefined) innerPid = Number(init);
        }
      });
      stream?.on('error', () => {});
    }
    /**
     * `waitForNamespace`: after killing a sandbox, wait for its pid namespace to end (when the
     * command exited by itself, its namespace ended before the sandbox process did).
     */
    const killAll = async (signal: NodeJS.Signals, waitForNamespace = signal === 'SIGKILL') => {
      killGroup(child.pid, signal);
      if (reapDetached) await killTagged(tag, signal);
      if (waitForNamespace && innerPid !== undefined) await waitGone(innerPid, 2_000);
    };
    const terminate = () => {
      void killAll('SIGTERM');
      timers.push(setTimeout(() => void killAll('SIGKILL'), killGraceMs));
    };
    let watching: ReturnType<typeof setInterval> | undefined;
    const cleanup = () => {
      settled = true;
      if (watching !== undefined) clearInterval(watching);
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    let finishing = false;
    const finish = async () => {
      if (settled || finishing || exit === undefined) return;
      finishing = true;
      // Leftovers of the tree, in the group or detached from it.
      await killAll('SIGKILL', timedOut || limitExceeded !== undefined);
      if (settled) return;
      cleanup();
      const result: ProcessRunResult = {
        exitCode: exit.code,
        signal: exit.signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.truncated || stderr.truncated || (output?.truncated ?? false),
        durationMs: Date.now() - started,
      };
      if (limitExceeded !== undefined) result.limitExceeded = limitExceeded;
      if (output) result.output = output.text();
      resolve(result);
    };
    const onAbort = () => {
      if (settled) return;
      cleanup();
      const reason = options.signal?.reason ?? new Error('aborted');
      killAll('SIGKILL').then(
        () => reject(reason),
        () => reject(reason),
      );
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        terminate();
      }, options.timeoutMs),
    );

    const watch = options.watch;
    if (watch !== undefined) {
      let checking = false;
      watching = setInterval(() => {
        if (checking || settled || limitExceeded !== undefined) return;
        checking = true;
        watch.check().then(
          (reason) => {
            checking = false;
            if (reason === undefined || settled || limitExceeded !== undefined) return;
            limitExceeded = reason;
            if (watching !== undefined) clearInterval(watching);
            void killAll('SIGKILL');
          },
          () => {
            checking = false;
          },
        );
      }, watch.intervalMs);
    }

    child.on('error', (error) => {
      if (settled) return;
      cleanup();
      void killAll('SIGKILL');
      reject(error);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // A grandchild may hold the pipes open: do not wait for it for long.
      timers.push(
        setTimeout(() => {
          void killAll('SIGKILL');
          child.stdout?.destroy();
          child.stderr?.destroy();
          void finish();
        }, 200),
      );
    });
    child.on('close', (code, signal) => {
      exit ??= { code, signal };
      void finish();
    });
  });
  if (treeEnds) running.then(ended, ended);
  return running;
}
