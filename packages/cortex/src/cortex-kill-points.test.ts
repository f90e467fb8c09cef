import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { random } from './__fixtures__/random';
import { bundleChild, runNode } from './__fixtures__/spawn-child';
import { createJsonlRunStore } from './jsonl-run-store';
import { isRunEventOf } from './run-events';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cortex-kill-points-'));
let child: string[] = [];
beforeAll(async () => {
  child = await bundleChild(join(here, '__fixtures__', 'kill-point-child.ts'), 'kill-point-child');
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (child.length === 1) rmSync(child[0]!, { force: true });
});

/** A fresh run folder: its store, its workspace. */
function world(name: string) {
  const dir = join(scratch, name);
  const root = join(dir, 'ws');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'log.txt'), '# log\n');
  return { storeDir: join(dir, 'store'), root, runId: `run-${name}` };
}

describe('kill -9 in the middle of a write_file', () => {
  // 3-byte characters: a cut at a page boundary (4096 bytes) falls inside one of them.
  const content = `${'✓'.repeat(3000)}\n`;
  for (const cut of [4096, 1, 0]) {
    it(`cut after ${cut} of ${Buffer.byteLength(content)} bytes: no torn file, no leftover, and resume writes it once`, async () => {
      const { storeDir, root, runId } = world(`mid-write-${cut}`);
      const env = { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: content };
      const first = await runNode(child, { ...env, KILL: `mid-write:${cut}` });
      expect(first.signal, first.stderr).toBe('SIGKILL');
      // The write is atomic: the file is not there (not a torn start of it); what the kill left
      // is the temporary file it was writing, which resume removes.
      expect(existsSync(join(root, 'notes.txt'))).toBe(false);
      expect(readdirSync(root).filter((name) => name !== 'log.txt')).toEqual([
        expect.stringMatching(/^\.closedloop-tmp-/),
      ]);

      const resumed = await runNode(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout).stopReason).toBe('completed');
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('# log\n- a\n');
      expect(readdirSync(root).sort()).toEqual(['log.txt', 'notes.txt']);
      const events = await createJsonlRunStore({ dir: storeDir }).read(runId);
      expect(events.filter(isRunEventOf('tool-call-reconciled'))).toEqual([
        expect.objectContaining({
          tool: 'write_file',
          outcome: 'not-applied',
          detail: expect.stringContaining('temporary file'),
        }),
      ]);
    }, 60_000);
  }
});

describe('kill -9 during a resume (a resume of a resume)', () => {
  it('killed once in the run and once in its resume, the second resume ends like an uninterrupted run (8 trials)', async () => {
    const content = `${'é'.repeat(100)}\n`;
    const reference = world('reference');
    const uninterrupted = await runNode(child, {
      STORE_DIR: reference.storeDir,
      ROOT: reference.root,
      RUN_ID: reference.runId,
      CONTENT: content,
    });
    expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
    const { stopReason, events: total } = JSON.parse(uninterrupted.stdout) as {
      stopReason: string;
      events: number;
    };
    expect(stopReason).toBe('completed');

    const seed = Number(process.env.CRASH_SEED ?? 20_261_127);
    const next = random(seed);
    let resumesKilled = 0;
    for (let trial = 0; trial < 8; trial++) {
      const { storeDir, root, runId } = world(`twice-${trial}`);
      const env = { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: content };
      const firstKill = 1 + Math.floor(next() * (total - 1));
      // A resume journals fewer events than a whole run: kill it early in its work.
      const resumeKill = 1 + Math.floor(next() * 8);
      const context = `trial ${trial} (seed ${seed}): killed after event ${firstKill}, then resume after event ${resumeKill}`;
      const first = await runNode(child, { ...env, KILL: `after-event:${firstKill}` });
      expect(first.signal, `${context}: ${first.stderr}`).toBe('SIGKILL');
      const resumed = await runNode(child, { ...env, PHASE: 'resume', KILL: `after-event:${resumeKill}` });
      expect(resumed.signal === 'SIGKILL' || resumed.code === 0, `${context}: ${resumed.stderr}`).toBe(true);
      if (resumed.signal === 'SIGKILL') resumesKilled++;
      const last = await runNode(child, { ...env, PHASE: 'resume' });
      if (resumed.code === 0) {
        // The first resume finished: a second one has nothing left to do but report.
        expect(JSON.parse(resumed.stdout).stopReason, context).toBe('completed');
      }
      expect(last.code, `${context}: ${last.stderr}`).toBe(0);
      expect(JSON.parse(last.stdout).stopReason, context).toBe('completed');
      expect(readFileSync(join(root, 'notes.txt'), 'utf8'), context).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8'), context).toBe('# log\n- a\n');
    }
    expect(resumesKilled).toBeGreaterThanOrEqual(4);
  }, 180_000);
});

describe('two processes resume the same crashed run at once', () => {
  it('one resumes it, the other is refused with run-leased, and no effect runs twice (5 trials)', async () => {
    const content = 'two resumers\n';
    let refused = 0;
    for (let trial = 0; trial < 5; trial++) {
      const { storeDir, root, runId } = world(`concurrent-${trial}`);
      const env = { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: content };
      // Killed early in the step: work is left to do.
      const first = await runNode(child, { ...env, KILL: `after-event:${4 + trial}` });
      expect(first.signal, first.stderr).toBe('SIGKILL');
      // Whichever takes the lease holds it until the other has exited.
      const go = join(storeDir, `go-${trial}`);
      const resumers = [
        runNode(child, { ...env, PHASE: 'resume', HOLD_UNTIL: go }),
        runNode(child, { ...env, PHASE: 'resume', HOLD_UNTIL: go }),
      ];
      await Promise.race(resumers);
      writeFileSync(go, '');
      const outcomes = await Promise.all(resumers);
      const answers = outcomes.map((outcome) => {
        expect(outcome.code, outcome.stderr).toBe(0);
        return JSON.parse(outcome.stdout) as { stopReason?: string; error?: string };
      });
      const finished = answers.filter((answer) => answer.stopReason !== undefined);
      for (const answer of answers) {
        if (answer.error === undefined) continue;
        expect(answer.error, `trial ${trial}`).toBe('run-leased');
        refused++;
      }
      expect(finished.length, `trial ${trial}`).toBe(1);
      for (const answer of finished) expect(answer.stopReason, `trial ${trial}`).toBe('completed');
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('# log\n- a\n');
      await expect(createJsonlRunStore({ dir: storeDir }).read(runId)).resolves.toBeDefined();
    }
    // They really overlapped: every trial had a refusal.
    expect(refused).toBe(5);
  }, 120_000);
});

describe('kill -9 between a git commit and its record', () => {
  /** A repository with one commit and a staged file; the child's step commits it. */
  function repository(name: string) {
    const { storeDir, root, runId } = world(name);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
    git('init', '-q');
    git('config', 'user.email', 'kill@example.com');
    git('config', 'user.name', 'kill');
    git('add', 'log.txt');
    git('commit', '-q', '-m', 'initial');
    writeFileSync(join(root, 'staged.txt'), 'staged\n');
    git('add', 'staged.txt');
    return { git, env: { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: '', WORLD: 'commit' } };
  }

  it('resume sees the commit (only .git changed): the human is asked to accept it as done, and it is not run again', async () => {
    const { git, env } = repository('git-commit');

    const first = await runNode(child, { ...env, KILL: 'after-effect' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('2');

    const resumed = await runNode(child, { ...env, PHASE: 'resume' });
    expect(resumed.code, resumed.stderr).toBe(0);
    const answer = JSON.parse(resumed.stdout) as { stopReason: string; asked: string[] };
    expect(answer.asked).toEqual([expect.stringContaining('Approve to accept it as done')]);
    expect(answer.stopReason).toBe('completed');
    const events = await createJsonlRunStore({ dir: env.STORE_DIR }).read(env.RUN_ID);
    expect(events.filter(isRunEventOf('tool-call-reconciled'))).toEqual([
      expect.objectContaining({ tool: 'commit', outcome: 'accepted' }),
    ]);
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('2');
  }, 60_000);

  it('killed before the commit ran: the human is asked to run it again, and it commits once', async () => {
    const { git, env } = repository('git-no-commit');
    const first = await runNode(child, { ...env, KILL: 'before-effect' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('1');
    // A read-only git command meanwhile (it may refresh the index) changes no history.
    git('status', '--porcelain');
    const resumed = await runNode(child, { ...env, PHASE: 'resume' });
    expect(resumed.code, resumed.stderr).toBe(0);
    const answer = JSON.parse(resumed.stdout) as { stopReason: string; asked: string[] };
    expect(answer.asked).toEqual([expect.stringContaining('Approve to run it again')]);
    expect(answer.stopReason).toBe('completed');
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('2');
  }, 60_000);
});

describe('kill -9 during verification and replanning', () => {
  it('a run whose step fails verification and is redesigned, killed anywhere, resumes to the same end (10 trials)', async () => {
    const content = 'G\n';
    const reference = world('replan-reference');
    const base = { CONTENT: content, WORLD: 'replan' };
    const uninterrupted = await runNode(child, {
      ...base,
      STORE_DIR: reference.storeDir,
      ROOT: reference.root,
      RUN_ID: reference.runId,
    });
    expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
    const { stopReason, events: total } = JSON.parse(uninterrupted.stdout) as {
      stopReason: string;
      events: number;
    };
    expect(stopReason).toBe('completed');
    const referenceEvents = await createJsonlRunStore({ dir: reference.storeDir }).read(reference.runId);
    expect(referenceEvents.some((event) => event.type === 'replan-applied')).toBe(true);

    const seed = Number(process.env.CRASH_SEED ?? 20_261_128);
    const next = random(seed);
    const killedAt = new Set<number>();
    for (let trial = 0; trial < 10; trial++) {
      const { storeDir, root, runId } = world(`replan-${trial}`);
      const env = { ...base, STORE_DIR: storeDir, ROOT: root, RUN_ID: runId };
      const killAt = 1 + Math.floor(next() * total);
      const context = `trial ${trial} (seed ${seed}): killed after event ${killAt} of ${total}`;
      const first = await runNode(child, { ...env, KILL: `after-event:${killAt}` });
      expect(first.signal === 'SIGKILL' || first.code === 0, `${context}: ${first.stderr}`).toBe(true);
      if (first.signal === 'SIGKILL') killedAt.add(killAt);
      const resumed = await runNode(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, `${context}: ${resumed.stderr}`).toBe(0);
      expect(JSON.parse(resumed.stdout).stopReason, context).toBe('completed');
      expect(readFileSync(join(root, 'ghost.txt'), 'utf8'), context).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8'), context).toBe('# log\n- a\n');
    }
    expect(killedAt.size).toBeGreaterThanOrEqual(7);
  }, 180_000);
});

describe('kill -9 inside a replan (between its request and the redesign, and after it)', () => {
  // Group commits put these events in one append with their neighbours: `after-event` kills never
  // land between them. `after-type` journals up to and including the named event, then kills.
  for (const point of ['replan-requested', 'replan-applied', 'replan-finished']) {
    it(`killed right after ${point}: the resume replans at most once more and ends like an uninterrupted run`, async () => {
      const content = 'G\n';
      const { storeDir, root, runId } = world(`replan-at-${point}`);
      const env = { CONTENT: content, WORLD: 'replan', STORE_DIR: storeDir, ROOT: root, RUN_ID: runId };
      const first = await runNode(child, { ...env, KILL: `after-type:${point}` });
      expect(first.signal, first.stderr).toBe('SIGKILL');
      const killed = await createJsonlRunStore({ dir: storeDir }).read(runId);
      expect(killed.at(-1)?.type).toBe(point);
      const resumed = await runNode(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout).stopReason).toBe('completed');
      expect(readFileSync(join(root, 'ghost.txt'), 'utf8')).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('# log\n- a\n');
      const events = await createJsonlRunStore({ dir: storeDir }).read(runId);
      // One redesign in the plan: the replaced step's subgraph is never half there.
      expect(events.filter(isRunEventOf('replan-applied'))).toHaveLength(1);
    }, 60_000);
  }
});

describe('kill -9 in the middle of a journal write (a torn last line)', () => {
  it('cut inside a multibyte character of any group: resume drops the torn line and ends like an uninterrupted run', async () => {
    const content = `${'é'.repeat(50)}\n`;
    let torn = 0;
    for (let group = 1; group <= 14; group++) {
      const { storeDir, root, runId } = world(`torn-${group}`);
      const env = { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: content };
      const context = `cut in journal group ${group}`;
      const first = await runNode(child, { ...env, KILL: `torn-journal:${group}` });
      if (first.code === 0) break;
      expect(first.signal, `${context}: ${first.stderr}`).toBe('SIGKILL');
      const store = createJsonlRunStore({ dir: storeDir });
      const inspection = await store.inspect(runId);
      if (inspection.problem?.code === 'journal-empty') continue;
      expect(inspection.problem?.code, context).toBe('journal-truncated');
      torn++;
      const resumed = await runNode(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, `${context}: ${resumed.stderr}`).toBe(0);
      const answer = JSON.parse(resumed.stdout) as {
        stopReason: string;
        timings: { startedAt: number; finishedAt: number; durationMs: number };
        stepDurations: number[];
      };
      expect(answer.stopReason, `${context}: ${resumed.stdout}`).toBe('completed');
      // The run's times never run backwards: no negative duration in its report.
      expect(
        answer.timings.durationMs,
        `${context}: ${JSON.stringify(answer.timings)}`,
      ).toBeGreaterThanOrEqual(0);
      expect(answer.timings.finishedAt, context).toBeGreaterThanOrEqual(answer.timings.startedAt);
      for (const ms of answer.stepDurations) expect(ms, context).toBeGreaterThanOrEqual(0);
      expect(readFileSync(join(root, 'notes.txt'), 'utf8'), context).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8'), context).toBe('# log\n- a\n');
      const events = await store.read(runId);
      expect(
        events.filter((event) => event.type === 'journal-repaired'),
        context,
      ).toHaveLength(1);
    }
    expect(torn).toBeGreaterThanOrEqual(4);
  }, 180_000);
});

describe('kill -9 before the first group commit is durable (nothing acted yet)', () => {
  for (const kill of ['after-meta', 'torn-journal:0', 'in-fsync:0']) {
    it(`killed at ${kill}: the resume starts the run over from its metadata and ends like an uninterrupted run`, async () => {
      const content = 'notes\n';
      const { storeDir, root, runId } = world(`unstarted-${kill.replace(':', '-')}`);
      const env = { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: content };
      const first = await runNode(child, { ...env, KILL: kill });
      expect(first.signal, first.stderr).toBe('SIGKILL');
      const store = createJsonlRunStore({ dir: storeDir });
      expect((await store.inspect(runId)).events, 'nothing was journaled').toEqual([]);
      const resumed = await runNode(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout), resumed.stdout).toMatchObject({ stopReason: 'completed' });
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('# log\n- a\n');
      const events = await store.read(runId);
      expect(events.filter((event) => event.type === 'run-started')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'run-finished')).toHaveLength(1);
      // Resumed again, the finished run returns its result: nothing runs twice.
      const again = await runNode(child, { ...env, PHASE: 'resume' });
      expect(JSON.parse(again.stdout)).toMatchObject({ stopReason: 'completed' });
      expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('# log\n- a\n');
      await store.close();
    }, 30_000);
  }
});

describe('the wall clock jumps backwards between the crash and the resume', () => {
  it('resumed with a clock an hour behind, anywhere in the run, it ends like an uninterrupted run (4 trials)', async () => {
    const content = 'clock\n';
    for (const killAt of [4, 8, 12, 16]) {
      const { storeDir, root, runId } = world(`clock-${killAt}`);
      const env = { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: content };
      const context = `killed after event ${killAt}`;
      const first = await runNode(child, { ...env, KILL: `after-event:${killAt}` });
      expect(first.signal === 'SIGKILL' || first.code === 0, `${context}: ${first.stderr}`).toBe(true);
      const resumed = await runNode(child, { ...env, PHASE: 'resume', CLOCK_OFFSET_MS: String(-3_600_000) });
      expect(resumed.code, `${context}: ${resumed.stderr}`).toBe(0);
      const answer = JSON.parse(resumed.stdout) as {
        stopReason: string;
        timings: { startedAt: number; finishedAt: number; durationMs: number };
        stepDurations: number[];
      };
      expect(answer.stopReason, `${context}: ${resumed.stdout}`).toBe('completed');
      // The run's times never run backwards: no negative duration in its report.
      expect(
        answer.timings.durationMs,
        `${context}: ${JSON.stringify(answer.timings)}`,
      ).toBeGreaterThanOrEqual(0);
      expect(answer.timings.finishedAt, context).toBeGreaterThanOrEqual(answer.timings.startedAt);
      for (const ms of answer.stepDurations) expect(ms, context).toBeGreaterThanOrEqual(0);
      expect(readFileSync(join(root, 'notes.txt'), 'utf8'), context).toBe(content);
      expect(readFileSync(join(root, 'log.txt'), 'utf8'), context).toBe('# log\n- a\n');
    }
  }, 120_000);
});

describe('kill -9 as a command starts, before its pid is journaled (sandbox off)', () => {
  // The command writes out.txt after a delay: the orphan the kill leaves is still running when the
  // resume starts. DETACH=1: it is a grandchild that left the command's process group.
  for (const detach of ['0', '1']) {
    it(`the resume waits for the orphan${detach === '1' ? ' (detached from the group)' : ''} before judging: its effect is accepted once, and nothing writes after the resume`, async () => {
      const { storeDir, root, runId } = world(`orphan-${detach}`);
      // Long enough that a resume on a loaded machine still finds it running.
      const delay = 10_000;
      const env = {
        STORE_DIR: storeDir,
        ROOT: root,
        RUN_ID: runId,
        CONTENT: '',
        WORLD: 'command',
        SANDBOX: 'off',
        DETACH: detach,
        COMMAND_DELAY_MS: String(delay),
      };
      const first = await runNode(child, { ...env, KILL: 'on-spawn' });
      expect(first.signal, first.stderr).toBe('SIGKILL');
      const killedAt = Date.now();
      const resumed = await runNode(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, resumed.stderr).toBe(0);
      const answer = JSON.parse(resumed.stdout) as { stopReason: string; asked: string[] };
      // The orphan's effect is in the workspace before the call is judged: it is accepted, not run again.
      expect(answer.asked).toEqual([expect.stringContaining('Approve to accept it as done')]);
      expect(answer.stopReason).toBe('completed');
      expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('x\n');
      // Nothing of the killed run is left to write later.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + delay + 1_000 - Date.now())));
      expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('x\n');
      const events = await createJsonlRunStore({ dir: storeDir }).read(runId);
      expect(events.filter(isRunEventOf('tool-call-reconciled'))).toEqual([
        expect.objectContaining({
          tool: 'run_command',
          outcome: 'accepted',
          detail: expect.stringMatching(/still running \(pid \d+\)/),
        }),
      ]);
    }, 90_000);
  }
});

describe("kill -9 during a verifier's test re-run (sandbox off)", () => {
  it('the resume stops the orphaned re-run before it verifies again: nothing of the killed verification writes later, and nothing of it is kept', async () => {
    const delay = 10_000;
    const base = { CONTENT: '', WORLD: 'verify', SANDBOX: 'off', COMMAND_DELAY_MS: String(delay) };
    const reference = world('verify-reference');
    const uninterrupted = await runNode(child, {
      ...base,
      STORE_DIR: reference.storeDir,
      ROOT: reference.root,
      RUN_ID: reference.runId,
    });
    expect(uninterrupted.code, uninterrupted.stderr).toBe(0);
    expect(JSON.parse(uninterrupted.stdout).stopReason).toBe('completed');
    const expected = readFileSync(join(reference.root, 'artifact.txt'), 'utf8');

    const { storeDir, root, runId } = world('verify-killed');
    const env = { ...base, STORE_DIR: storeDir, ROOT: root, RUN_ID: runId };
    const first = await runNode(child, { ...env, KILL: 'on-verify-spawn' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    const killedAt = Date.now();
    // The step's own run wrote its line; the verifier's re-run was killed before any verdict.
    expect(readFileSync(join(root, 'artifact.txt'), 'utf8')).toBe('x\n');
    const killedEvents = await createJsonlRunStore({ dir: storeDir }).inspect(runId);
    expect(killedEvents.events.some((event) => event.type === 'step-verified')).toBe(false);

    const resumed = await runNode(child, { ...env, PHASE: 'resume' });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).stopReason).toBe('completed');
    expect(readFileSync(join(root, 'artifact.txt'), 'utf8')).toBe(expected);
    // The orphaned re-run would have written its line `delay` ms after the kill.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + delay + 1_500 - Date.now())));
    expect(readFileSync(join(root, 'artifact.txt'), 'utf8')).toBe(expected);
    const events = await createJsonlRunStore({ dir: storeDir }).read(runId);
    expect(events.filter(isRunEventOf('step-verified'))).toHaveLength(1);
  }, 120_000);
});

describe('kill -9 twice: the resume dies while it waits for the orphan of the first kill', () => {
  it('the next resume finds the orphan again by its journaled tag: the effect happens once', async () => {
    const { storeDir, root, runId } = world('orphan-twice');
    const delay = 10_000;
    const env = {
      STORE_DIR: storeDir,
      ROOT: root,
      RUN_ID: runId,
      CONTENT: '',
      WORLD: 'command',
      SANDBOX: 'off',
      DETACH: '1',
      COMMAND_DELAY_MS: String(delay),
    };
    const first = await runNode(child, { ...env, KILL: 'on-spawn' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    const killedAt = Date.now();
    // Killed while it waits for the orphan (it writes `delay` ms after the first kill).
    const second = await runNode(child, { ...env, PHASE: 'resume', KILL_AFTER_MS: '1500' });
    expect(second.signal, second.stderr).toBe('SIGKILL');
    expect(existsSync(join(root, 'out.txt'))).toBe(false);
    const third = await runNode(child, { ...env, PHASE: 'resume' });
    expect(third.code, third.stderr).toBe(0);
    const answer = JSON.parse(third.stdout) as { stopReason: string; asked: string[] };
    expect(answer.stopReason).toBe('completed');
    expect(answer.asked).toEqual([expect.stringContaining('Approve to accept it as done')]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + delay + 1_000 - Date.now())));
    expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('x\n');
  }, 90_000);
});

describe('kill -9 around a sandboxed command (its sandbox keeps how it ended)', () => {
  const sandboxed = (name: string, extra: Record<string, string> = {}) => {
    const { storeDir, root, runId } = world(name);
    return {
      STORE_DIR: storeDir,
      ROOT: root,
      RUN_ID: runId,
      CONTENT: '',
      WORLD: 'command',
      SANDBOX: 'required',
      COMMAND_DELAY_MS: '100',
      ...extra,
    };
  };
  const reconciled = async (env: { STORE_DIR: string; RUN_ID: string }) =>
    (await createJsonlRunStore({ dir: env.STORE_DIR }).read(env.RUN_ID)).filter(
      isRunEventOf('tool-call-reconciled'),
    );

  it('killed half way through a command whose effect its text does not tell: the human is told its sandbox saw it start and not end, and decides', async () => {
    const env = sandboxed('half-command', { HALF: '1', COMMAND_DELAY_MS: '5000' });
    const first = await runNode(child, { ...env, KILL: 'mid-command' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    // The sandbox died with its owner: the second line never comes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(join(env.ROOT, 'out.txt'), 'utf8')).toBe('started\n');

    const resumed = await runNode(child, { ...env, PHASE: 'resume' });
    expect(resumed.code, resumed.stderr).toBe(0);
    const answer = JSON.parse(resumed.stdout) as { stopReason: string; asked: string[] };
    // A command killed just after its end looks the same (its sandbox had no time to record the
    // end): what it changed is evidence for the human, not a decision made for them.
    expect(answer.asked).toEqual([
      expect.stringMatching(/its sandbox saw it start and not end.*Approve to accept it as done/),
    ]);
    expect(await reconciled(env)).toEqual([
      expect.objectContaining({ tool: 'run_command', outcome: 'accepted' }),
    ]);
  }, 60_000);

  it('killed after it ran to its end, before its result was recorded: it is recorded as done from its exit code, without a question, and not run again', async () => {
    const env = sandboxed('ended-command');
    const first = await runNode(child, { ...env, KILL: 'after-command' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    expect(readFileSync(join(env.ROOT, 'out.txt'), 'utf8')).toBe('x\n');

    const resumed = await runNode(child, { ...env, PHASE: 'resume' });
    expect(resumed.code, resumed.stderr).toBe(0);
    const answer = JSON.parse(resumed.stdout) as { stopReason: string; asked: string[] };
    expect(answer.asked).toEqual([]);
    expect(answer.stopReason).toBe('completed');
    expect(readFileSync(join(env.ROOT, 'out.txt'), 'utf8')).toBe('x\n');
    expect(await reconciled(env)).toEqual([
      expect.objectContaining({
        tool: 'run_command',
        outcome: 'applied',
        detail: expect.stringContaining('ran to its end before the interruption (exit code 0'),
      }),
    ]);
  }, 60_000);
});
