import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DemoError } from '../../demo-error';
import { createDemoRunner } from '../../runner/demo-runner';
import { createScaleOutRunner } from '../../scale-out/scale-out-runner';
import { createTerminalView } from '../../view/terminal-view';
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
    async (runId: string, flags: { journal: string; store?: string; json: boolean }) => {
      const { io } = context;
      const journal = flags.store ?? resolve(io.cwd, flags.journal);
      const events = await (flags.store
        ? createScaleOutRunner({ store: flags.store })
        : createDemoRunner({ journal, env: io.env })
      ).readRun(runId);
      if (!events) throw new DemoError('unknown-run', `No journal for run "${runId}" in ${journal}.`);
      if (flags.json) {
        io.stdout.write(`${JSON.stringify(events, null, 2)}\n`);
        return 0;
      }
      const view = createTerminalView({ stream: io.stdout, live: false });
      for (const event of events) view.onEvent(event);
      view.close();
      return 0;
    },
  );
}
