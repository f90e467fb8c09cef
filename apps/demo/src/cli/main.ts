import { ClosedloopError } from '@closedloop/model/error';
import { CommanderError } from 'commander';
import { DemoError } from '../demo-error';
import { terminalSafe, terminalSafeLines } from '../view/terminal-safe';
import type { CliContext, CliIo } from './cli-context';
import { createProgram } from './program';

/** Cortex codes that mean the command line asked for something impossible (exit 2, like a usage error). */
const usageCodes = new Set([
  'invalid-request',
  'invalid-options',
  'invalid-run-id',
  'unknown-run',
  'run-exists',
  'run-active',
  // Another process owns the run: "run X is being resumed by pid N on host H".
  'run-leased',
  // A damaged journal refuses resume (never a silent restart).
  'journal-missing',
  'journal-empty',
  'journal-truncated',
  'journal-corrupt',
  'journal-version',
  'journal-rolled-back',
  'journal-mismatch',
  // A resume on another workspace or without the run's tools.
  'resume-mismatch',
]);

/** The one line a typed error deserves, and its exit code; `undefined` for anything unexpected. */
export function describeTypedError(error: unknown): { line: string; exitCode: number } | undefined {
  if (DemoError.isInstance(error)) return { line: terminalSafe(`error: ${error.message}`), exitCode: 2 };
  // Every closedloop error (any package, any copy) is typed, with a message meant for users.
  if (!ClosedloopError.isInstance(error)) return undefined;
  const { code, name, message } = error;
  // A message may quote what a model or a command wrote: shown on the terminal, never obeyed.
  return {
    line: terminalSafe(`error: ${message} (${name} ${code})`),
    exitCode: usageCodes.has(code) ? 2 : 1,
  };
}

/** What the CLI prints for a crash: the stack (it is a bug) and what to do about it. */
export function describeCrash(error: unknown): string {
  const stack = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  return (
    `${terminalSafeLines(stack)}\n\n` +
    'closedloop crashed: this is a bug in closedloop, not in your command. Please report it with the stack ' +
    'trace above and the command you ran. Your runs are safe in their journal: "closedloop resume <runId>" continues one.\n'
  );
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and resolves with the exit code: 0 on
 * success, 1 when a run did not complete, 2 for a bad command line or a refused request (one
 * line, no stack trace). An unexpected crash prints its stack with a hint and resolves with 1.
 */
export async function main(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const context: CliContext = {
    io: {
      stdout: io.stdout ?? process.stdout,
      stderr: io.stderr ?? process.stderr,
      env: io.env ?? process.env,
      cwd: io.cwd ?? process.cwd(),
      binPath: io.binPath ?? process.argv[1] ?? 'closedloop',
    },
    exitCode: 0,
  };
  try {
    if (argv.length === 0) {
      createProgram(context).outputHelp({ error: true });
      return 2;
    }
    await createProgram(context).parseAsync(argv, { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const typed = describeTypedError(error);
    if (typed) {
      context.io.stderr.write(`${typed.line}\n`);
      return typed.exitCode;
    }
    context.io.stderr.write(describeCrash(error));
    return 1;
  }
}
