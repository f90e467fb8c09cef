import type { Command } from 'commander';
import { type ApprovalFlags, addApprovalOptions, approvalsFromFlags } from '../approval-options';
import type { CliContext } from '../cli-context';
import { action, addRunOptions, type RunFlags, usageAfterError } from '../cli-options';
import { loadRunCommandParts } from './load-on-use';

/** `closedloop demo`: the offline isPrime scenario on a scripted model (no key, no network). */
export function registerDemoCommand(program: Command, context: CliContext): void {
  const command = addApprovalOptions(
    addRunOptions(
      program
        .command('demo')
        .description(
          'run the offline scenario: a scripted model, false claims caught by evidence, replanned',
        ),
    ),
  );
  usageAfterError(command);
  action(command, context, async (flags: RunFlags & ApprovalFlags) => {
    const { runnerFromFlags, runAndRender } = await loadRunCommandParts();
    const onApproval = approvalsFromFlags(context, flags);
    const runner = runnerFromFlags(context, flags)();
    return runAndRender(context, {
      json: flags.json,
      journal: flags.journal,
      ...(onApproval ? { onApproval } : {}),
      store: flags.store,
      start: (hooks) => runner.startRun({ mode: flags.mode, ...hooks }),
    });
  });
}
