import type { UncertainCallPolicy } from '@closedloop/cortex';
import { type Command, Option } from 'commander';
import { cliApprovals } from '../approval-answers';
import { DemoError } from '../demo-error';
import type { CliContext } from './cli-context';

/**
 * The `--on-uncertain` choices: cortex's `uncertainCallPolicies`, spelled out here so `--help`
 * does not load cortex (a test keeps the two lists equal).
 */
export const uncertainPolicyChoices = [
  'ask',
  'rerun',
  'fail',
] as const satisfies readonly UncertainCallPolicy[];

/** Flags that decide how a run's approvals and uncertain calls are answered. */
export interface ApprovalFlags {
  approve: boolean;
  deny: boolean;
  onUncertain: UncertainCallPolicy;
}

/** Adds `--approve`, `--deny` and `--on-uncertain` (and `--repair` for resume). */
export function addApprovalOptions(command: Command, options: { repair?: boolean } = {}): Command {
  command
    .option('--approve', 'answer yes to every approval (guarded calls, reviews, interrupted commands)', false)
    .option('--deny', 'answer no to every approval (default without a terminal)', false)
    .addOption(
      new Option(
        '--on-uncertain <policy>',
        'a command interrupted without a recorded result: ask, rerun or fail',
      )
        .choices(uncertainPolicyChoices)
        .default('ask'),
    );
  if (options.repair) {
    command.option(
      '--repair',
      'drop a torn last journal line (left by a crash in the middle of a write)',
      false,
    );
  }
  return command;
}

/**
 * The run's approval handler from the flags: `--approve` / `--deny` answer everything; without
 * them a prompt when stdin and stderr are a terminal; otherwise none (every request is denied).
 */
export function approvalsFromFlags(context: CliContext, flags: Pick<ApprovalFlags, 'approve' | 'deny'>) {
  if (flags.approve && flags.deny)
    throw new DemoError('invalid-argument', 'Give --approve or --deny, not both.');
  return cliApprovals({
    answer: flags.approve ? 'approve' : flags.deny ? 'deny' : undefined,
    stdin: process.stdin,
    stderr: context.io.stderr,
  });
}
