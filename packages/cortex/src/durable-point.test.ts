import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CortexError } from './cortex-error';
import { durablePointSize } from './durable-point';
import { encodeHeader, encodeRecord } from './journal-format';
import { createJsonlRunStore, type JournalDurability, type JsonlRunStore } from './jsonl-run-store';
import type { RunEvent } from './run-events';

const root = mkdtempSync(join(tmpdir(), 'cortex-durable-'));
const opened: JsonlRunStore[] = [];
let counter = 0;
afterAll(async () => {
  for (const store of opened) await store.close();
  rmSync(root, { recursive: true, force: true });
});

function fresh(durability: JournalDurability = 'fsync'): { store: JsonlRunStore; dir: string } {
  const dir = join(root, `store-${counter++}`);
  const store = createJsonlRunStore({ dir, durability });
  opened.push(store);
  return { store, dir };
}

const event = (runId: string, at: number): RunEvent => ({
  type: 'step-started',
  runId,
  at,
  stepId: `s${at}`,
  attempt: 0,
});

/** Appends `groups` groups of two events each, seqs from 0; returns the journal's path. */
async function journal(store: JsonlRunStore, runId: string, groups: number): Promise<string> {
  for (let group = 0; group < groups; group++) {
    await store.append(runId, [
      { seq: group * 2, event: event(runId, group * 2) },
      { seq: group * 2 + 1, event: event(runId, group * 2 + 1) },
    ]);
  }
  await store.close();
  return store.pathOf(runId);
}

async function caught(action: () => Promise<unknown>): Promise<CortexError> {
  const error = await action().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!CortexError.isInstance(error)) throw new Error(`expected a CortexError, got ${String(error)}`);
  return error;
}

/** The journal's lines with their newlines (the header first). */
const linesOf = (path: string): string[] => readFileSync(path, 'utf8').split(/(?<=\n)/);

describe('a journal checked against its durable point (`<runId>.durable`)', () => {
  it('is a fixed-size record beside the journal, moved after each group is durable', async () => {
    for (const durability of ['fsync', 'batch', 'none'] as const) {
      const { store, dir } = fresh(durability);
      await journal(store, 'run-a', 3);
      const point = readFileSync(join(dir, 'run-a.durable'));
      expect(point.length).toBe(durablePointSize);
      expect(JSON.parse(point.toString('utf8'))).toMatchObject({
        format: 'closedloop-journal-durable',
        runId: 'run-a',
        seq: 5,
        bytes: readFileSync(store.pathOf('run-a')).length,
      });
      expect(await store.list()).toEqual(['run-a']);
      // Acknowledged means recorded: the point claims the group as soon as its append resolves.
      await store.append('run-a', [{ seq: 6, event: event('run-a', 6) }]);
      if (durability !== 'none') {
        expect(JSON.parse(readFileSync(join(dir, 'run-a.durable'), 'utf8'))).toMatchObject({ seq: 6 });
      }
      await store.close();
    }
  });

  it('a journal cut back to whole lines behind it is journal-rolled-back (expected and found seq); repair, append and read change nothing', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 3);
    const lines = linesOf(path);
    // The last group (seqs 4 and 5) is gone: it looks like a clean journal of two groups.
    writeFileSync(path, lines.slice(0, 5).join(''));
    const cut = readFileSync(path);
    const error = await caught(() => store.read('run-a'));
    expect(error).toMatchObject({ code: 'journal-rolled-back', details: { expectedSeq: 5, foundSeq: 3 } });
    expect(error.message).toContain('ends at seq 3');
    await expect(store.repair('run-a')).resolves.toEqual({ droppedBytes: 0 });
    await expect(store.append('run-a', [{ seq: 4, event: event('run-a', 40) }])).rejects.toMatchObject({
      code: 'journal-rolled-back',
    });
    expect(readFileSync(path)).toEqual(cut);
    // inspect shows what is intact, with the same problem.
    const inspection = await store.inspect('run-a');
    expect(inspection.events).toHaveLength(4);
    expect(inspection.problem?.code).toBe('journal-rolled-back');
  });

  it('a journal cut inside an acknowledged line is journal-rolled-back, not a torn write: repair refuses and drops nothing', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 2);
    const full = readFileSync(path);
    writeFileSync(path, full.subarray(0, full.length - 7));
    const cut = readFileSync(path);
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-rolled-back');
    expect(await caught(() => store.repair('run-a'))).toMatchObject({
      code: 'journal-rolled-back',
      details: { expectedSeq: 3, foundSeq: 2 },
    });
    expect(readFileSync(path)).toEqual(cut);
  });

  it('a torn write past the durable point is still journal-truncated, repaired, and appended after', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 2);
    // A group written in part when its writer died: nothing acknowledged it.
    writeFileSync(
      path,
      `${readFileSync(path, 'utf8')}${encodeRecord({ seq: 4, event: event('run-a', 4) }).slice(0, 20)}`,
    );
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-truncated');
    expect((await store.repair('run-a')).droppedBytes).toBe(20);
    expect(await store.read('run-a')).toHaveLength(4);
    await store.append('run-a', [{ seq: 4, event: event('run-a', 4) }]);
    expect(await store.read('run-a')).toHaveLength(5);
  });

  it('whole lines a dead writer wrote past the durable point read as events; sync makes them durable before anything acts on them', async () => {
    const { store, dir } = fresh();
    const path = await journal(store, 'run-a', 2);
    const unacknowledged = encodeRecord({ seq: 4, event: event('run-a', 4) });
    writeFileSync(path, `${readFileSync(path, 'utf8')}${unacknowledged}`);
    expect(await store.read('run-a')).toHaveLength(5);
    await store.sync('run-a');
    expect(JSON.parse(readFileSync(join(dir, 'run-a.durable'), 'utf8'))).toMatchObject({ seq: 4 });
    await store.close();
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, -unacknowledged.length));
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-rolled-back');
  });

  it('an older copy of the journal put back (a restored backup) is journal-rolled-back', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 1);
    copyFileSync(path, `${path}.backup`);
    await store.append('run-a', [{ seq: 2, event: event('run-a', 2) }]);
    await store.close();
    copyFileSync(`${path}.backup`, path);
    expect(await caught(() => store.read('run-a'))).toMatchObject({
      code: 'journal-rolled-back',
      details: { expectedSeq: 2, foundSeq: 1 },
    });
  });

  it('a line rewritten in place with valid JSON (same seq, other content) is journal-corrupt; an unreadable middle line too', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 2);
    const lines = linesOf(path);
    const original = lines[2]!;
    lines[2] = original.replace('"at":1', '"at":7');
    expect(lines[2]).not.toBe(original);
    writeFileSync(path, lines.join(''));
    const rewritten = await caught(() => store.read('run-a'));
    expect(rewritten.code).toBe('journal-corrupt');
    expect(rewritten.message).toMatch(/not the ones run "run-a" made durable/);
    lines[2] = `${'x'.repeat(original.length - 1)}\n`;
    writeFileSync(path, lines.join(''));
    expect(await caught(() => store.read('run-a'))).toMatchObject({
      code: 'journal-corrupt',
      details: { line: 3 },
    });
  });

  it('duplicated or reordered seqs are journal-corrupt (two writers, missing records), never a shorter history', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 2);
    const lines = linesOf(path);
    writeFileSync(path, [lines[0], lines[1], lines[3], lines[2], lines[4]].join(''));
    expect(await caught(() => store.read('run-a'))).toMatchObject({
      code: 'journal-corrupt',
      details: { seq: 2, expected: 1 },
    });
    writeFileSync(path, [...lines, encodeRecord({ seq: 1, event: event('run-a', 99) })].join(''));
    expect((await caught(() => store.read('run-a'))).message).toMatch(/two processes wrote this run/);
  });

  it("another run's journal in its place is journal-mismatch; so is another run's durable point", async () => {
    const { store, dir } = fresh();
    const path = await journal(store, 'run-a', 2);
    await journal(store, 'run-b', 3);
    const own = readFileSync(path);
    copyFileSync(store.pathOf('run-b'), path);
    expect(await caught(() => store.read('run-a'))).toMatchObject({
      code: 'journal-mismatch',
      details: { runId: 'run-a', found: 'run-b' },
    });
    await expect(store.append('run-a', [{ seq: 4, event: event('run-a', 4) }])).rejects.toMatchObject({
      code: 'journal-mismatch',
    });
    writeFileSync(path, own);
    expect(await store.read('run-a')).toHaveLength(4);
    copyFileSync(join(dir, 'run-b.durable'), join(dir, 'run-a.durable'));
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-mismatch');
    writeFileSync(join(dir, 'run-a.durable'), 'garbage');
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-corrupt');
  });

  it('a header rewritten to name the run over another journal of the same length is journal-corrupt', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 2);
    const other = linesOf(path).map((line) => line.replace(/"at":(\d)/, '"at":9'));
    other[0] = encodeHeader('run-a', 1);
    writeFileSync(path, other.join(''));
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-corrupt');
  });

  it('a deleted journal whose run made events durable is journal-missing (never an unknown, restartable run)', async () => {
    const { store } = fresh();
    const path = await journal(store, 'run-a', 1);
    unlinkSync(path);
    expect(await caught(() => store.read('run-a'))).toMatchObject({
      code: 'journal-missing',
      details: { expectedSeq: 1, foundSeq: -1 },
    });
    await expect(store.append('run-a', [{ seq: 0, event: event('run-a', 0) }])).rejects.toMatchObject({
      code: 'journal-missing',
    });
    expect(existsSync(path)).toBe(false);
  });

  it('a journal from before durable points reads as before, and gets one on its next append', async () => {
    const { store, dir } = fresh();
    const path = await journal(store, 'run-a', 2);
    unlinkSync(join(dir, 'run-a.durable'));
    expect(await store.read('run-a')).toHaveLength(4);
    await store.append('run-a', [{ seq: 4, event: event('run-a', 4) }]);
    await store.close();
    writeFileSync(path, linesOf(path).slice(0, 3).join(''));
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-rolled-back');
  });

  it('a live writer in another process never reads as behind its point; SIGKILLed mid-append, its journal reads or repairs whole (4 kills)', async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    for (let kill = 0; kill < 4; kill++) {
      const { store, dir } = fresh();
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--conditions=@closedloop/source',
          join(here, '__fixtures__', 'append-forever.ts'),
        ],
        {
          cwd: join(here, '..'),
          env: { ...process.env, STORE_DIR: dir, DURABILITY: kill % 2 === 1 ? 'batch' : 'fsync' },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const exited = new Promise((resolve) => child.on('exit', resolve));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('appending')) resolve();
        });
        child.on('exit', () => reject(new Error('the child exited before appending')));
      });
      // Read while it writes: a torn last line may show (journal-truncated), never a point ahead.
      for (let read = 0; read < 10; read++) {
        const { problem } = await store.inspect('run-a');
        if (problem) expect(problem.code).toBe('journal-truncated');
      }
      await new Promise((resolve) => setTimeout(resolve, (kill * 13) % 40));
      child.kill('SIGKILL');
      await exited;
      const before = (await store.inspect('run-a')).problem;
      if (before) {
        expect(before.code).toBe('journal-truncated');
        await store.repair('run-a');
      }
      const events = await store.read('run-a');
      expect(events.length).toBeGreaterThanOrEqual(3);
      // And the point is never below what a resume then reads and acts on.
      const point = JSON.parse(readFileSync(join(dir, 'run-a.durable'), 'utf8'));
      expect(point.seq).toBeLessThanOrEqual(events.length - 1);
      await store.sync('run-a');
      expect(JSON.parse(readFileSync(join(dir, 'run-a.durable'), 'utf8')).seq).toBe(events.length - 1);
      await store.close();
    }
  }, 90_000);
});
