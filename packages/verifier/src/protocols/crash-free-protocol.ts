import type { ToolCallRecord } from '@closedloop/plan';
import { excerpt, type Finding } from '../finding';
import type { Protocol, ProtocolContext } from '../protocol';
import { createRerunPolicy } from '../rerun-policy';
import { commandProblem } from '../run-command';
import { hasCommandRuns, lastCommandRuns } from './static-protocols';

/**
 * Signatures a process prints only when it dies of an uncaught error — not when a test runner
 * reports a failed assertion (runners catch those and print their own summaries).
 */
const CRASH_SIGNATURES: { pattern: RegExp; label: string }[] = [
  // Node prints its version after the stack of an uncaught exception or rejection, then exits.
  { pattern: /^Node\.js v\d+\.\d+\.\d+\s*$/m, label: 'uncaught JavaScript exception' },
  { pattern: /FATAL ERROR: .*JavaScript heap out of memory/, label: 'JavaScript heap out of memory' },
  { pattern: /^panic: .+\n(?:[\s\S]*?\n)?goroutine \d+ \[/m, label: 'Go panic' },
  {
    pattern: /^fatal error: (?:runtime: out of memory|all goroutines are asleep|concurrent map)/m,
    label: 'Go fatal error',
  },
  { pattern: /thread 'main' panicked at/, label: 'Rust panic in main' },
  { pattern: /^Exception in thread "main" [\w.$]+/m, label: 'uncaught Java exception' },
  { pattern: /^Fatal Python error: /m, label: 'fatal Python error' },
  {
    pattern: /\bSegmentation fault\b|\(core dumped\)|\bkilled by SIG(?:SEGV|ABRT|BUS|ILL|FPE)\b/,
    label: 'process killed by a fatal signal',
  },
];

/** A Python traceback that ends the output: the interpreter died of it (a runner would summarise). */
const PYTHON_EXCEPTION_LINE =
  /^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Warning)\b(?::.*)?$/;

/** The crash a command's recorded output shows, if any. */
export function findRuntimeCrash(output: string): { label: string; line: string } | undefined {
  for (const { pattern, label } of CRASH_SIGNATURES) {
    const match = pattern.exec(output);
    if (match) return { label, line: match[0].split('\n')[0]?.trim().slice(0, 300) ?? '' };
  }
  const traceback = output.lastIndexOf('Traceback (most recent call last):');
  if (traceback !== -1) {
    const tail = output
      .slice(traceback)
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => line !== '' && !/^\(output was truncated\)$/.test(line));
    const last = tail.at(-1) ?? '';
    if (PYTHON_EXCEPTION_LINE.test(last))
      return { label: 'uncaught Python exception', line: last.slice(0, 300) };
  }
  return undefined;
}

const RERUN_TIMEOUT_MS = 20_000;

/** The argv and working folder of a recorded `run_command`-style call, when it has one. */
function recordedCommand(call: ToolCallRecord): { argv: string[]; cwd?: string } | undefined {
  const args = call.args as { argv?: unknown; cwd?: unknown } | undefined;
  if (
    !Array.isArray(args?.argv) ||
    args.argv.length === 0 ||
    !args.argv.every((arg) => typeof arg === 'string')
  )
    return undefined;
  return { argv: args.argv as string[], ...(typeof args.cwd === 'string' ? { cwd: args.cwd } : {}) };
}

/**
 * Judges one crashed run: the crash stands unless re-running the same command now (when the
 * re-run policy allows it) shows no crash — the work may have fixed it since.
 */
async function judgeCrash(
  ctx: ProtocolContext,
  call: ToolCallRecord,
  crash: { label: string; line: string },
): Promise<Finding> {
  const base = { check: 'CRASH_FREE', priority: 'P0' as const };
  const what = `The last ${call.tool} run (${JSON.stringify(call.args).slice(0, 120)})`;
  const recorded: Finding = {
    ...base,
    status: 'fail',
    message: `${what} crashed: ${crash.label} (${crash.line}).`,
    evidence: { callId: call.callId, output: crash.line },
  };
  const command = recordedCommand(call);
  if (!command) return recorded;
  const mayRerun = createRerunPolicy({ ledger: ctx.ledger, tooling: () => ctx.tooling() });
  if (!(await mayRerun(command.argv))) return recorded;
  const rerun = await ctx.run(command.argv, {
    timeoutMs: RERUN_TIMEOUT_MS,
    ...(command.cwd !== undefined ? { cwd: command.cwd } : {}),
  });
  const evidence = { command: command.argv, exitCode: rerun.exitCode, output: excerpt(rerun.output, 1500) };
  const again = findRuntimeCrash(rerun.output);
  if (again) {
    return {
      ...base,
      status: 'fail',
      message: `${what} crashed (${crash.label}) and still crashes when re-run now: ${again.label} (${again.line}).`,
      evidence,
    };
  }
  const problem = commandProblem(rerun);
  if (problem !== undefined && !rerun.timedOut) {
    return {
      ...recorded,
      message: `${recorded.message} A re-run to see whether it is fixed could not finish: ${problem}.`,
    };
  }
  return {
    ...base,
    status: 'pass',
    message: `${what} crashed during the work (${crash.label}); re-run now, it ${
      rerun.timedOut
        ? `ran ${RERUN_TIMEOUT_MS / 1000} s without crashing`
        : `exits ${rerun.exitCode} without crashing`
    }.`,
    evidence,
  };
}

/**
 * CRASH_FREE (layer 1, P0): no program the work ran died of a runtime crash in its last run —
 * an uncaught exception (Node's, Python's traceback ending the output, Java's `Exception in
 * thread "main"`), a Go or Rust panic, a fatal signal (segmentation fault, abort), running out
 * of memory. Failed assertions reported by a test runner are TEST's business, not crashes. A
 * crashed command the re-run policy allows (`createRerunPolicy`) is re-run now: if it no
 * longer crashes, the work fixed it.
 */
export const crashFreeProtocol: Protocol = {
  name: 'CRASH_FREE',
  description:
    'No command run by the work ended in a runtime crash (uncaught exception, panic, fatal signal).',
  priority: 'P0',
  layer: 1,
  group: 2,
  timeoutMs: 120_000,
  appliesTo(ctx) {
    return hasCommandRuns(ctx.ledger);
  },
  async run(ctx): Promise<Finding[]> {
    const runs = lastCommandRuns(ctx.ledger);
    const findings: Finding[] = [];
    for (const call of runs) {
      const crash = findRuntimeCrash(`${call.result ?? ''}\n${call.error ?? ''}`);
      if (crash) findings.push(await judgeCrash(ctx, call, crash));
    }
    if (findings.length === 0) {
      findings.push({
        check: 'CRASH_FREE',
        priority: 'P0',
        status: 'pass',
        message: `No runtime crash in the last run of ${runs.length} command(s).`,
      });
    }
    return findings;
  },
};
