import { resolve } from 'node:path';
import type { UncertainCallPolicy } from '@closedloop/cortex';
import { DemoError } from '../../demo-error';
import { createDemoRunner, type DemoRunner } from '../../runner/demo-runner';
import { checkFolder } from '../../runner/ensure-folder';
import { journalDir } from '../../runner/journal-dir';
import type { ModelSelection } from '../../runner/select-model';
import { checkStoreUrl, createScaleOutRunner } from '../../scale-out/scale-out-runner';
import type { CliContext } from '../cli-context';
import type { RunFlags } from '../cli-options';

/**
 * With `--store redis://…`, the runner of a run in Redis (`createScaleOutRunner`). Otherwise:
 * checks `--journal` (default: the per-user state directory) and `--workspace` at once (folders we can write to; the runner creates them),
 * and returns the function that builds the runner for a model selection.
 */
export function runnerFromFlags(
  context: CliContext,
  flags: Partial<RunFlags> & { onUncertain?: UncertainCallPolicy },
): (model?: ModelSelection) => DemoRunner {
  const { cwd, env } = context.io;
  if (flags.group !== undefined && flags.store === undefined) {
    throw new DemoError(
      'invalid-argument',
      '--group only applies to runs in Redis: add --store redis://host:6379.',
    );
  }
  if (flags.store !== undefined) {
    const store = checkStoreUrl(flags.store);
    const workspace = flags.workspace ? checkFolder(resolve(cwd, flags.workspace), '--workspace') : undefined;
    return (model) =>
      createScaleOutRunner({
        store,
        workspace,
        model,
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        ...(flags.maxIterations !== undefined ? { maxIterations: flags.maxIterations } : {}),
        budgetTokens: flags.budget,
        ...(flags.group !== undefined ? { group: flags.group } : {}),
        warn: (line) => context.io.stderr.write(`${line}\n`),
      });
  }
  const journal = checkFolder(journalDir(flags.journal, context.io), '--journal');
  const workspace = flags.workspace ? checkFolder(resolve(cwd, flags.workspace), '--workspace') : undefined;
  return (model) =>
    createDemoRunner({
      journal,
      workspace,
      model,
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      ...(flags.maxIterations !== undefined ? { maxIterations: flags.maxIterations } : {}),
      budgetTokens: flags.budget,
      ...(flags.onUncertain !== undefined ? { onUncertain: flags.onUncertain } : {}),
      env,
    });
}
