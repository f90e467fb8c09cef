import { resolve } from 'node:path';
import { createDemoRunner, type DemoRunner } from '../../runner/demo-runner';
import { ensureFolder } from '../../runner/ensure-folder';
import type { ModelSelection } from '../../runner/select-model';
import type { CliContext } from '../cli-context';
import type { RunFlags } from '../cli-options';

/** Checks `--journal` and `--workspace` (folders we can write to) and builds the runner. */
export function runnerFromFlags(
  context: CliContext,
  flags: Partial<RunFlags> & Pick<RunFlags, 'journal'>,
  model?: ModelSelection,
): DemoRunner {
  const { cwd, env } = context.io;
  const journal = ensureFolder(resolve(cwd, flags.journal), '--journal');
  const workspace = flags.workspace ? ensureFolder(resolve(cwd, flags.workspace), '--workspace') : undefined;
  return createDemoRunner({
    journal,
    workspace,
    model,
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.maxIterations !== undefined ? { maxIterations: flags.maxIterations } : {}),
    budgetTokens: flags.budget,
    env,
  });
}
