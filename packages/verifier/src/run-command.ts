import path from 'node:path';
import { type CommandRunner, createCommandRunner, ToolError } from '@closedloop/tools';
import { beginWorkspaceActivity } from '@closedloop/tools/internal';

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  /** The program and its arguments. Never run through a shell; checked by the command policy. */
  argv: readonly string[];
  /** Working directory (absolute, inside the workspace). */
  cwd: string;
  /** The workspace root the command is confined to. Default `cwd` (or the runner's root). */
  root?: string;
  /**
   * The runner to use — pass the one `run_command` uses, so both share one policy and sandbox.
   * Default: a runner with the default policy and `sandbox: 'auto'` for `root`.
   */
  runner?: CommandRunner;
  /** Kill the process tree after this many milliseconds. Default 120 000. */
  timeoutMs?: number;
  /** Keep at most this many characters of output (head and tail). Default 200 000. */
  maxOutputChars?: number;
  /** Extra environment variables over the minimal environment (variables that inject code are refused). */
  env?: Record<string, string>;
  /** Aborting kills the process tree; the result then has `aborted: true`. */
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
  /** Set when the program could not be started (not installed, sandbox required but missing…). */
  spawnError?: string;
  /** Set when the command policy refused the command (it did not run). */
  denied?: string;
  /** Standard output (capped). */
  stdout: string;
  /** Standard output and error interleaved as they arrived (capped). */
  output: string;
  /** True when output was cut to the cap. */
  truncated: boolean;
  durationMs: number;
  /** Whether it ran inside the bubblewrap sandbox. */
  sandboxed?: boolean;
}

/**
 * Runs a command through the product's one process runner (`createCommandRunner` of
 * `@closedloop/tools`): the same command policy, minimal environment, sandbox and process-tree
 * kill as `run_command`. Never throws: a refused command is `denied`, a program that cannot start
 * is `spawnError`, an abort is `aborted`.
 *
 * @example
 * const result = await runCommand({ argv: ['node', '--test'], cwd: root, timeoutMs: 60_000 });
 * if (result.exitCode === 0) console.log('tests pass');
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const argv = [...options.argv];
  const started = performance.now();
  const empty = (partial: Partial<CommandResult>): CommandResult => ({
    argv,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: '',
    output: '',
    truncated: false,
    durationMs: performance.now() - started,
    ...partial,
  });
  if (argv.length === 0 || argv[0] === '') return empty({ spawnError: 'empty argv: nothing to run' });
  if (options.signal?.aborted) return empty({ aborted: true });
  let runner: CommandRunner;
  try {
    runner = options.runner ?? createCommandRunner({ root: options.root ?? options.cwd });
  } catch (error) {
    return empty({ spawnError: error instanceof Error ? error.message : String(error) });
  }
  const cwd = path.relative(runner.root, path.resolve(options.cwd)) || '.';
  const maxOutputChars = options.maxOutputChars ?? 200_000;
  // Activity until the runner is done, whatever runner it is (its own processes, its clean-up).
  const ended = beginWorkspaceActivity();
  try {
    const result = await runner.run(argv, {
      cwd,
      timeoutMs: options.timeoutMs ?? 120_000,
      maxOutputBytes: Math.max(64, Math.ceil(maxOutputChars / 2)),
      interleaved: true,
      // Evidence comes from the sources as they are now: Python would reuse bytecode cached for a
      // file of the same size and second (an edit within the second of the last run, `a - b` →
      // `a + b`, would be judged by the old code), or a `.pyc` a step forged. The runner keeps
      // Python off the workspace's bytecode (and writes none); the interpreter's own is read.
      ignoreWorkspaceBytecode: true,
      ...(options.env ? { env: options.env } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    });
    return {
      argv,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      aborted: false,
      stdout: result.stdout,
      output: (result.output ?? `${result.stdout}${result.stderr}`).replace(
        /\[… (\d+) bytes omitted …\]/g,
        '… [$1 characters cut] …',
      ),
      truncated: result.truncated,
      durationMs: result.durationMs,
      sandboxed: result.sandboxed,
    };
  } catch (error) {
    if (options.signal?.aborted) return empty({ aborted: true });
    if (ToolError.isInstance(error)) {
      if (error.code === 'command-denied' || error.code === 'path-escape')
        return empty({ denied: error.message });
      if (error.code === 'execution-failed' && /not found on PATH/.test(error.message))
        return empty({ spawnError: `command not found: ${argv[0]} (ENOENT)` });
      return empty({ spawnError: error.message });
    }
    const code = (error as NodeJS.ErrnoException)?.code;
    return empty({
      spawnError:
        code === 'ENOENT'
          ? `command not found: ${argv[0]} (ENOENT)`
          : `${code ?? 'error'}: ${error instanceof Error ? error.message : String(error)}`,
    });
  } finally {
    ended();
  }
}

/** A one-line description of why a command did not produce a usable exit code, or undefined. */
export function commandProblem(result: CommandResult): string | undefined {
  if (result.denied !== undefined) return `was refused by the command policy (${result.denied})`;
  if (result.spawnError !== undefined) return result.spawnError;
  if (result.timedOut) return `timed out after ${Math.round(result.durationMs)} ms`;
  if (result.aborted) return 'aborted';
  if (result.exitCode === null) return `killed by ${result.signal ?? 'a signal'}`;
  return undefined;
}
