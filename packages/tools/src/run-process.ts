import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';

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
  /** Called with the process id once the process started (it leads its own process group). */
  onSpawn?: (pid: number) => void;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC
const ansiPattern = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

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
 * Runs `executable` without a shell in its own process group, so a timeout or an abort kills
 * the whole tree (SIGTERM, then SIGKILL after a grace period). Leftover processes of the group
 * are killed when the main process exits. Stdin is closed; stdout/stderr are capped and ANSI
 * escapes removed. Rejects only when the process cannot start or the signal aborts.
 */
export function runProcess(
  executable: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessResult> {
  const started = Date.now();
  const killGraceMs = options.killGraceMs ?? 1000;
  return new Promise<ProcessResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason ?? new Error('aborted'));
      return;
    }
    const child = spawn(executable, [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
      shell: false,
    });
    if (child.pid !== undefined) {
      try {
        options.onSpawn?.(child.pid);
      } catch {
        // An observer's failure must not stop the process.
      }
    }
    const stdout = new CappedOutput(options.maxOutputBytes);
    const stderr = new CappedOutput(options.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let settled = false;
    let exit: { code: number | null; signal: string | null } | undefined;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const terminate = () => {
      killGroup(child.pid, 'SIGTERM');
      timers.push(setTimeout(() => killGroup(child.pid, 'SIGKILL'), killGraceMs));
    };
    const cleanup = () => {
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const finish = () => {
      if (settled || exit === undefined) return;
      cleanup();
      killGroup(child.pid, 'SIGKILL'); // leftovers of the tree
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
        durationMs: Date.now() - started,
      });
    };
    const onAbort = () => {
      if (settled) return;
      killGroup(child.pid, 'SIGKILL');
      cleanup();
      reject(options.signal?.reason ?? new Error('aborted'));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        terminate();
      }, options.timeoutMs),
    );

    child.on('error', (error) => {
      if (settled) return;
      cleanup();
      killGroup(child.pid, 'SIGKILL');
      reject(error);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // A grandchild may hold the pipes open: do not wait for it for long.
      timers.push(
        setTimeout(() => {
          killGroup(child.pid, 'SIGKILL');
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, 200),
      );
    });
    child.on('close', (code, signal) => {
      exit ??= { code, signal };
      finish();
    });
  });
}
