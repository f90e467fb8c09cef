import type { Command } from 'commander';
import { type ApprovalFlags, addApprovalOptions, approvalsFromFlags } from '../approval-options';
import type { CliContext } from '../cli-context';
import { action, addJournalOption, addJsonOption, addStoreOption, usageAfterError } from '../cli-options';
import { loadRunCommandParts } from './load-on-use';

/** `closedloop resume <runId>`: continues an interrupted run from its journal. */
export function registerResumeCommand(program: Command, context: CliContext): void {
  const command = addApprovalOptions(
    addJsonOption(
      addStoreOption(
        addJournalOption(
          program
            .command('resume')
            .description('continue an interrupted run (cancelled, deadline, budget, crash) from its journal')
            .argument('<runId>', 'the run to continue (printed when it stopped)'),
        ),
      ),
      'print the full RunResult as JSON on stdout',
    ),
    { repair: true },
  );
  usageAfterError(command);
  action(
    command,
    context,
    async (
      runId: string,
      flags: { journal?: string; store?: string; json: boolean; repair: boolean } & ApprovalFlags,
    ) => {
      const { runnerFromFlags, runAndRender } = await loadRunCommandParts();
      const onApproval = approvalsFromFlags(context, flags);
      const runner = runnerFromFlags(context, flags)();
      return runAndRender(context, {
        json: flags.json,
        journal: flags.journal,
        ...(onApproval ? { onApproval } : {}),
        store: flags.store,
        start: (hooks) => runner.resumeRun({ runId, repair: flags.repair, ...hooks }),
      });
    },
  );
}
