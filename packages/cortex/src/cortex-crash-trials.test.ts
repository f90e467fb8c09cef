import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runChild,
  runTrial,
  type TrialAnswer,
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
    expect(killed, `seed ${seed}`).toBeGreaterThanOrEqual(8);
  }, 120_000);
});

describe('a killed run whose journal is then cut back into what it acted on', () => {
  it('is refused on resume (journal-rolled-back, expected and found seq), its files, journal and workspace untouched; the whole journal put back, it resumes to completion', async () => {
    const seed = Number(process.env.CRASH_SEED ?? 20_261_128);
    const next = random(seed);
    let cutTrials = 0;
    for (let index = 0; cutTrials < 3 && index < 8; index++) {
      const dir = join(scratch, `cut${index}`);
      const env = { ...trialWorkspace(dir), RUN_ID: `run-cut${index}` };
      const killed = await runChild(
        child,
        { ...env, PHASE: 'run' },
        Math.floor((0.25 + next() * 0.6) * span),
      );
      if (killed.signal !== 'SIGKILL') continue;
      const journalPath = join(env.STORE_DIR, `${env.RUN_ID}.jsonl`);
      const pointPath = join(env.STORE_DIR, `${env.RUN_ID}.durable`);
      let point: { seq: number; bytes: number };
      let journal: Buffer;
      try {
        point = JSON.parse(readFileSync(pointPath, 'utf8'));
        journal = readFileSync(journalPath);
      } catch {
        continue;
      }
      if (point.seq < 2) continue;
      cutTrials++;
      // Cut back to the line before the last durable record (an operator, a restored copy), or
      // into the middle of that record (a filesystem that lost the tail): both lose an
      // acknowledged record, which the killed owner may have acted on.
      const lineEnds: number[] = [];
      for (let at = journal.indexOf(10); at !== -1 && at < point.bytes; at = journal.indexOf(10, at + 1))
        lineEnds.push(at + 1);
      const cutAt =
        index % 2 === 0
          ? lineEnds.at(-2)!
          : lineEnds.at(-2)! + Math.max(1, Math.floor((lineEnds.at(-1)! - lineEnds.at(-2)!) / 2));
      writeFileSync(journalPath, journal.subarray(0, cutAt));
      const before = trialState(env.ROOT);
      const cutJournal = readFileSync(journalPath);
      const resumed = await runChild(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, resumed.stderr).toBe(0);
      const answer = JSON.parse(resumed.stdout) as TrialAnswer & { message?: string };
      expect(answer.error, `${env.RUN_ID} cut at ${cutAt} of ${journal.length}: ${resumed.stdout}`).toBe(
        'journal-rolled-back',
      );
      expect(answer.message).toContain(`made seq ${point.seq} durable`);
      expect(trialState(env.ROOT)).toEqual(before);
      expect(readFileSync(journalPath)).toEqual(cutJournal);
      // The whole journal put back, the same run resumes and ends like an uninterrupted one.
      writeFileSync(journalPath, journal);
      const restored = await runChild(child, { ...env, PHASE: 'resume' });
      expect(JSON.parse(restored.stdout), restored.stdout).toMatchObject({ stopReason: 'completed' });
      expect(trialState(env.ROOT).files).toEqual(reference.files);
      expect(trialState(env.ROOT).commits).toBe(reference.commits);
    }
    expect(cutTrials, `seed ${seed}`).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
