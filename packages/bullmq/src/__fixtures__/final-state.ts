import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCortex, type RunResult } from '@closedloop/cortex';
import type { RunSpec } from '../step-jobs';
import { countEffects, scenarioCortex, scenarioSettings, seedEffects } from './scenario';

/** A scenario run's spec in a fresh temp workspace. */
export function scenarioSpec(settings: RunSpec['settings'], prefix = 'closedloop-scale-out-'): RunSpec {
  const workspace = mkdtempSync(join(tmpdir(), prefix));
  seedEffects(workspace, scenarioSettings(settings).steps);
  return { request: 'Run the scale-out scenario.', workspace, settings };
}

/**
 * What a scenario run must end with whatever crashed on the way: stop reason, answer, step
 * statuses, the files (each with its effect line once), and — apart — how many effects ran more
 * than once (0 when nothing was repeated).
 */
export function finalState(result: RunResult, workspace: string): { state: string; duplicated: number } {
  const effects = [...countEffects(workspace, result.plan?.steps.length ?? 0).values()];
  return {
    state: JSON.stringify({
      stopReason: result.stopReason,
      answer: result.answer,
      steps: result.plan?.steps.map((step) => [step.id, step.status]),
      files: ['out', 'effects'].flatMap((dir) =>
        readdirSync(join(workspace, dir))
          .sort()
          .map((file) => [`${dir}/${file}`, readFileSync(join(workspace, dir, file), 'utf8')]),
      ),
      effects: effects.map((count) => count > 0),
    }),
    duplicated: effects.reduce((sum, count) => sum + Math.max(0, count - 1), 0),
  };
}

/** The final state of the same scenario run in one process, uninterrupted (no latency: state only). */
export async function uninterruptedState(settings: RunSpec['settings']): Promise<string> {
  const local = scenarioSpec({ ...settings, turnMs: 0 });
  const result = await createCortex(scenarioCortex(local)).run(local.request);
  const { state, duplicated } = finalState(result, local.workspace!);
  rmSync(local.workspace!, { recursive: true, force: true });
  if (duplicated > 0 || result.plan?.steps.length !== scenarioSettings(settings).steps) {
    throw new Error('the uninterrupted scenario run is not what the trials expect');
  }
  return state;
}
