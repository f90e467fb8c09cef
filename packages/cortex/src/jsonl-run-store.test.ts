import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CortexError } from './cortex-error';
import { createJsonlRunStore, type JsonlRunStore } from './jsonl-run-store';
import type { RunEvent } from './run-events';
import { runStoreConformance } from './run-store-conformance';

const root = mkdtempSync(join(tmpdir(), 'cortex-jsonl-'));
const opened: JsonlRunStore[] = [];
let counter = 0;
const fresh = (): JsonlRunStore => {
  const store = createJsonlRunStore({ dir: join(root, `store-${counter++}`), maxOpenFiles: 2 });
  opened.push(store);
  return store;
};
afterAll(() => {
  for (const store of opened) store.close();
});

const started = (runId: string, at: number): RunEvent => ({
  type: 'run-started',
  runId,
  at,
  request: 'r',
  resumed: false,
});

describe('JSONL run store conformance', () => {
  for (const check of runStoreConformance(fresh, {
    reopen: (store) => {
      const jsonl = store as JsonlRunStore;
      jsonl.close();
      const dir = join(jsonl.pathOf('x'), '..');
      const again = createJsonlRunStore({ dir });
      opened.push(again);
      return again;
    },
  })) {
    it(check.name, check.run);
  }
});

describe('JSONL journal durability', () => {
  it('writes one line per event, readable as JSONL', async () => {
    const store = fresh();
    store.append('run-a', started('run-a', 1));
    store.append('run-a', started('run-a', 2));
    const lines = readFileSync(store.pathOf('run-a'), 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[1]!)).toMatchObject({ type: 'run-started', at: 2 });
  });

  it('tolerates a torn last line on read and cuts it before the next append', async () => {
    const store = fresh();
    store.append('run-a', started('run-a', 1));
    store.close();
    appendFileSync(store.pathOf('run-a'), '{"type":"run-started","runId":"run-a","at":2,"req');
    const reopened = createJsonlRunStore({ dir: join(store.pathOf('run-a'), '..') });
    opened.push(reopened);
    expect((await reopened.read('run-a')).map((event) => event.at)).toEqual([1]);
    reopened.append('run-a', started('run-a', 3));
    expect((await reopened.read('run-a')).map((event) => event.at)).toEqual([1, 3]);
    expect(readFileSync(store.pathOf('run-a'), 'utf8')).not.toContain('"req\n');
  });

  it('treats a complete last line without its newline as torn (the append never returned)', async () => {
    const store = fresh();
    store.append('run-a', started('run-a', 1));
    store.close();
    appendFileSync(store.pathOf('run-a'), JSON.stringify(started('run-a', 2)));
    expect((await store.read('run-a')).map((event) => event.at)).toEqual([1]);
  });

  it('a torn line that is the whole file reads as empty and is cut on append', async () => {
    const store = fresh();
    store.append('run-b', started('run-b', 0));
    store.close();
    writeFileSync(store.pathOf('run-b'), '{"type":"run-st');
    expect(await store.read('run-b')).toEqual([]);
    store.append('run-b', started('run-b', 5));
    expect((await store.read('run-b')).map((event) => event.at)).toEqual([5]);
  });

  it('a corrupt line in the middle is a typed error with its line number', async () => {
    const store = fresh();
    store.append('run-a', started('run-a', 1));
    store.close();
    appendFileSync(store.pathOf('run-a'), 'not json\n');
    appendFileSync(store.pathOf('run-a'), `${JSON.stringify(started('run-a', 3))}\n`);
    const error = await store.read('run-a').catch((caught: unknown) => caught);
    expect(CortexError.isInstance(error) && error.code).toBe('journal-corrupt');
    expect(CortexError.isInstance(error) && error.details.line).toBe(2);
  });

  it('a line that is JSON but not an event is a typed error', async () => {
    const store = fresh();
    store.append('run-a', started('run-a', 1));
    store.close();
    appendFileSync(store.pathOf('run-a'), '[1,2]\n');
    await expect(store.read('run-a')).rejects.toMatchObject({ code: 'journal-corrupt' });
  });

  it('corrupt metadata is a typed error', async () => {
    const store = fresh();
    await store.writeMeta('run-a', { runId: 'run-a', request: 'r', createdAt: 1, options: {} });
    writeFileSync(join(store.pathOf('run-a'), '..', 'run-a.meta.json'), '{');
    await expect(store.readMeta('run-a')).rejects.toMatchObject({ code: 'journal-corrupt' });
  });

  it('keeps at most maxOpenFiles descriptors and reopens evicted runs correctly', async () => {
    const store = fresh();
    for (let round = 0; round < 3; round++) {
      for (const runId of ['r1', 'r2', 'r3', 'r4']) store.append(runId, started(runId, round));
    }
    for (const runId of ['r1', 'r2', 'r3', 'r4']) {
      expect((await store.read(runId)).map((event) => event.at)).toEqual([0, 1, 2]);
    }
  });

  it('a write failure is a typed store error', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const store = createJsonlRunStore({ dir: join(file, 'sub') });
    expect(() => store.append('run-a', started('run-a', 1))).toThrow(
      expect.objectContaining({ code: 'store-failed' }),
    );
  });

  it('rejects bad options with typed errors', () => {
    expect(() => createJsonlRunStore({ dir: '' })).toThrow(
      expect.objectContaining({ code: 'invalid-options' }),
    );
    expect(() => createJsonlRunStore({ dir: root, maxOpenFiles: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid-options' }),
    );
  });
});
