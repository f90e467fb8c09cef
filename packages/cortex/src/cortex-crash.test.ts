import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashPlan, createCrashCortex } from './__fixtures__/crash-world';
import { random } from './__fixtures__/random';
import { bundleChild, runNode } from './__fixtures__/spawn-child';
import { createJsonlRunStore } from './jsonl-run-store';
import { createMemoryRunStore } from './run-store';

const here = dirname(fileURLToPath(import.meta.url));
const childSource = join(here, '__fixtures__', 'crash-child.ts');
const scratch = mkdtempSync(join(tmpdir(), 'cortex-crash-'));

let command: string[] = [];
beforeAll(async () => {
  command = await bundleChild(childSource, 'child');
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (command.length === 1 && existsSync(command[0]!)) rmSync(command[0]!, { force: true });
});

describe('crash recovery (kill -9 at random points)', () => {
  it('the resumed run ends like an uninterrupted one and no completed step runs twice (50 trials)', async () => {
    // The uninterrupted reference, in-process.
    const referenceRoot = join(scratch, 'reference');
    mkdirSync(referenceRoot);
    const referenceStore = createMemoryRunStore();
    const reference = await createCrashCortex({
      root: referenceRoot,
      log: join(scratch, 'reference.log'),
      phase: 'reference',
      store: referenceStore,
    }).run('Record every step', { runId: 'run-reference' });
    expect(reference.stopReason).toBe('completed');
    const referenceStatuses = Object.fromEntries(
      reference.report.steps.map((step) => [step.id, step.status]),
    );
    expect(Object.values(referenceStatuses)).toEqual(crashPlan.steps.map(() => 'completed'));
    const totalEvents = (await referenceStore.read('run-reference')).length;

    const seed = Number(process.env.CRASH_SEED ?? 20_260_126);
    const next = random(seed);
    const trials = 50;
    const ways = ['sync', 'micro', 'immediate'] as const;
    const killedAt: number[] = [];
    const runTrial = async (trial: number, killAt: number, how: (typeof ways)[number]) => {
      const dir = join(scratch, `trial-${trial}`);
      const storeDir = join(dir, 'store');
      const root = join(dir, 'ws');
      const log = join(dir, 'executions.log');
      mkdirSync(root, { recursive: true });
      const runId = `run-crash-${trial}`;
      const context = `trial ${trial} (seed ${seed}, kill after event ${killAt}, ${how})`;
      const child = await runNode(command, {
        STORE_DIR: storeDir,
        ROOT: root,
        LOG: log,
        RUN_ID: runId,
        KILL_AT: String(killAt),
        KILL_HOW: how,
      });
      expect(child.signal === 'SIGKILL' || child.code === 0, `${context}: ${child.stderr}`).toBe(true);
      if (child.signal === 'SIGKILL') killedAt.push(killAt);

      // What the journal says was completed when the process died.
      const store = createJsonlRunStore({ dir: storeDir });
      const journal = await store.read(runId);
      const completedAtKill = new Set(
        journal.flatMap((event) =>
          event.type === 'step-marked' && event.status === 'completed' ? [event.stepId] : [],
        ),
      );
      const linesBefore = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];

      const resumed = await createCrashCortex({ root, log, phase: 'resume', store }).resume(runId);
      await store.close();
      expect(resumed.stopReason, context).toBe(reference.stopReason);
      expect(Object.fromEntries(resumed.report.steps.map((step) => [step.id, step.status])), context).toEqual(
        referenceStatuses,
      );
      for (const step of crashPlan.steps) {
        expect(readFileSync(join(root, `${step.id}.txt`), 'utf8'), context).toBe(`done ${step.id}\n`);
      }
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      for (const stepId of completedAtKill) {
        const runs = lines.filter((line) => line.startsWith(`${stepId} `));
        expect(runs, `${context}: completed step ${stepId} ran again`).toEqual([`${stepId} first`]);
      }
      expect(lines.slice(0, linesBefore.length), context).toEqual(linesBefore);
    };

    // Kill points cover the whole run (every journaled event is a candidate), a few past its end.
    const plans = Array.from({ length: trials }, (_, trial) => ({
      trial,
      killAt: 1 + Math.floor(next() * (totalEvents + 5)),
      how: ways[Math.floor(next() * ways.length)]!,
    }));
    const parallel = 2;
    for (let index = 0; index < plans.length; index += parallel) {
      await Promise.all(
        plans.slice(index, index + parallel).map((plan) => runTrial(plan.trial, plan.killAt, plan.how)),
      );
    }
    // Most trials really crashed, at many different points.
    expect(killedAt.length).toBeGreaterThanOrEqual(trials * 0.75);
    expect(new Set(killedAt).size).toBeGreaterThanOrEqual(20);
  }, 180_000);
});

describe('a full disk (the journal write is cut short, then fails)', () => {
  it('the run stops with a typed reason and the journal stays resumable: no torn line, nothing run twice', async () => {
    // The size of a whole journal, from an uninterrupted run on a JSONL store.
    const referenceDir = join(scratch, 'full-reference');
    mkdirSync(join(referenceDir, 'ws'), { recursive: true });
    const referenceStore = createJsonlRunStore({ dir: join(referenceDir, 'store') });
    await createCrashCortex({
      root: join(referenceDir, 'ws'),
      log: join(referenceDir, 'executions.log'),
      phase: 'reference',
      store: referenceStore,
    }).run('Record every step', { runId: 'run-full' });
    await referenceStore.close();
    const journalBytes = readFileSync(referenceStore.pathOf('run-full')).length;
    // From inside the first group (nothing journaled) to late in the run.
    const limits = [
      ...new Set([1, ...[0.2, 0.4, 0.6, 0.8].map((f) => Math.max(1, Math.floor((journalBytes * f) / 1024)))]),
    ];
    let resumable = 0;

    for (const kb of limits) {
      const dir = join(scratch, `full-${kb}`);
      const storeDir = join(dir, 'store');
      const root = join(dir, 'ws');
      const log = join(dir, 'executions.log');
      mkdirSync(root, { recursive: true });
      const runId = `run-full-${kb}`;
      const context = `journal limited to ${kb} KiB`;
      const child = await runNode(
        command,
        { STORE_DIR: storeDir, ROOT: root, LOG: log, RUN_ID: runId, KILL_AT: '1000000' },
        kb,
      );
      expect(child.code, `${context}: ${child.stderr}`).toBe(0);
      // The run stopped itself with a typed reason rather than crashing or finishing.
      expect(JSON.parse(child.stdout).stopReason, context).toBe('failed');
      const store = createJsonlRunStore({ dir: storeDir });
      const text = readFileSync(store.pathOf(runId), 'utf8');
      // The cut-short write left nothing behind: the journal ends on a whole record.
      expect(text.endsWith('\n'), `${context}: the journal ends in a torn line`).toBe(true);
      const inspection = await store.inspect(runId);
      if (inspection.problem?.code === 'journal-empty') {
        // Not even the first group fitted: nothing was journaled, so nothing was done either, and
        // the resume (with room again) starts the run over: every step runs once.
        expect(existsSync(log), context).toBe(false);
      }
      resumable++;
      const journal = inspection.events;
      const completedAtStop = new Set(
        journal.flatMap((event) =>
          event.type === 'step-marked' && event.status === 'completed' ? [event.stepId] : [],
        ),
      );
      const resumed = await createCrashCortex({ root, log, phase: 'resume', store }).resume(runId);
      await store.close();
      expect(resumed.stopReason, context).toBe('completed');
      for (const step of crashPlan.steps) {
        expect(readFileSync(join(root, `${step.id}.txt`), 'utf8'), context).toBe(`done ${step.id}\n`);
      }
      const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
      for (const stepId of completedAtStop) {
        expect(
          lines.filter((line) => line.startsWith(`${stepId} `)),
          `${context}: ${stepId} ran again`,
        ).toEqual([`${stepId} first`]);
      }
    }
    expect(resumable).toBe(limits.length);
  }, 120_000);
});

/** What a run's result says, without what differs from one session to the next (times, usage, session count). */
function outcomeOf(result: {
  stopReason: string;
  answer: string;
  answerSource: string;
  report: unknown;
}): unknown {
  const sessionly = new Set([
    'at',
    'timings',
    'durationMs',
    'usage',
    'costUsd',
    'runId',
    'calledAt',
    'sessions',
    // A step whose end had not reached the journal at the kill is replayed by the resume (a start
    // more); the executions log shows nothing of it ran again.
    'runs',
  ]);
  return JSON.parse(
    JSON.stringify(
      {
        stopReason: result.stopReason,
        answer: result.answer,
        answerSource: result.answerSource,
        report: result.report,
      },
      (key, value) => (sessionly.has(key) ? undefined : value),
    ),
  );
}

describe('kill -9 inside the end of a run (goal verification, answer aggregation)', () => {
  it('at each point the resume ends with the result of an uninterrupted run, and no step runs again', async () => {
    const referenceRoot = join(scratch, 'end-reference');
    mkdirSync(referenceRoot);
    const referenceStore = createMemoryRunStore();
    const reference = await createCrashCortex({
      root: referenceRoot,
      log: join(scratch, 'end-reference.log'),
      phase: 'reference',
      store: referenceStore,
    }).run('Record every step', { runId: 'run-end-reference' });
    expect(reference.stopReason).toBe('completed');
    expect(reference.answerSource).toBe('model');
    const events = await referenceStore.read('run-end-reference');
    const count = (type: string) => events.filter((event) => event.type === type).length;
    // The run's last events: the goal's findings, its verdict, the iteration's decision, then the
    // aggregator's model call (its usage) and the answer in `run-finished`.
    const points: Record<string, string>[] = [
      { KILL_AFTER_TYPE: `finding-reported/${count('finding-reported')}` },
      { KILL_AFTER_TYPE: 'goal-verified' },
      { KILL_AFTER_TYPE: `iteration-finished/${count('iteration-finished')}` },
      { KILL_IN: 'aggregate' },
      { KILL_AFTER_TYPE: `usage-recorded/${count('usage-recorded')}` },
    ];
    for (const point of points) {
      const context = JSON.stringify(point);
      const dir = join(scratch, `end-${Object.values(point)[0]!.replace(/\W/g, '-')}`);
      const storeDir = join(dir, 'store');
      const root = join(dir, 'ws');
      const log = join(dir, 'executions.log');
      mkdirSync(root, { recursive: true });
      const runId = 'run-end';
      const child = await runNode(command, {
        STORE_DIR: storeDir,
        ROOT: root,
        LOG: log,
        RUN_ID: runId,
        ...point,
      });
      expect(child.signal, `${context}: ${child.stderr}`).toBe('SIGKILL');
      const store = createJsonlRunStore({ dir: storeDir });
      const atKill = await store.read(runId);
      expect(
        atKill.some((event) => event.type === 'run-finished'),
        context,
      ).toBe(false);
      // The steps the journal holds as completed (the last group may not have reached it).
      const completedAtKill = atKill.flatMap((event) =>
        event.type === 'step-marked' && event.status === 'completed' ? [event.stepId] : [],
      );
      expect(completedAtKill.length, context).toBeGreaterThanOrEqual(crashPlan.steps.length - 2);
      const resumed = await createCrashCortex({ root, log, phase: 'resume', store }).resume(runId);
      const journal = await store.read(runId);
      await store.close();
      expect(outcomeOf(resumed), context).toEqual(outcomeOf(reference));
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      for (const stepId of completedAtKill) {
        expect(
          lines.filter((line) => line.startsWith(`${stepId} `)),
          `${context}: completed step ${stepId} ran again`,
        ).toEqual([`${stepId} first`]);
      }
      expect(
        journal.filter((event) => event.type === 'run-finished'),
        context,
      ).toHaveLength(1);
      // The resume of a finished run returns the stored result, unchanged.
      const again = createJsonlRunStore({ dir: storeDir });
      expect(
        outcomeOf(await createCrashCortex({ root, log, phase: 'again', store: again }).resume(runId)),
      ).toEqual(outcomeOf(reference));
      await again.close();
    }
  }, 60_000);
});
