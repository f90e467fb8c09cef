import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlRunStore, type RunResult } from '@closedloop/cortex';
import { buildCli, type CliLauncher, scenarioCommands } from './closedloop-cli';
import { countEffects, diffWorkspaces, snapshotWorkspace } from './workspace-effects';

/** Options of {@link runCrashTrials}. */
export interface CrashTrialOptions {
  trials: number;
  /** Seed of the kill times (a trial is reproducible from it). Default: the time. */
  seed?: number;
  /** Trials run at once. Default 2. */
  parallel?: number;
  /** The scripted model's latency per call (`CLOSEDLOOP_DEMO_LATENCY_MS`). Default 20 ms. */
  latencyMs?: number;
  /** Chance that a resume is killed too (halved after each kill of the same trial). Default 0.5. */
  resumeKillChance?: number;
  /** Chance that a trial also starts a second resume while the first holds the lease. Default 0.15. */
  concurrentChance?: number;
  /** Resumes before a trial counts as stuck. Default 8. */
  maxResumes?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Where a failed trial's folder (workspace and journal) is kept for inspection. Default: removed. */
  keepFailedDir?: string;
}

/** What the trials found. */
export interface CrashTrialSummary {
  trials: number;
  seed: number;
  /** Trials whose first process was killed (the rest finished before their kill time). */
  killedDuringRun: number;
  /** Resume processes killed. */
  killedDuringResume: number;
  /** Trials that ended `completed` after their resumes. */
  resumed: number;
  /** Trials that did not end completed within `maxResumes` resumes. */
  stuck: number;
  /** Trials whose workspace shows an effect more often than the uninterrupted run's. */
  duplicated: number;
  /** Trials whose final workspace and answer equal the uninterrupted run's. */
  equal: number;
  /** Trials killed before the run journaled anything (resume refused it; it was started again). */
  restarted: number;
  /** Second resumes started while the first held the lease, and how many were refused (exit 2). */
  concurrent: { tried: number; refused: number };
  /** `tool-call-reconciled` outcomes over all trials. */
  reconciled: Record<string, number>;
  failures: { trial: number; problem: string }[];
  reference: { durationMs: number; journalStartMs: number; answer: string; edits: number; releases: number };
}

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  killed: boolean;
}

/** Runs the CLI once; SIGKILLs it after `killAfterMs` when given and it is still running. */
function runCli(
  launcher: CliLauncher,
  args: string[],
  options: { env: NodeJS.ProcessEnv; killAfterMs?: number; cwd: string },
): { done: Promise<CliRun>; pid: number | undefined } {
  const child = spawn(launcher.program, [...launcher.prefix, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let killed = false;
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer =
    options.killAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null) {
            killed = true;
            child.kill('SIGKILL');
          }
        }, options.killAfterMs);
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, killed: killed && signal === 'SIGKILL' });
    });
  });
  return { done, pid: child.pid };
}

/** A small seeded generator (mulberry32), so a seed reproduces the kill times. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The run ids with demo metadata in `journal`, oldest first. */
function runIdsIn(journal: string): string[] {
  if (!existsSync(journal)) return [];
  return readdirSync(journal)
    .filter((name) => name.endsWith('.demo.json'))
    .map((name) => name.slice(0, -'.demo.json'.length))
    .sort();
}

function parseResult(stdout: string): RunResult | undefined {
  try {
    return JSON.parse(stdout) as RunResult;
  } catch {
    return undefined;
  }
}

/** The stop reason and answer of a finished run, from its journal's `run-finished`. */
async function resultFromJournal(
  journal: string,
  runId: string,
): Promise<Pick<RunResult, 'stopReason' | 'reason' | 'answer'> | undefined> {
  const store = createJsonlRunStore({ dir: journal });
  try {
    const finished = (await store.read(runId)).findLast((event) => event.type === 'run-finished');
    return finished?.type === 'run-finished'
      ? { stopReason: finished.stopReason, reason: finished.reason, answer: finished.answer }
      : undefined;
  } finally {
    await store.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid in a run's lock file, if there is one. */
function lockHolderPid(lock: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(lock, 'utf8')) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

/**
 * Crash trials of the CLI's offline scenario: each trial runs `closedloop demo`, SIGKILLs it at a
 * random moment, then resumes it (`--approve`) until it completes — killing some resumes at
 * random moments too, and sometimes starting a second resume while one holds the run's lease
 * (it must be refused with exit 2). The final workspace is compared with an uninterrupted run's:
 * effects are counted from the files themselves (an `edit_file` insertion, a version bump),
 * so a repeated effect cannot hide.
 */
export async function runCrashTrials(options: CrashTrialOptions): Promise<CrashTrialSummary> {
  const seed = options.seed ?? Date.now() % 1_000_000;
  const next = random(seed);
  const parallel = options.parallel ?? 2;
  const maxResumes = options.maxResumes ?? 8;
  const resumeKillChance = options.resumeKillChance ?? 0.5;
  const concurrentChance = options.concurrentChance ?? 0.15;
  const log = options.log ?? (() => {});
  const launcher = await buildCli();
  const scratch = mkdtempSync(join(tmpdir(), 'closedloop-crash-trials-'));
  const env = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: String(options.latencyMs ?? 20), NO_COLOR: '1' };

  try {
    // The uninterrupted reference.
    const referenceDir = join(scratch, 'reference');
    const startedAt = performance.now();
    const referenceRun = runCli(
      launcher,
      scenarioCommands.run({ workspace: join(referenceDir, 'ws'), journal: join(referenceDir, 'runs') }),
      { env, cwd: scratch },
    );
    // When the run first journals (before that, the CLI is starting): kills are drawn mostly after it.
    let firstJournalMs: number | undefined;
    const watch = setInterval(() => {
      const dir = join(referenceDir, 'runs');
      if (existsSync(dir) && readdirSync(dir).some((name) => name.endsWith('.jsonl'))) {
        firstJournalMs ??= performance.now() - startedAt;
        clearInterval(watch);
      }
    }, 5);
    const reference = await referenceRun.done;
    clearInterval(watch);
    const durationMs = performance.now() - startedAt;
    const journalStartMs = firstJournalMs ?? 0;
    const referenceResult = parseResult(reference.stdout);
    if (reference.code !== 0 || referenceResult?.stopReason !== 'completed') {
      throw new Error(
        `the uninterrupted run did not complete (exit ${reference.code}): ${reference.stderr.slice(-2000)}`,
      );
    }
    const referenceFiles = snapshotWorkspace(join(referenceDir, 'ws'));
    const referenceEffects = countEffects(referenceFiles);
    log(
      `reference: first journal write after ${Math.round(journalStartMs)} ms, completed in ${Math.round(durationMs)} ms, ${referenceEffects.edits} edit, release ${referenceEffects.releases}`,
    );

    const summary: CrashTrialSummary = {
      trials: options.trials,
      seed,
      killedDuringRun: 0,
      killedDuringResume: 0,
      resumed: 0,
      stuck: 0,
      duplicated: 0,
      equal: 0,
      restarted: 0,
      concurrent: { tried: 0, refused: 0 },
      reconciled: {},
      failures: [],
      reference: { durationMs, journalStartMs, answer: referenceResult.answer, ...referenceEffects },
    };
    // Kill times are drawn up front, so a seed gives the same trials whatever the timing.
    const plans = Array.from({ length: options.trials }, (_, trial) => ({
      trial,
      // Uniform from half the start-up time to 10 % past the run's end: some kills land while the
      // CLI starts, most while the run works.
      runKillMs: journalStartMs / 2 + next() * (durationMs * 1.1 - journalStartMs / 2),
      resumeKills: Array.from({ length: maxResumes }, (_, index) => ({
        kill: next() < resumeKillChance / 2 ** index,
        afterMs: next() * durationMs,
      })),
      concurrent: next() < concurrentChance,
    }));

    const runTrial = async (plan: (typeof plans)[number]): Promise<void> => {
      const dir = join(scratch, `trial-${plan.trial}`);
      const workspace = join(dir, 'ws');
      const journal = join(dir, 'runs');
      mkdirSync(dir, { recursive: true });
      let failed = false;
      const fail = (problem: string) => {
        failed = true;
        summary.failures.push({ trial: plan.trial, problem });
        log(`trial ${plan.trial}: ${problem}`);
      };
      const first = await runCli(launcher, scenarioCommands.run({ workspace, journal }), {
        env,
        cwd: dir,
        killAfterMs: plan.runKillMs,
      }).done;
      if (first.killed) summary.killedDuringRun++;
      let result: Pick<RunResult, 'stopReason' | 'reason' | 'answer'> | undefined = first.killed
        ? undefined
        : parseResult(first.stdout);
      let runId = runIdsIn(journal).at(-1);
      for (let attempt = 0; result === undefined && attempt < maxResumes; attempt++) {
        if (runId === undefined) {
          // Killed before the run existed at all: start it (nothing can have happened yet).
          summary.restarted++;
          const again = await runCli(launcher, scenarioCommands.run({ workspace, journal }), {
            env,
            cwd: dir,
          }).done;
          result = parseResult(again.stdout);
          runId = runIdsIn(journal).at(-1);
          if (result === undefined)
            fail(`a fresh run failed (exit ${again.code}): ${again.stderr.slice(-500)}`);
          break;
        }
        const kill = plan.resumeKills[attempt]!;
        const resume = runCli(launcher, scenarioCommands.resume({ runId, journal }), {
          env,
          cwd: dir,
          ...(kill.kill ? { killAfterMs: kill.afterMs } : {}),
        });
        if (plan.concurrent && attempt === 0) {
          // A second resume while the first holds the lease must be refused. (A lock left by the
          // killed process does not count: wait for the first resume's own.)
          const lock = join(journal, `${runId}.lock`);
          const heldByFirst = () => lockHolderPid(lock) === resume.pid;
          for (let waited = 0; waited < 5_000 && !heldByFirst(); waited += 10) await sleep(10);
          if (heldByFirst()) {
            const second = await runCli(launcher, scenarioCommands.resume({ runId, journal }), {
              env,
              cwd: dir,
            }).done;
            if (second.code === 2 && /run \S+ is being resumed by pid \d+ on host \S+/.test(second.stderr)) {
              summary.concurrent.tried++;
              summary.concurrent.refused++;
            } else if (heldByFirst()) {
              summary.concurrent.tried++;
              fail(`a second resume was not refused (exit ${second.code}): ${second.stderr.slice(-300)}`);
            }
          }
        }
        const outcome = await resume.done;
        if (outcome.killed) {
          summary.killedDuringResume++;
          continue;
        }
        if (
          outcome.code === 2 &&
          /has no run|has metadata but no journal|never journaled/.test(outcome.stderr)
        ) {
          // The run was killed before it stored its metadata (a resume starts over one killed
          // later, before its first group commit): resume refuses it with a typed error, and
          // starting it again is safe — nothing acted yet.
          summary.restarted++;
          const again = await runCli(launcher, scenarioCommands.run({ workspace, journal }), {
            env,
            cwd: dir,
          }).done;
          result = parseResult(again.stdout);
          runId = runIdsIn(journal).at(-1);
          if (result === undefined)
            fail(`a fresh run failed (exit ${again.code}): ${again.stderr.slice(-500)}`);
          break;
        }
        if (outcome.code === 2 && /stopped for good/.test(outcome.stderr)) {
          // A resume was killed after the run finished: the journal holds the result.
          result = await resultFromJournal(journal, runId);
          break;
        }
        result = parseResult(outcome.stdout);
        if (result === undefined) {
          fail(`resume ${attempt + 1} failed (exit ${outcome.code}): ${outcome.stderr.slice(-800)}`);
          break;
        }
      }
      if (result?.stopReason !== referenceResult.stopReason) {
        summary.stuck++;
        fail(`ended ${result ? `${result.stopReason}: ${result.reason}` : 'without a result'}`);
      } else summary.resumed++;
      const files = snapshotWorkspace(workspace);
      const effects = countEffects(files);
      if (effects.edits > referenceEffects.edits || effects.releases > referenceEffects.releases) {
        summary.duplicated++;
        fail(`duplicated effects: ${effects.edits} edits, release ${effects.releases}`);
      }
      const differ = diffWorkspaces(referenceFiles, files);
      if (differ.length === 0 && result?.answer === referenceResult.answer) summary.equal++;
      else fail(`final state differs: ${differ.join(', ') || 'the answer'}`);
      if (runId !== undefined) {
        const store = createJsonlRunStore({ dir: journal });
        const events = await store.read(runId).catch(() => []);
        for (const event of events) {
          if (event.type === 'tool-call-reconciled') {
            const key = `${event.tool} ${event.outcome}`;
            summary.reconciled[key] = (summary.reconciled[key] ?? 0) + 1;
          }
        }
        await store.close();
      }
      if (failed && options.keepFailedDir !== undefined) {
        const kept = join(options.keepFailedDir, `trial-${plan.trial}`);
        cpSync(dir, kept, { recursive: true });
        log(`trial ${plan.trial}: kept in ${kept}`);
      }
      rmSync(dir, { recursive: true, force: true });
    };

    let cursor = 0;
    let done = 0;
    const worker = async () => {
      while (cursor < plans.length) {
        const plan = plans[cursor++]!;
        await runTrial(plan);
        done++;
        if (done % 10 === 0 || done === plans.length) log(`${done}/${plans.length} trials`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, plans.length) }, worker));
    return summary;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    if (launcher.prefix.length === 1) rmSync(launcher.prefix[0]!, { force: true });
  }
}

/** The summary as the lines the script prints. */
export function formatCrashTrialSummary(summary: CrashTrialSummary): string {
  const percent = (count: number) => `${((100 * count) / Math.max(1, summary.trials)).toFixed(1)}%`;
  const reconciled = Object.entries(summary.reconciled)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, count]) => `${key} ${count}`)
    .join(', ');
  return [
    `crash trials: ${summary.trials} (seed ${summary.seed}); uninterrupted run ${Math.round(summary.reference.durationMs)} ms (first journal write at ${Math.round(summary.reference.journalStartMs)} ms)`,
    `  killed: ${summary.killedDuringRun} runs, ${summary.killedDuringResume} resumes; restarted before any journal write: ${summary.restarted}`,
    `  resumed to completion: ${summary.resumed}/${summary.trials} (${percent(summary.resumed)})`,
    `  stuck: ${summary.stuck}`,
    `  duplicated effects: ${summary.duplicated}`,
    `  final workspace and answer equal to an uninterrupted run: ${summary.equal}/${summary.trials} (${percent(summary.equal)})`,
    `  concurrent resumes refused: ${summary.concurrent.refused}/${summary.concurrent.tried}`,
    `  uncertain calls reconciled: ${reconciled || 'none'}`,
    ...summary.failures.map((failure) => `  ✗ trial ${failure.trial}: ${failure.problem}`),
  ].join('\n');
}
