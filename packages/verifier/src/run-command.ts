import { spawn } from 'node:child_process';

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  /** The program and its arguments. Never run through a shell. */
  argv: readonly string[];
  /** Working directory (absolute). */
  cwd: string;
  /** Kill the process (group) after this many milliseconds. Default 120 000. */
  timeoutMs?: number;
  /** Keep at most this many characters of output (head and tail). Default 200 000. */
  maxOutputChars?: number;
  /** Extra environment variables, merged over `process.env` and the non-interactive defaults. */
  env?: Record<string, string>;
  /** Aborting kills the process; the result then has `aborted: true`. */
  signal?: AbortSignal;
  /** Written to the process's stdin, then stdin is closed. */
  stdin?: string;
}

/** What a command did. `runCommand` never throws: a missing program is `spawnError`. */
export interface CommandResult {
  argv: string[];
  /** `null` when the process was killed by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended the process, if any. */
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the program could not be started (e.g. `ENOENT`: not installed). */
  spawnError?: string;
  /** Standard output (capped). */
  stdout: string;
  /** Standard output and error interleaved as they arrived (capped). */
  output: string;
  /** True when output was cut to the cap. */
  truncated: boolean;
  durationMs: number;
}

/** Keeps the first quarter and the last three quarters of a capped stream. */
class CappedBuffer {
  #head = '';
  #tail = '';
  #cut = 0;
  readonly #headMax: number;
  readonly #tailMax: number;

  constructor(max: number) {
    this.#headMax = Math.floor(max / 4);
    this.#tailMax = max - this.#headMax;
  }

  push(chunk: string): void {
    if (this.#head.length < this.#headMax) {
      const room = this.#headMax - this.#head.length;
      this.#head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk === '') return;
    this.#tail += chunk;
    if (this.#tail.length > this.#tailMax * 2) this.#trim();
  }

  #trim(): void {
    const over = this.#tail.length - this.#tailMax;
    if (over > 0) {
      this.#cut += over;
      this.#tail = this.#tail.slice(over);
    }
  }

  get truncated(): boolean {
    this.#trim();
    return this.#cut > 0;
  }

  toString(): string {
    this.#trim();
    if (this.#cut === 0) return this.#head + this.#tail;
    return `${this.#head}\n… [${this.#cut} characters cut] …\n${this.#tail}`;
  }
}

/** Non-interactive defaults: no colours, CI behaviour (no watch modes, no prompts). */
const BASE_ENV: Record<string, string> = {
  CI: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  NO_UPDATE_NOTIFIER: '1',
  npm_config_update_notifier: 'false',
  // `npx` and `npm exec` never install a missing package (in CI they would, without asking).
  npm_config_yes: 'false',
  GIT_TERMINAL_PROMPT: '0',
};

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
 * Runs a command as an argv array (`spawn` without a shell) with a timeout, an output cap and
 * abort support. The process runs in its own process group so a timeout kills its children
 * too (SIGTERM, then SIGKILL after 2 s). Never throws.
 *
 * @example
 * const result = await runCommand({ argv: ['node', '--test'], cwd: root, timeoutMs: 60_000 });
 * if (result.exitCode === 0) console.log('tests pass');
 */
export function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const argv = [...options.argv];
  const started = performance.now();
  const maxOutput = options.maxOutputChars ?? 200_000;
  const stdout = new CappedBuffer(maxOutput);
  const output = new CappedBuffer(maxOutput);
  const finish = (partial: Partial<CommandResult>): CommandResult => ({
    argv,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: stdout.toString(),
    output: output.toString(),
    truncated: stdout.truncated || output.truncated,
    durationMs: performance.now() - started,
    ...partial,
  });
  const [program, ...args] = argv;
  if (program === undefined || program === '') {
    return Promise.resolve(finish({ spawnError: 'empty argv: nothing to run' }));
  }
  if (options.signal?.aborted) return Promise.resolve(finish({ aborted: true }));

  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let spawnError: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: { ...process.env, ...BASE_ENV, ...options.env },
      shell: false,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stop = () => {
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs ?? 120_000);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout.push(chunk);
      output.push(chunk);
    });
    child.stderr?.on('data', (chunk: string) => output.push(chunk));
    if (options.stdin !== undefined && child.stdin) {
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }
    const settle = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer && !timedOut && !aborted) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(
        finish({
          exitCode,
          signal,
          timedOut,
          aborted,
          ...(spawnError !== undefined ? { spawnError } : {}),
        }),
      );
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError =
        error.code === 'ENOENT'
          ? `command not found: ${program} (ENOENT)`
          : `${error.code ?? 'error'}: ${error.message}`;
      settle(null, null);
    });
    child.on('close', (code, signal) => settle(code, signal));
  });
}

/** A one-line description of why a command did not produce a usable exit code, or undefined. */
export function commandProblem(result: CommandResult): string | undefined {
  if (result.spawnError !== undefined) return result.spawnError;
  if (result.timedOut) return `timed out after ${Math.round(result.durationMs)} ms`;
  if (result.aborted) return 'aborted';
  if (result.exitCode === null) return `killed by ${result.signal ?? 'a signal'}`;
  return undefined;
}
