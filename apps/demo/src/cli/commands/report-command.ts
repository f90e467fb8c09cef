import type { RunEvent } from '@closedloop/cortex';
import type { Command } from 'commander';
import { DemoError } from '../../demo-error';
import type { CliContext } from '../cli-context';
import { action, addJournalOption, addJsonOption, addStoreOption, usageAfterError } from '../cli-options';

/** `closedloop report <runId>`: re-renders a run from its journal. */
export function registerReportCommand(program: Command, context: CliContext): void {
  const command = addJsonOption(
    addStoreOption(
      addJournalOption(
        program
          .command('report')
          .description('re-render a run from its journal')
          .argument('<runId>', 'the run to show'),
      ),
    ),
    'print the journaled events as JSON on stdout',
  );
  usageAfterError(command);
  action(
    command,
    context,
    async (runId: string, flags: { journal?: string; store?: string; json: boolean }) => {
      const { io } = context;
      // Loaded on use, so `--help` and `--version` stay fast.
      const { createTerminalView } = await import('../../view/terminal-view');
      const render = (events: readonly RunEvent[]) => {
        const view = createTerminalView({ stream: io.stdout, live: false });
        for (const event of events) view.onEvent(event);
        view.close();
      };
      if (flags.store) {
        const { createScaleOutRunner } = await import('../../scale-out/scale-out-runner');
        const events = await createScaleOutRunner({ store: flags.store }).readRun(runId);
        if (!events) throw new DemoError('unknown-run', `No journal for run "${runId}" in ${flags.store}.`);
        if (flags.json) io.stdout.write(`${JSON.stringify(events, null, 2)}\n`);
        else render(events);
        return 0;
      }
      const [{ createDemoRunner }, { renderJournalProblem }, { journalDir, legacyJournalHint }] =
        await Promise.all([
          import('../../runner/demo-runner'),
          import('../../journal-problem'),
          import('../../runner/journal-dir'),
        ]);
      const journal = journalDir(flags.journal, io);
      const { exists, events, problem } = await createDemoRunner({ journal, env: io.env }).inspectRun(runId);
      if (!exists && !problem)
        throw new DemoError(
          'unknown-run',
          `No journal for run "${runId}" in ${journal}.${legacyJournalHint(runId, flags.journal, io)}`,
        );
      if (problem) {
        // What is intact, then exactly what is wrong (and what to do).
        render(events);
        io.stdout.write(renderJournalProblem(runId, problem, events.length));
        io.stderr.write(`error: ${problem.message} (CortexError ${problem.code})\n`);
        return 1;
      }
      if (flags.json) io.stdout.write(`${JSON.stringify(events, null, 2)}\n`);
      else render(events);
      return 0;
    },
  );
}
