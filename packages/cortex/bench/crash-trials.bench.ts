/**
 * Randomized crash trials: `pnpm bench:crash` in packages/cortex (or
 * `npx tsx --conditions=@closedloop/source bench/crash-trials.bench.ts`).
 *
 * CRASH_TRIALS (default 100) trials of the trial world (`src/__fixtures__/trial-child.ts`: a
 * planned run with a file write, an edit, a shell append, a replanned step and a git commit, on a
 * fsynced JSONL store), each SIGKILLed by this process at a uniformly random moment of an
 * uninterrupted run's duration; a third of them have their first resume killed too, a quarter end
 * with two processes resuming at once (one must be refused or find it finished). Every trial
 * is resumed to its end and checked against the uninterrupted run (`src/__fixtures__/crash-trials.ts`).
 * Prints the figures (trials, killed runs and resumes, failures by kind) and every failure with its
 * seed and kill times. CRASH_SEED replays a series; CRASH_PARALLEL (default 2) trials at a time.
 * Then the store faults (where this process may mount a tmpfs): the journal's folder on a tmpfs of
 * 8–40 KiB (a full disk) or made read-only during the run, then given room or write access back
 * and resumed (`storeFaultTrials`). Then CRASH_CUT_TRIALS (default a fifth of CRASH_TRIALS) killed
 * runs whose journal is cut back behind its durable point (to a whole line, or inside the last
 * durable line): each resume must be refused with `journal-rolled-back`, changing nothing, and the
 * restored journal must resume to the uninterrupted end (`runCutBackTrial`). Exits 1 when a trial
 * fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CutBackOutcome,
  runChild,
  runCutBackTrial,
  runTrial,
  startChild,
  type TrialOutcome,
  type TrialPlan,
  type TrialState,
  trialState,
  trialWorkspace,
} from '../src/__fixtures__/crash-trials';
import { random } from '../src/__fixtures__/random';
import { bundleChild } from '../src/__fixtures__/spawn-child';
import { createJsonlRunStore } from '../src/jsonl-run-store';

const mounts: string[] = [];

/** Mounts a tmpfs of `kb` KiB at `dir`; false where this process may not mount. */
function mountTmpfs(dir: string, kb: number): boolean {
  mkdirSync(dir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', dir]).status === 0;
  if (mounted) mounts.push(dir);
  return mounted;
}

const remount = (dir: string, options: string) =>
  spawnSync('mount', ['-o', `remount,${options}`, dir]).status === 0;

/**
 * The journal's folder on a small tmpfs (a full disk: ENOSPC) or remounted read-only (EROFS)
 * during the run: the run must stop with a typed reason (never `completed`), and once there is
 * room again (or the folder is writable), a resume must end like the uninterrupted run. Needs
 * `mount` (root); skipped with a line otherwise. Returns the failures.
 */
async function storeFaultTrials(reference: TrialState): Promise<number> {
  if (!mountTmpfs(join(scratch, 'probe'), 64)) {
    console.log('store faults: skipped (this process cannot mount a tmpfs)');
    return 0;
  }
  let failures = 0;
  const lines: string[] = [];
  const check = async (
    name: string,
    env: Record<string, string>,
    first: { stdout: string },
    restore: () => unknown = () => remount(env.STORE_DIR!, 'rw,size=4m'),
  ) => {
    const answer = JSON.parse(first.stdout || '{}') as {
      stopReason?: string;
      error?: string;
      reason?: string;
    };
    const stopped = answer.error ?? `${answer.stopReason}: ${answer.reason?.slice(0, 60)}`;
    restore();
    const resumed = await runChild(child, {
      ...env,
      PHASE: answer.error !== undefined ? 'run' : 'resume',
    });
    const end = JSON.parse(resumed.stdout || '{}') as { stopReason?: string; error?: string };
    const state = trialState(env.ROOT!);
    const same = JSON.stringify(state) === JSON.stringify(reference);
    const ok = end.stopReason === 'completed' && same;
    if (!ok) failures++;
    lines.push(
      `  ${ok ? 'ok  ' : 'FAIL'} ${name}: the run ${stopped}; then ${end.stopReason ?? end.error}${same ? '' : ` ${JSON.stringify(state.files)} ${state.commits} commits`}`,
    );
  };
  for (const kb of [8, 16, 24, 32, 40]) {
    const env = { ...trialWorkspace(join(scratch, `full-${kb}`)), RUN_ID: 'run-full', PHASE: 'run' };
    mountTmpfs(env.STORE_DIR, kb);
    const first = await runChild(child, env);
    if (first.stdout.includes('"stopReason":"completed"')) {
      failures++;
      lines.push(`  FAIL ${kb} KiB: completed although its journal did not fit`);
    }
    await check(`journal folder of ${kb} KiB`, env, first);
  }
  for (const ms of [50, 150, 300, 500]) {
    const env = { ...trialWorkspace(join(scratch, `ro-${ms}`)), RUN_ID: 'run-ro', PHASE: 'run' };
    mountTmpfs(env.STORE_DIR, 4096);
    let readOnly = false;
    // A read-only bind mount over the folder: what opens files there from then on gets EROFS (a
    // remount of the tmpfs itself is refused while the journal is open for writing).
    let timer: NodeJS.Timeout | undefined;
    const running = startChild(child, env, () => {
      timer = setTimeout(() => {
        readOnly =
          spawnSync('mount', ['--bind', env.STORE_DIR, env.STORE_DIR]).status === 0 &&
          spawnSync('mount', ['-o', 'remount,bind,ro', env.STORE_DIR]).status === 0;
      }, ms);
    });
    const first = await running.done;
    clearTimeout(timer);
    await check(`journal folder read-only ${ms} ms into the run`, env, first, () => {
      if (readOnly) spawnSync('umount', [env.STORE_DIR]);
    });
    // Appends go on through the journal's open descriptor: a run that says completed must have
    // journaled its end.
    if (first.stdout.includes('"stopReason":"completed"')) {
      const store = createJsonlRunStore({ dir: env.STORE_DIR });
      const events = await store.read(env.RUN_ID).catch(() => []);
      await store.close();
      if (events.at(-1)?.type !== 'run-finished') {
        failures++;
        lines.push(`  FAIL read-only after ${ms} ms: completed, and its journal does not hold its end`);
      }
    }
  }
  console.log(`store faults: ${lines.length} trials, ${failures} failed`);
  for (const line of lines) console.log(line);
  return failures;
}

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
    ...(next() < 1 / 4 ? { concurrentResume: true } : {}),
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
      `(${plans.filter((plan) => plan.killResumeAfterMs !== undefined).length} first resumes drawn to be killed, ` +
      `${plans.filter((plan) => plan.concurrentResume).length} trials ending in two concurrent resumes); ` +
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
  const storeFailures = await storeFaultTrials(reference);
  const cutTrials = Number(process.env.CRASH_CUT_TRIALS ?? Math.max(2, Math.round(trials / 5)));
  const cutStarted = performance.now();
  const cuts: CutBackOutcome[] = [];
  for (let index = 0; index < cutTrials; index++) {
    cuts.push(
      await runCutBackTrial(
        child,
        join(scratch, `cut${index}`),
        {
          name: `cut${index}`,
          killRunAfterMs: Math.floor((0.15 + next() * 0.8) * span),
          cut: index % 2 === 0 ? 'whole-line' : 'mid-line',
        },
        reference,
      ),
    );
  }
  const cutFailed = cuts.filter((cut) => cut.failures.length > 0);
  const done = cuts.filter((cut) => !cut.skipped);
  console.log(
    `cut-back trials: ${cuts.length} killed runs in ${((performance.now() - cutStarted) / 1000).toFixed(1)} s, ` +
      `${done.length} cut behind their durable point (${cuts.length - done.length} skipped: not killed, or killed before 3 durable events); ` +
      `records lost per cut: ${done.map((cut) => (cut.expectedSeq ?? 0) - (cut.foundSeq ?? 0)).join(', ') || 'none'}; ` +
      `${done.length - cutFailed.length} refused with journal-rolled-back, nothing changed, and resumed to completion once restored; ` +
      `${cutFailed.length} failed`,
  );
  for (const cut of cutFailed) console.log(`FAIL cut-back: ${cut.failures.join(' | ')}`);
  process.exitCode = failed.length > 0 || storeFailures > 0 || cutFailed.length > 0 ? 1 : 0;
} finally {
  // A read-only bind mount may lie over a tmpfs: unmount every layer.
  for (const mount of mounts) while (spawnSync('umount', [mount]).status === 0);
  rmSync(scratch, { recursive: true, force: true });
  if (child.length === 1) rmSync(child[0]!, { force: true });
}
