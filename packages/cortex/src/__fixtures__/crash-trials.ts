/**
 * The randomized crash-trial harness shared by `cortex-crash-trials.test.ts` (a few seeded trials)
 * and `bench/crash-trials.bench.ts` (100+): a child (`trial-child.ts`) runs the trial world on a
 * fresh git workspace and is SIGKILLed by this process at a random moment — inside a tool's
 * effect, between an effect and its record, in a group commit's fdatasync, in verification, in a
 * replan, in the final answer — then resumed by fresh processes (the first resume killed too, at
 * random, in some trials) until one finishes. Each trial is checked against an uninterrupted run:
 * completed, every effect once (the shell append, the edit, the commit), the same files and git
 * tree, one `run-finished` in the journal, and no step completed without a passed verification.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJsonlRunStore } from '../jsonl-run-store';
import { type ChildOutcome, packageDir } from './spawn-child';

/** What a finished child printed. */
export interface TrialAnswer {
  stopReason?: string;
  reason?: string;
  statuses?: Record<string, string>;
  answer?: string;
  asked?: string[];
  error?: string;
  message?: string;
}

/** The workspace's end state: what the effects left. */
export interface TrialState {
  files: Record<string, string | null>;
  commits: number;
  tree: string;
}

/** A git workspace with `log.md` committed (the trial's starting point). */
export function trialWorkspace(dir: string): { ROOT: string; STORE_DIR: string } {
  const root = join(dir, 'ws');
  mkdirSync(root, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'user.email', 'trial@example.com');
  git('config', 'user.name', 'trial');
  git('config', 'commit.gpgsign', 'false');
  writeFileSync(join(root, 'log.md'), '# log\n');
  git('add', 'log.md');
  git('commit', '-q', '-m', 'start');
  return { ROOT: root, STORE_DIR: join(dir, 'store') };
}

/** What the effects left in a workspace. */
export function trialState(root: string): TrialState {
  const read = (name: string) =>
    existsSync(join(root, name)) ? readFileSync(join(root, name), 'utf8') : null;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  return {
    files: Object.fromEntries(
      ['notes.txt', 'log.md', 'cmd.log', 'ghost.txt'].map((name) => [name, read(name)]),
    ),
    commits: Number(git('rev-list', '--count', 'HEAD')),
    tree: git('rev-parse', 'HEAD^{tree}'),
  };
}

/** A child started by {@link startChild}: its outcome, and a way to SIGKILL it. */
export interface RunningChild {
  done: Promise<ChildOutcome>;
  kill(): void;
}

/** Starts `node <args>` from the package folder with `env` added. */
export function startChild(
  args: string[],
  env: Record<string, string>,
  onStarted?: () => void,
): RunningChild {
  const child = spawn(process.execPath, args, {
    cwd: packageDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    const before = stderr;
    stderr += chunk;
    if (!before.includes('trial-started\n') && stderr.includes('trial-started\n')) onStarted?.();
  });
  const done = new Promise<ChildOutcome>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    done,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * Runs a child; with `killAfterMs`, SIGKILLs it that long after it said `trial-started` (if still
 * running). `ms`: from that moment to its end.
 */
export async function runChild(
  args: string[],
  env: Record<string, string>,
  killAfterMs?: number,
): Promise<ChildOutcome & { ms: number }> {
  let started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const child = startChild(args, env, () => {
    started = performance.now();
    if (killAfterMs !== undefined) timer = setTimeout(() => child.kill(), killAfterMs);
  });
  const outcome = await child.done;
  clearTimeout(timer);
  return { ...outcome, ms: performance.now() - started };
}

/** One trial's plan: when the run is killed, and when its first resume is (if at all). */
export interface TrialPlan {
  name: string;
  killRunAfterMs: number;
  killResumeAfterMs?: number;
  /**
   * Two processes resume the killed run at once (the last resume): one must be refused
   * (`run-leased`) or find the run finished; effects still happen once.
   */
  concurrentResume?: boolean;
}

/** One trial's outcome: what went wrong (empty when nothing did). */
export interface TrialOutcome {
  plan: TrialPlan;
  killed: boolean;
  resumes: number;
  /** Killed before it stored anything: resume said `unknown-run` and the run was started again. */
  restarted: boolean;
  failures: string[];
}

/**
 * Runs one trial in `dir` and checks it against `reference` (the state of an uninterrupted run).
 * Never throws for a failed check: every problem is a line of `failures`.
 */
export async function runTrial(
  child: string[],
  dir: string,
  plan: TrialPlan,
  reference: TrialState,
): Promise<TrialOutcome> {
  const env = { ...trialWorkspace(dir), RUN_ID: `run-${plan.name}` };
  const failures: string[] = [];
  const first = await runChild(child, { ...env, PHASE: 'run' }, plan.killRunAfterMs);
  const killed = first.signal === 'SIGKILL';
  let last = first;
  let resumes = 0;
  if (!killed && first.code !== 0)
    failures.push(`the run crashed (${first.code}): ${first.stderr.slice(-400)}`);
  if (killed) {
    if (plan.killResumeAfterMs !== undefined) {
      const resumed = await runChild(child, { ...env, PHASE: 'resume' }, plan.killResumeAfterMs);
      resumes++;
      if (resumed.signal !== 'SIGKILL') last = resumed;
    }
    if (last === first && plan.concurrentResume) {
      const [one, two] = await Promise.all([
        runChild(child, { ...env, PHASE: 'resume' }),
        runChild(child, { ...env, PHASE: 'resume' }),
      ]);
      resumes += 2;
      const unknown = [one, two].filter((outcome) => outcome.stdout.includes('"error":"unknown-run"'));
      const refused = [one, two].filter((outcome) => outcome.stdout.includes('"error":"run-leased"'));
      const finished = [one, two].filter((outcome) => outcome.stdout.includes('"stopReason"'));
      if (unknown.length === 2) {
        // Killed before it stored anything: both say so, and the run is started again below.
        last = one;
      } else {
        if (finished.length === 0)
          failures.push(`neither of two concurrent resumes finished: ${one.stdout} ${two.stdout}`);
        if (refused.length + finished.length !== 2)
          failures.push(`two concurrent resumes: ${one.stdout.slice(0, 200)} / ${two.stdout.slice(0, 200)}`);
        last = finished[0] ?? one;
      }
    }
    if (last === first) {
      last = await runChild(child, { ...env, PHASE: 'resume' });
      resumes++;
    }
  }
  // Killed before the run stored anything (its metadata): the store has no such run and nothing
  // was done, so the caller starts it again — under the same id, which must not be refused.
  let restarted = false;
  if (killed && last.code === 0 && last.stdout.includes('"error":"unknown-run"')) {
    restarted = true;
    last = await runChild(child, { ...env, PHASE: 'run' });
  }
  if (last.code !== 0) {
    failures.push(`the last process ended ${last.signal ?? last.code}: ${last.stderr.slice(-400)}`);
    return { plan, killed, resumes, restarted, failures };
  }
  let answer: TrialAnswer;
  try {
    answer = JSON.parse(last.stdout) as TrialAnswer;
  } catch {
    failures.push(`unreadable answer: ${last.stdout.slice(0, 200)}`);
    return { plan, killed, resumes, restarted, failures };
  }
  if (answer.error !== undefined) failures.push(`refused: ${answer.error}: ${answer.message}`);
  else if (answer.stopReason !== 'completed')
    failures.push(`stopped ${answer.stopReason}: ${answer.reason} ${JSON.stringify(answer.statuses)}`);
  const state = trialState(env.ROOT);
  for (const [name, content] of Object.entries(reference.files)) {
    if (state.files[name] !== content)
      failures.push(`${name} is ${JSON.stringify(state.files[name])}, not ${JSON.stringify(content)}`);
  }
  if (state.commits !== reference.commits)
    failures.push(`${state.commits} commits, not ${reference.commits}`);
  else if (state.tree !== reference.tree) failures.push('the committed tree differs');
  const store = createJsonlRunStore({ dir: env.STORE_DIR });
  try {
    const events = await store.read(env.RUN_ID);
    const finished = events.filter((event) => event.type === 'run-finished');
    if (answer.stopReason === 'completed' && finished.length !== 1)
      failures.push(`${finished.length} run-finished events`);
    const verified = new Set<string>();
    for (const event of events) {
      if (
        event.type === 'step-verified' &&
        ['success', 'success-with-warnings'].includes(event.verification.verdict)
      )
        verified.add(event.stepId);
      if (event.type === 'step-marked' && event.status === 'completed' && !verified.has(event.stepId))
        failures.push(`${event.stepId} completed without a passed verification`);
    }
  } catch (error) {
    if (answer.stopReason === 'completed') failures.push(`the journal does not read: ${String(error)}`);
  } finally {
    await store.close();
  }
  return { plan, killed, resumes, restarted, failures };
}

/** How {@link runCutBackTrial} damages the killed run's journal. */
export type CutBack = 'whole-line' | 'mid-line';

/** One cut-back trial's outcome: skipped when the kill left fewer than 3 durable events. */
export interface CutBackOutcome {
  skipped: boolean;
  /** The durable seq the kill left, and the seq the cut journal ends at. */
  expectedSeq?: number;
  foundSeq?: number;
  failures: string[];
}

/**
 * Kills a run after `killRunAfterMs`, then cuts its journal back behind its durable point — to the
 * line before its last durable record (an operator's cut, an older copy) or into the middle of that
 * record (a filesystem that lost the tail) — and resumes it in a fresh process: the resume must be
 * refused with `journal-rolled-back` and change nothing (workspace, journal bytes). Then the whole
 * journal is put back and the run must resume to the uninterrupted run's end.
 */
/** The workspace's state once it has stopped changing (the same over 300 ms, at most 10 s). */
async function settledState(root: string): Promise<TrialState> {
  let last = JSON.stringify(trialState(root));
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = JSON.stringify(trialState(root));
    if (now === last) break;
    last = now;
  }
  return trialState(root);
}

export async function runCutBackTrial(
  child: string[],
  dir: string,
  options: { name: string; killRunAfterMs: number; cut: CutBack },
  reference: TrialState,
): Promise<CutBackOutcome> {
  const env = { ...trialWorkspace(dir), RUN_ID: `run-${options.name}` };
  const killed = await runChild(child, { ...env, PHASE: 'run' }, options.killRunAfterMs);
  if (killed.signal !== 'SIGKILL') return { skipped: true, failures: [] };
  const journalPath = join(env.STORE_DIR, `${env.RUN_ID}.jsonl`);
  let point: { seq: number; bytes: number };
  let journal: Buffer;
  try {
    point = JSON.parse(readFileSync(join(env.STORE_DIR, `${env.RUN_ID}.durable`), 'utf8'));
    journal = readFileSync(journalPath);
  } catch {
    return { skipped: true, failures: [] };
  }
  if (point.seq < 2) return { skipped: true, failures: [] };
  const lineEnds: number[] = [];
  for (let at = journal.indexOf(10); at !== -1 && at < point.bytes; at = journal.indexOf(10, at + 1)) {
    lineEnds.push(at + 1);
  }
  const lastStart = lineEnds.at(-2)!;
  const cutAt =
    options.cut === 'whole-line'
      ? lastStart
      : lastStart + Math.max(1, Math.floor((lineEnds.at(-1)! - lastStart) / 2));
  writeFileSync(journalPath, journal.subarray(0, cutAt));
  const failures: string[] = [];
  // A command the killed run started may still be finishing (its process outlives the kill on a
  // busy machine): what the refused resume must not change is the workspace once that is done.
  const before = await settledState(env.ROOT);
  const cutJournal = readFileSync(journalPath);
  const resumed = await runChild(child, { ...env, PHASE: 'resume' });
  let answer: TrialAnswer = {};
  try {
    answer = JSON.parse(resumed.stdout) as TrialAnswer;
  } catch {
    failures.push(
      `unreadable answer of the cut resume: ${resumed.stdout.slice(0, 200)} ${resumed.stderr.slice(-300)}`,
    );
  }
  if (answer.error !== 'journal-rolled-back') {
    failures.push(`cut ${options.cut} at byte ${cutAt}: resume gave ${resumed.stdout.slice(0, 300)}`);
  } else if (!answer.message?.includes(`made seq ${point.seq} durable`)) {
    failures.push(`the refusal does not name the durable seq ${point.seq}: ${answer.message}`);
  }
  if (JSON.stringify(trialState(env.ROOT)) !== JSON.stringify(before))
    failures.push('the refused resume changed the workspace');
  if (!readFileSync(journalPath).equals(cutJournal)) failures.push('the refused resume changed the journal');
  writeFileSync(journalPath, journal);
  const restored = await runChild(child, { ...env, PHASE: 'resume' });
  if (!restored.stdout.includes('"stopReason":"completed"'))
    failures.push(`the restored journal did not resume to completion: ${restored.stdout.slice(0, 300)}`);
  const state = trialState(env.ROOT);
  for (const [name, content] of Object.entries(reference.files)) {
    if (state.files[name] !== content)
      failures.push(
        `after restoring: ${name} is ${JSON.stringify(state.files[name])}, not ${JSON.stringify(content)}`,
      );
  }
  if (state.commits !== reference.commits)
    failures.push(`after restoring: ${state.commits} commits, not ${reference.commits}`);
  // Whole lines (newlines) less the header: the events the cut journal holds; its last seq.
  const foundSeq = cutJournal.toString('utf8').split('\n').length - 3;
  return { skipped: false, expectedSeq: point.seq, foundSeq, failures };
}
