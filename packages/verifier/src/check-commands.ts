import { excerpt, type Finding } from './finding';
import type { LedgerAnalysis } from './ledger-evidence';
import { isMissingProgram } from './protocols/command-protocols';
import { type CommandResult, commandProblem } from './run-command';

/** What {@link checkFailedCommands} needs. */
export interface FailedCommandsEnvironment {
  ledger: LedgerAnalysis;
  allowCommand(argv: readonly string[]): boolean | Promise<boolean>;
  rerun(argv: readonly string[]): Promise<CommandResult>;
  /** The step was asked to produce a failing run (a reproduction, a failing test first). */
  failureExpected?: boolean;
}

/**
 * The ledger as evidence against the step: a command that ran and failed (non-zero exit,
 * timeout, kill — as its tool reported, whatever it printed) contradicts success until the same
 * command succeeds — later in the ledger, or when the verifier re-runs it now (policy
 * permitting; never for a run the tool ended by timeout or signal: only the step's own complete
 * run of it counts). Exploratory commands (`ls`, `grep`, `git status`) never count. Each
 * unrecovered failure is P1; one that passes on re-run is a P2 warning.
 */
export async function checkFailedCommands(env: FailedCommandsEnvironment): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const { run, callId } of env.ledger.failedCommands) {
    if (env.failureExpected && run.test) continue;
    const label = `\`${run.argv.join(' ')}\``;
    const ended = run.exitCode === null ? 'did not finish (timed out or killed)' : `exited ${run.exitCode}`;
    const evidence = { command: run.argv, exitCode: run.exitCode, output: excerpt(run.output, 1500), callId };
    // Cut off by a timeout or a signal and never run to its end again: whatever the step says
    // after it, it never saw the command finish. A re-run by the verifier would be the verifier's
    // run (and would do the command's work for the step), not the step's.
    if (run.killed) {
      findings.push({
        check: 'commands',
        priority: 'P1',
        status: 'fail',
        message: `${label} was ended by a timeout or a signal in call ${callId} and the step never ran it to its end again: success after a run that never finished is unverified.`,
        evidence,
      });
      continue;
    }
    if (await env.allowCommand(run.argv)) {
      const result = await env.rerun(run.argv);
      const problem = commandProblem(result);
      if (problem === undefined && result.exitCode === 0) {
        findings.push({
          check: 'commands',
          priority: 'P2',
          status: 'warn',
          message: `${label} ${ended} in call ${callId} and was not re-run by the step, but it exits 0 now.`,
          evidence: { ...evidence, exitCode: 0 },
        });
        continue;
      }
      const now =
        problem ?? (isMissingProgram(result) ? 'cannot start its program' : `still exits ${result.exitCode}`);
      findings.push({
        check: 'commands',
        priority: 'P1',
        status: 'fail',
        message: `${label} ${ended} in call ${callId}, no later run succeeded, and re-run now it ${now}.`,
        evidence,
      });
      continue;
    }
    findings.push({
      check: 'commands',
      priority: 'P1',
      status: 'fail',
      message: `${label} ${ended} in call ${callId} and no later run of it succeeded.`,
      evidence,
    });
  }
  return findings;
}
