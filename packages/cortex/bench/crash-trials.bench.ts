/**
 * Randomized crash trials: `pnpm bench:crash` in packages/cortex (or
 * `npx tsx --conditions=@closedloop/source bench/crash-trials.bench.ts`).
 *
 * CRASH_TRIALS (default 100) trials of the trial world (`src/__fixtures__/trial-child.ts`: a
 * planned run with a file write, an edit, a shell append, a replanned step and a git commit, on a
 * fsynced JSONL store), each SIGKILLed by this process at a uniformly random moment of an
 * uninterrupted run's duration; a third of them have their first resume killed too. Every trial
 * is resumed to its end and checked against the uninterrupted run (`src/__fixtures__/crash-trials.ts`).
 * Prints the figures (trials, killed runs and resumes, failures by kind) and every failure with its
 * seed and kill times. CRASH_SEED replays a series; CRASH_PARALLEL (default 2) trials at a time.
 * Exits 1 when a trial fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  runChild,
  runTrial,
  type TrialOutcome,
  type TrialPlan,
  trialState,
  trialWorkspace,
} from '../src/__fixtures__/crash-trials';
import { random } from '../src/__fixtures__/random';
import { bundleChild } from '../src/__fixtures__/spawn-child';

const trials = Number(process.env.CRASH_TRIALS ?? 100);
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const parallel = Number(process.env.CRASH_PARALLEL ?? 2);
const scratch = mkdtempSync(join(tmpdir(), 'cortex-crash-bench-'));
const child = await bundleChild(
  join(import.meta.dirname, '../src/__fixtures__/trial-child.ts'),
  'trial-child',
);
try {
  const started = performance.now();
  const referenceEnv = {
    ...trialWorkspace(join(scratch, 'reference')),
    RUN_ID: 'run-reference',
    PHASE: 'run',
  };
  const durations: number[] = [];
  for (let index = 0; index < 3; index++) {
    const env = {
      ...trialWorkspace(join(scratch, `reference-${index}`)),
      RUN_ID: 'run-reference',
      PHASE: 'run',
    };
    durations.push((await runChild(child, env)).ms);
  }
  const uninterrupted = await runChild(child, referenceEnv);
  if (uninterrupted.code !== 0 || !uninterrupted.stdout.includes('"completed"')) {
    throw new Error(
      `the uninterrupted run did not complete: ${uninterrupted.stdout} ${uninterrupted.stderr}`,
    );
  }
  const reference = trialState(referenceEnv.ROOT);
  const span = Math.max(...durations, uninterrupted.ms) * 1.1;
  const next = random(seed);
  const plans: TrialPlan[] = Array.from({ length: trials }, (_, index) => ({
    name: `t${index}`,
    killRunAfterMs: Math.floor(next() * span),
    ...(next() < 1 / 3 ? { killResumeAfterMs: Math.floor(next() * span) } : {}),
  }));
  const outcomes: TrialOutcome[] = [];
  for (let index = 0; index < plans.length; index += parallel) {
    outcomes.push(
      ...(await Promise.all(
        plans
          .slice(index, index + parallel)
          .map((plan) => runTrial(child, join(scratch, plan.name), plan, reference)),
      )),
    );
  }
  const failed = outcomes.filter((outcome) => outcome.failures.length > 0);
  const kinds = new Map<string, number>();
  for (const outcome of failed) {
    for (const failure of outcome.failures) {
      const kind = failure.replace(/\d+/g, 'N').slice(0, 90);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
  }
  console.log(
    `crash trials (seed ${seed}): ${outcomes.length} trials in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `uninterrupted run ${Math.round(uninterrupted.ms)} ms (kills drawn in 0–${Math.round(span)} ms); ` +
      `${outcomes.filter((outcome) => outcome.killed).length} runs killed, ` +
      `${outcomes.reduce((sum, outcome) => sum + outcome.resumes, 0)} resumes ` +
      `(${plans.filter((plan) => plan.killResumeAfterMs !== undefined).length} first resumes drawn to be killed); ` +
      `${outcomes.filter((outcome) => outcome.restarted).length} killed before the run stored anything (started again); ` +
      `${failed.length} failed`,
  );
  for (const [kind, count] of kinds) console.log(`  ${count} × ${kind}`);
  for (const outcome of failed) {
    console.log(
      `FAIL ${outcome.plan.name} (run killed at ${outcome.plan.killRunAfterMs} ms${
        outcome.plan.killResumeAfterMs === undefined ? '' : `, resume at ${outcome.plan.killResumeAfterMs} ms`
      }): ${outcome.failures.join(' | ')}`,
    );
  }
  process.exitCode = failed.length > 0 ? 1 : 0;
} finally {
  rmSync(scratch, { recursive: true, force: true });
  if (child.length === 1) rmSync(child[0]!, { force: true });
}
