import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, runNode } from './__fixtures__/spawn-child';
import { createJsonlRunStore } from './jsonl-run-store';
import { isRunEventOf } from './run-events';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cortex-outside-edits-'));
let child: string[] = [];
beforeAll(async () => {
  child = await bundleChild(join(here, '__fixtures__', 'kill-point-child.ts'), 'kill-point-child');
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (child.length === 1) rmSync(child[0]!, { force: true });
});

const content = 'N\n';

/**
 * Runs the kill-point child's files world (write notes.txt, edit log.txt, claim both), kills it
 * right after `killAfter` reaches the journal, lets `edit` change the workspace as someone else
 * would, resumes it, and returns what the resume printed and journaled.
 */
async function killEditResume(
  name: string,
  killAfter: string,
  edit: (root: string) => void,
  resumeEnv: Record<string, string> = {},
) {
  const dir = join(scratch, name);
  const root = join(dir, 'ws');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'log.txt'), '# log\n');
  const env = { CONTENT: content, STORE_DIR: join(dir, 'store'), ROOT: root, RUN_ID: `run-${name}` };
  const first = await runNode(child, { ...env, KILL: `after-type:${killAfter}` });
  expect(first.signal, first.stderr).toBe('SIGKILL');
  edit(root);
  const resumed = await runNode(child, { ...env, ...resumeEnv, PHASE: 'resume' });
  expect(resumed.code, resumed.stderr).toBe(0);
  const events = await createJsonlRunStore({ dir: env.STORE_DIR }).read(env.RUN_ID);
  const read = (file: string) =>
    existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined;
  return {
    ...(JSON.parse(resumed.stdout) as { stopReason: string; asked: string[] }),
    reconciled: events.filter(isRunEventOf('tool-call-reconciled')),
    read,
  };
}

describe('the workspace edited by someone else between a crash and the resume', () => {
  it('a file the step wrote, then changed: not taken for the step’s work, not written again', async () => {
    const run = await killEditResume('changed', 'tool-call-finished', (root) =>
      writeFileSync(join(root, 'notes.txt'), 'someone else\n'),
    );
    expect(run.stopReason).not.toMatch(/^completed/);
    expect(run.read('notes.txt')).toBe('someone else\n');
    expect(run.reconciled).toEqual([
      expect.objectContaining({
        tool: 'write_file',
        outcome: 'failed',
        detail: expect.stringContaining('notes.txt'),
      }),
    ]);
  }, 30_000);

  it('a file the step edited, then edited again by someone else: the edit is not applied twice, nor taken as done', async () => {
    const run = await killEditResume('log-changed', 'tool-call-finished/2', (root) =>
      writeFileSync(join(root, 'log.txt'), '# log\n- a\n- b\n'),
    );
    expect(run.stopReason).not.toMatch(/^completed/);
    expect(run.read('log.txt')).toBe('# log\n- a\n- b\n');
    expect(run.reconciled.map((event) => [event.tool, event.outcome])).toEqual([['edit_file', 'failed']]);
  }, 30_000);

  it('a file the step wrote, then deleted: the step is not completed and the file not written again', async () => {
    const run = await killEditResume('deleted', 'tool-call-finished', (root) =>
      unlinkSync(join(root, 'notes.txt')),
    );
    expect(run.stopReason).not.toMatch(/^completed/);
    expect(run.read('notes.txt')).toBeUndefined();
    expect(run.reconciled.map((event) => event.outcome)).toEqual(['failed']);
  }, 30_000);

  it('under ask, the human is told what changed; approved, the run goes on with the files as they are', async () => {
    const run = await killEditResume(
      'asked',
      'tool-call-finished',
      (root) => writeFileSync(join(root, 'notes.txt'), 'someone else\n'),
      { ON_UNCERTAIN: 'ask' },
    );
    expect(run.asked).toEqual([
      expect.stringMatching(/changed between the interruption and this resume: notes\.txt/),
    ]);
    expect(run.reconciled.map((event) => event.outcome)).toEqual(['accepted']);
    expect(run.read('notes.txt')).toBe('someone else\n');
    expect(run.read('log.txt')).toBe('# log\n- a\n');
  }, 30_000);

  it('under ask, denied: the step is blocked for review', async () => {
    const run = await killEditResume(
      'denied',
      'tool-call-finished',
      (root) => writeFileSync(join(root, 'notes.txt'), 'someone else\n'),
      { ON_UNCERTAIN: 'ask', APPROVE: '0' },
    );
    expect(run.stopReason).toBe('blocked');
    expect(run.reconciled.map((event) => event.outcome)).toEqual(['declined']);
    expect(run.read('notes.txt')).toBe('someone else\n');
  }, 30_000);

  it('honest twin: an unrelated file added meanwhile changes nothing — the run completes, nothing asked', async () => {
    const run = await killEditResume(
      'unrelated',
      'tool-call-finished',
      (root) => writeFileSync(join(root, 'other.txt'), 'x\n'),
      { ON_UNCERTAIN: 'ask' },
    );
    expect(run.stopReason).toBe('completed');
    expect(run.asked).toEqual([]);
    expect(run.reconciled).toEqual([]);
    expect([run.read('notes.txt'), run.read('log.txt'), run.read('other.txt')]).toEqual([
      content,
      '# log\n- a\n',
      'x\n',
    ]);
  }, 30_000);

  it('honest twin: the file the step had not written yet, already there with other content, is the call’s to overwrite (it never ran)', async () => {
    const run = await killEditResume('prewritten', 'tool-call-started', (root) =>
      writeFileSync(join(root, 'notes.txt'), 'other\n'),
    );
    expect(run.stopReason).toBe('completed');
    expect(run.read('notes.txt')).toBe(content);
    expect(run.reconciled).toEqual([]);
  }, 30_000);
});
