import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@closedloop/cortex';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffSnapshots } from './diff-snapshots';
import { snapshotWorkspace } from './snapshot-workspace';
import { createStepChangeRecorder, readStepChanges } from './step-change-recorder';

let base: string;
let workspace: string;
let dir: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'closedloop-changes-'));
  workspace = join(base, 'ws');
  dir = join(base, 'changes');
  mkdirSync(workspace);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const event = (fields: Record<string, unknown>) => ({ runId: 'r', at: 10, ...fields }) as unknown as RunEvent;
const started = (stepId: string, at = 1) => event({ type: 'step-started', stepId, attempt: 0, at });
const finished = (stepId: string, status = 'completed', at = 2) =>
  event({ type: 'step-finished', stepId, status, unverified: false, durationMs: 1, at });
const call = (stepId: string, callId: string, tool: string, args: unknown) =>
  event({ type: 'tool-call-started', stepId, callId, tool, args, planId: 'p', seq: 0, generatedId: false });
const result = (stepId: string, callId: string, status: 'success' | 'error') =>
  event({ type: 'tool-call-finished', stepId, callId, status, planId: 'p', seq: 0 });

describe('snapshots and their diff', () => {
  it('reports added, modified and deleted files with hunks, skipping node_modules and .git', () => {
    writeFileSync(join(workspace, 'keep.txt'), 'same\n');
    writeFileSync(join(workspace, 'edit.js'), 'a\nb\nc\n');
    writeFileSync(join(workspace, 'gone.txt'), 'bye\n');
    mkdirSync(join(workspace, 'node_modules'));
    const before = snapshotWorkspace(workspace);
    writeFileSync(join(workspace, 'edit.js'), 'a\nB\nc\n');
    rmSync(join(workspace, 'gone.txt'));
    mkdirSync(join(workspace, 'src'));
    writeFileSync(join(workspace, 'src/new.js'), 'export const x = 1;\n');
    writeFileSync(join(workspace, 'node_modules/dep.js'), 'ignored');
    writeFileSync(join(workspace, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
    const changes = diffSnapshots(before, snapshotWorkspace(workspace));
    expect(
      changes.map((change) => `${change.change} ${change.path} +${change.additions} -${change.deletions}`),
    ).toEqual([
      'added blob.bin +0 -0',
      'modified edit.js +1 -1',
      'deleted gone.txt +0 -1',
      'added src/new.js +1 -0',
    ]);
    expect(changes.find((change) => change.path === 'edit.js')?.hunks?.[0]?.lines).toEqual([
      ' a',
      '-b',
      '+B',
      ' c',
    ]);
    expect(changes.find((change) => change.path === 'blob.bin')).toMatchObject({
      hunks: null,
      withoutDiff: 'binary',
    });
  });

  it('stops at maxFiles and says so', () => {
    for (let index = 0; index < 5; index++) writeFileSync(join(workspace, `f${index}`), String(index));
    expect(snapshotWorkspace(workspace, { maxFiles: 3 })).toMatchObject({ truncated: true });
    expect(snapshotWorkspace(workspace, { maxFiles: 3 }).files.size).toBe(3);
  });
});

describe('step change recorder', () => {
  it("records each step run's changes, which files its own file tools changed, and what ran alongside", () => {
    const recorder = createStepChangeRecorder({ workspace, dir });
    writeFileSync(join(workspace, 'package.json'), '{}\n');
    recorder.observe(started('a'));
    recorder.observe(started('b'));
    recorder.observe(call('a', 'c1', 'write_file', { path: './src/a.js' }));
    mkdirSync(join(workspace, 'src'));
    writeFileSync(join(workspace, 'src/a.js'), 'a\n');
    recorder.observe(result('a', 'c1', 'success'));
    recorder.observe(call('a', 'c2', 'write_file', { path: 'nope.js' }));
    recorder.observe(result('a', 'c2', 'error'));
    // b changes a file with a command (no file tool): it shows in both steps' windows.
    writeFileSync(join(workspace, 'package.json'), '{ "type": "module" }\n');
    recorder.observe(finished('a'));
    recorder.observe(finished('b', 'failed'));

    const [a] = readStepChanges(dir, 'a');
    expect(a).toMatchObject({ stepId: 'a', run: 1, status: 'completed', concurrentSteps: ['b'] });
    expect(a?.files.map((file) => `${file.change} ${file.path} ${file.byStep}`)).toEqual([
      'modified package.json false',
      'added src/a.js true',
    ]);
    const [b] = readStepChanges(dir, 'b');
    expect(b).toMatchObject({ status: 'failed', concurrentSteps: ['a'] });
    expect(b?.files.every((file) => !file.byStep)).toBe(true);
    expect(readStepChanges(dir, 'ghost')).toEqual([]);
  });

  it('numbers a second run of the same step (a new recorder: a resumed run) and closes interrupted steps', () => {
    const first = createStepChangeRecorder({ workspace, dir });
    first.observe(started('a'));
    writeFileSync(join(workspace, 'one.txt'), '1\n');
    first.observe(
      event({
        type: 'run-finished',
        stopReason: 'cancelled',
        reason: 'x',
        answer: '',
        answerSource: 'fallback',
      }),
    );
    const second = createStepChangeRecorder({ workspace, dir });
    second.observe(started('a'));
    writeFileSync(join(workspace, 'two.txt'), '2\n');
    second.observe(finished('a'));
    const runs = readStepChanges(dir, 'a');
    expect(
      runs.map((run) => `${run.run} ${run.status} ${run.files.map((file) => file.path).join(',')}`),
    ).toEqual(['1 interrupted one.txt', '2 completed two.txt']);
  });
});

describe('what the recorded changes may show (the web UI serves them)', () => {
  it('redacts secrets in the diffs by default: a key line next to an edit is context', () => {
    const key = 'sk-proj-Zq8vT3xLm9Kd2Rf7Wn4Yp1Hs6Bc0Ja5Ue';
    writeFileSync(join(workspace, '.env'), `PORT=3000\nOPENAI_API_KEY=${key}\nDEBUG=false\n`);
    writeFileSync(join(workspace, 'config.json'), '{}\n');
    const recorder = createStepChangeRecorder({ workspace, dir });
    recorder.observe(started('a'));
    writeFileSync(join(workspace, '.env'), `PORT=3001\nOPENAI_API_KEY=${key}\nDEBUG=false\n`);
    writeFileSync(join(workspace, 'config.json'), `{ "token": "${key}" }\n`);
    recorder.observe(finished('a'));
    const [record] = readStepChanges(dir, 'a');
    const text = JSON.stringify(record);
    expect(text).toContain('+PORT=3001');
    expect(text).not.toContain(key.slice(8, 20));
    expect(text).toContain('[REDACTED');
  });

  it('never reads through a file swapped for a link to a file outside the workspace', {
    timeout: 30_000,
  }, async () => {
    const outside = join(base, 'outside-secret.txt');
    writeFileSync(outside, 'OUTSIDE-CANARY\n');
    writeFileSync(join(workspace, 'flip.txt'), 'inside\n');
    // Another process swaps the file and a symbolic link to the outside file, atomically, in a loop.
    const flipper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const p = require('node:path');
const ws = ${JSON.stringify(workspace)}; const out = ${JSON.stringify(outside)};
for (;;) {
  try { fs.rmSync(p.join(ws, 'l')); } catch {}
  fs.symlinkSync(out, p.join(ws, 'l')); fs.renameSync(p.join(ws, 'l'), p.join(ws, 'flip.txt'));
  fs.writeFileSync(p.join(ws, 'f'), 'inside\\n'); fs.renameSync(p.join(ws, 'f'), p.join(ws, 'flip.txt'));
}`,
      ],
      { stdio: 'ignore' },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      // At least 2,000 looks, and on until one saw the regular file (a loaded machine may starve the
      // flipper while the link is in place), for 20 s at most.
      let read = 0;
      const deadline = Date.now() + 20_000;
      for (let i = 0; (i < 2000 || read === 0) && Date.now() < deadline; i++) {
        const file = snapshotWorkspace(workspace).files.get('flip.txt');
        if (file?.text != null) read++;
        expect(file?.text ?? '').not.toContain('OUTSIDE-CANARY');
        if (i % 200 === 199) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(read).toBeGreaterThan(0);
    } finally {
      flipper.kill('SIGKILL');
    }
  });
});

describe('a process killed while it writes a record', () => {
  it('leaves no torn record: the step reads as not recorded, and its next run is recorded and readable', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@closedloop/source',
        join(import.meta.dirname, '..', '__fixtures__', 'record-changes-child.ts'),
      ],
      { env: { ...process.env, WS: workspace, DIR: dir }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const signal = await new Promise((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    expect(signal, stderr).toBe('SIGKILL');
    // The record the killed process was writing is not there: no reader fails on half a file.
    expect(readStepChanges(dir, 's')).toEqual([]);
    // The step's next run (after a resume) is recorded as run 1 and reads back.
    const recorder = createStepChangeRecorder({ workspace, dir });
    recorder.observe(started('s'));
    writeFileSync(join(workspace, 'again.txt'), 'again\n');
    recorder.observe(finished('s'));
    expect(readStepChanges(dir, 's').map((record) => record.files.map((file) => file.path))).toEqual([
      ['again.txt'],
    ]);
  }, 60_000);

  it('skips a torn record left by a version that wrote records in place', () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 's.1.json'), '{"stepId":"s","run":1,"fil');
    const recorder = createStepChangeRecorder({ workspace, dir });
    recorder.observe(started('s'));
    writeFileSync(join(workspace, 'later.txt'), 'later\n');
    recorder.observe(finished('s'));
    expect(readStepChanges(dir, 's').map((record) => record.run)).toEqual([2]);
  });
});
