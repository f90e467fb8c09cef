import type { Command } from 'commander';
import { DemoError } from '../../demo-error';
import { type ApprovalFlags, addApprovalOptions, approvalsFromFlags } from '../approval-options';
import type { CliContext } from '../cli-context';
import {
  action,
  addModelOptions,
  addRunOptions,
  type ModelFlags,
  type RunFlags,
  usageAfterError,
} from '../cli-options';
import { loadRunCommandParts } from './load-on-use';

/** `closedloop run "<task>"`: a typed task on a real model; refused when no model is configured. */
export function registerRunCommand(program: Command, context: CliContext): void {
  const command = addApprovalOptions(
    addRunOptions(
      addModelOptions(
        program
          .command('run')
          .description('run a task with a real model (OpenAI, Anthropic or an OpenAI-compatible server)')
          .argument('[task...]', 'what to do, e.g. "Add an isPrime function with tests"'),
      ),
    ),
  );
  usageAfterError(command, 'To watch the offline scenario instead (no key needed): closedloop demo');
  action(command, context, async (words: string[], flags: RunFlags & ModelFlags & ApprovalFlags) => {
    const [{ runnerFromFlags, runAndRender }, { noModelMessage, selectModel }] = await Promise.all([
      loadRunCommandParts(),
      import('../../runner/select-model'),
    ]);
    // Flags first (a bad --journal is reported as such), then the task, then the model.
    const runnerFor = runnerFromFlags(context, flags);
    const task = words.join(' ').trim();
    if (!task) {
      throw new DemoError(
        'invalid-argument',
        'closedloop run needs a task: closedloop run "<task>" (the offline scenario is "closedloop demo").',
      );
    }
    const selection = selectModel(
      { provider: flags.provider, model: flags.model, baseURL: flags.baseUrl },
      context.io.env,
    );
    if (!selection) throw new DemoError('no-model', noModelMessage());
    const runner = runnerFor(selection);
    const onApproval = approvalsFromFlags(context, flags);
    return runAndRender(context, {
      json: flags.json,
      journal: flags.journal,
      ...(onApproval ? { onApproval } : {}),
      store: flags.store,
      start: (hooks) => runner.startRun({ task, mode: flags.mode, ...hooks }),
    });
  });
}
