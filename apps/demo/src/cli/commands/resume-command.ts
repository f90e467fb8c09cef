import type { Command } from 'commander';
import { DemoError } from '../../demo-error';
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
        start: (hooks) =>
          runner.resumeRun({ runId, repair: flags.repair, ...hooks }).catch(async (error: unknown) => {
            // A run of an earlier version, in the journal folder it used: say where it is.
            if (!DemoError.isInstance(error) || error.code !== 'unknown-run' || flags.store) throw error;
            const { legacyJournalHint } = await import('../../runner/journal-dir');
            const hint = legacyJournalHint(runId, flags.journal, context.io);
            throw hint ? new DemoError('unknown-run', `${error.message}${hint}`) : error;
          }),
      });
    },
  );
}
