import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runChild,
  runCutBackTrial,
  runTrial,
  type TrialState,
  trialState,
  trialWorkspace,
} from './__fixtures__/crash-trials';
import { random } from './__fixtures__/random';
import { bundleChild } from './__fixtures__/spawn-child';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cortex-crash-trials-'));
let child: string[] = [];
let reference: TrialState;
let span = 0;
beforeAll(async () => {
  child = await bundleChild(join(here, '__fixtures__', 'trial-child.ts'), 'trial-child');
  const env = { ...trialWorkspace(join(scratch, 'reference')), RUN_ID: 'run-reference', PHASE: 'run' };
  const uninterrupted = await runChild(child, env);
  expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
  expect(JSON.parse(uninterrupted.stdout)).toMatchObject({ stopReason: 'completed' });
  reference = trialState(env.ROOT);
  span = uninterrupted.ms;
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (child.length === 1) rmSync(child[0]!, { force: true });
});

describe('randomized kill -9 of a run with real effects (shell append, edit, write, git commit, a replan)', () => {
  it('the uninterrupted run makes each effect once', () => {
    expect(reference).toMatchObject({
      files: {
        'notes.txt': 'notes of the trial\n',
        'log.md': '# log\n- e\n',
        'cmd.log': 's\n',
        'ghost.txt': 'ghost\n',
      },
      commits: 2,
    });
  });

  it('killed at a random moment (and its first resume too, or resumed by two processes at once, in some trials), it resumes to the same end: every effect once (12 seeded trials; bench/crash-trials.bench.ts runs 100+)', async () => {
    const seed = Number(process.env.CRASH_SEED ?? 20_261_130);
    const next = random(seed);
    let killed = 0;
    for (let index = 0; index < 12; index += 2) {
      const outcomes = await Promise.all(
        [index, index + 1].map((number) =>
          runTrial(
            child,
            join(scratch, `t${number}`),
            {
              name: `t${number}`,
              killRunAfterMs: Math.floor(next() * span),
              ...(number % 3 === 0 ? { killResumeAfterMs: Math.floor(next() * span) } : {}),
              ...(number % 4 === 1 ? { concurrentResume: true } : {}),
            },
            reference,
          ),
        ),
      );
      for (const outcome of outcomes) {
        expect(outcome.failures, `seed ${seed}, ${JSON.stringify(outcome.plan)}`).toEqual([]);
        if (outcome.killed) killed++;
      }
    }
    // Most trials must have been killed mid-run (a kill drawn after a fast run ended kills
    // nothing); how many depends on the machine's load, so half, not a figure from an idle run.
    expect(killed, `seed ${seed}`).toBeGreaterThanOrEqual(6);
  }, 240_000);
});

describe('a killed run whose journal is then cut back into what it acted on', () => {
  it('is refused on resume (journal-rolled-back, naming the durable seq), its workspace and journal untouched; the whole journal put back, it resumes to completion', async () => {
    const seed = Number(process.env.CRASH_SEED ?? 20_261_128);
    const next = random(seed);
    let cutTrials = 0;
    for (let index = 0; cutTrials < 3 && index < 12; index++) {
      const outcome = await runCutBackTrial(
        child,
        join(scratch, `cut${index}`),
        {
          name: `cut${index}`,
          killRunAfterMs: Math.floor((0.25 + next() * 0.6) * span),
          cut: index % 2 === 0 ? 'whole-line' : 'mid-line',
        },
        reference,
      );
      if (outcome.skipped) continue;
      cutTrials++;
      expect(outcome.failures, `seed ${seed}, cut${index}`).toEqual([]);
    }
    expect(cutTrials, `seed ${seed}`).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
