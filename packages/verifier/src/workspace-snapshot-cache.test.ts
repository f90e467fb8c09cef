import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import {
  diffSnapshots,
  snapshotCacheSize,
  snapshotWorkspace,
  type WorkspaceSnapshot,
} from './workspace-snapshot';

const workspace = useTempWorkspaces();

/** Longer than the cache's racy margin: files written before it are cacheable. */
const age = () => new Promise((resolve) => setTimeout(resolve, 150));

/** A cached snapshot, checked against the uncached oracle taken right after it. */
function snapshotChecked(root: string): WorkspaceSnapshot {
  const cached = snapshotWorkspace(root);
  const oracle = snapshotWorkspace(root, { cache: false });
  expect(cached.files).toEqual(oracle.files);
  expect(cached.texts).toEqual(oracle.texts);
  expect(cached.truncated).toBe(oracle.truncated);
  return cached;
}

/** A file outside the workspace to hold a file's times (`touch -r` creates it). */
const timesFile = () =>
  path.join(tmpdir(), `closedloop-times-${process.pid}-${Math.random().toString(36).slice(2)}`);

/** Gives `target` the exact (nanosecond) times of `reference`, as a hostile `touch -r` would. */
function copyTimes(reference: string, target: string): void {
  execFileSync('touch', ['-r', reference, target]);
  expect(statSync(target, { bigint: true }).mtimeNs).toBe(statSync(reference, { bigint: true }).mtimeNs);
}

/** Rewrites `file` with same-size content and gives it back its exact mtime. */
function rewriteKeepingMtime(file: string, content: string): void {
  const before = statSync(file, { bigint: true });
  expect(BigInt(Buffer.byteLength(content))).toBe(before.size);
  const reference = timesFile();
  copyTimes(file, reference);
  writeFileSync(file, content);
  copyTimes(reference, file);
  rmSync(reference);
}

describe('snapshotWorkspace cache', () => {
  it('gives exactly the uncached snapshot across edits that keep size and mtime, renames, links, deletes and truncation', async () => {
    const ws = await workspace({
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 1;\n',
      'test/a.test.ts': 'expect(a).toBe(1);\n',
      'notes.txt': 'first note\n',
      'data.bin': 'x'.repeat(5000),
    });
    symlinkSync('src/a.ts', path.join(ws.root, 'current.ts'));
    const file = (rel: string) => path.join(ws.root, rel);
    await age();
    let before = snapshotChecked(ws.root);
    // Every regular file is cached now (the link is not a cached state).
    expect(snapshotCacheSize().entries).toBeGreaterThanOrEqual(5);
    const step = (expected: Partial<Record<'created' | 'modified' | 'deleted', string[]>>) => {
      const after = snapshotChecked(ws.root);
      const changes = diffSnapshots(before, after);
      expect([...changes.created].sort()).toEqual(expected.created ?? []);
      expect([...changes.modified].sort()).toEqual(expected.modified ?? []);
      expect([...changes.deleted].sort()).toEqual(expected.deleted ?? []);
      before = after;
    };
    step({});

    // An edit whose mtime is put back: only ctime (and content) tell it.
    rewriteKeepingMtime(file('src/a.ts'), 'export const a = 9;\n');
    step({ modified: ['src/a.ts'] });
    expect(before.texts.get('src/a.ts')).toBe('export const a = 9;\n');

    // Two same-size writes in the same moment, the snapshot between them: the first state is
    // too recent to cache, so the second is read whatever its stats.
    writeFileSync(file('notes.txt'), 'other note\n');
    step({ modified: ['notes.txt'] });
    rewriteKeepingMtime(file('notes.txt'), 'third note\n');
    step({ modified: ['notes.txt'] });

    // A test file replaced by a rename (new inode) with the same size and mtime.
    await age();
    step({});
    const testFile = file('test/a.test.ts');
    const old = statSync(testFile);
    writeFileSync(file('test/tmp'), 'expect(a).toBe(2);\n');
    copyTimes(testFile, file('test/tmp'));
    renameSync(file('test/tmp'), testFile);
    expect(lstatSync(testFile).ino).not.toBe(old.ino);
    step({ modified: ['test/a.test.ts'] });
    expect(before.texts.get('test/a.test.ts')).toBe('expect(a).toBe(2);\n');

    // A link swapped to another target; then a link replaced by a regular file.
    await age();
    step({});
    unlinkSync(file('current.ts'));
    symlinkSync('src/b.ts', file('current.ts'));
    step({});
    unlinkSync(file('current.ts'));
    writeFileSync(file('current.ts'), 'src/b.ts');
    step({ modified: ['current.ts'] });

    // Deletion, then a file created again at the same path with the same content and mtime.
    await age();
    step({});
    const bTimes = timesFile();
    copyTimes(file('src/b.ts'), bTimes);
    rmSync(file('src/b.ts'));
    step({ deleted: ['src/b.ts'] });
    writeFileSync(file('src/b.ts'), 'export const b = 2;\n');
    copyTimes(bTimes, file('src/b.ts'));
    rmSync(bTimes);
    step({ created: ['src/b.ts'] });

    // Truncation.
    await age();
    step({});
    truncateSync(file('data.bin'), 0);
    step({ modified: ['data.bin'] });

    // A smaller hash limit: nothing cached under the larger one is reused.
    await age();
    step({});
    const small = snapshotWorkspace(ws.root, { maxHashBytes: 4 });
    expect(small.files).toEqual(snapshotWorkspace(ws.root, { cache: false, maxHashBytes: 4 }).files);
    expect(small.files.get('src/a.ts')?.hash).toBeUndefined();
    step({});
  });

  it('sees every entry added, removed, renamed or retyped in a cached directory — its mtime restored, the directory swapped, or made a virtualenv', async () => {
    const ws = await workspace({
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 1;\n',
      'src/deep/c.ts': 'export const c = 1;\n',
      'other/d.ts': 'export const d = 1;\n',
      'tools/x.py': 'x = 1\n',
    });
    const file = (rel: string) => path.join(ws.root, rel);
    await age();
    let before = snapshotChecked(ws.root);
    const step = (expected: Partial<Record<'created' | 'modified' | 'deleted', string[]>>) => {
      const after = snapshotChecked(ws.root);
      const changes = diffSnapshots(before, after);
      expect([...changes.created].sort()).toEqual(expected.created ?? []);
      expect([...changes.modified].sort()).toEqual(expected.modified ?? []);
      expect([...changes.deleted].sort()).toEqual(expected.deleted ?? []);
      before = after;
      return after;
    };
    // Every file is old enough to be cached now.
    await age();
    step({});

    // A file added to a cached folder whose mtime is then put back: its ctime still moved.
    const srcTimes = timesFile();
    copyTimes(file('src'), srcTimes);
    writeFileSync(file('src/new.ts'), 'export const n = 1;\n');
    copyTimes(srcTimes, file('src'));
    rmSync(srcTimes);
    step({ created: ['src/new.ts'] });

    // A rename inside a folder, and a file in a cached folder edited in place (the folder's
    // times do not move: the file's own stat tells it).
    await age();
    step({});
    renameSync(file('src/b.ts'), file('src/b2.ts'));
    writeFileSync(file('src/deep/c.ts'), 'export const c = 2;\n');
    step({ created: ['src/b2.ts'], deleted: ['src/b.ts'], modified: ['src/deep/c.ts'] });

    // A file replaced by a folder of the same name, and back.
    await age();
    step({});
    rmSync(file('src/a.ts'));
    mkdirSync(file('src/a.ts'));
    writeFileSync(file('src/a.ts/inner.ts'), 'export const i = 1;\n');
    step({ created: ['src/a.ts/inner.ts'], deleted: ['src/a.ts'] });
    await age();
    step({});
    rmSync(file('src/a.ts'), { recursive: true });
    writeFileSync(file('src/a.ts'), 'export const a = 1;\n');
    step({ created: ['src/a.ts'], deleted: ['src/a.ts/inner.ts'] });

    // A cached folder swapped for another one (a new inode) with the same times.
    await age();
    step({});
    mkdirSync(file('other2'));
    writeFileSync(file('other2/d.ts'), 'export const d = 2;\n');
    writeFileSync(file('other2/e.ts'), 'export const e = 1;\n');
    copyTimes(file('other'), file('other2'));
    rmSync(file('other'), { recursive: true });
    renameSync(file('other2'), file('other'));
    step({ created: ['other/e.ts'], modified: ['other/d.ts'] });

    // A cached folder that becomes a virtualenv is recorded per package from then on.
    await age();
    step({});
    writeFileSync(file('tools/pyvenv.cfg'), 'home = /usr/bin\n');
    mkdirSync(file('tools/lib/python3.12/site-packages/requests'), { recursive: true });
    const venv = step({ deleted: ['tools/x.py'] });
    expect([...venv.packages.keys()]).toEqual(['site-packages/requests']);
    expect([...venv.files.keys()].some((rel) => rel.startsWith('tools/'))).toBe(false);
  });

  it('stays bounded: the last 8 roots, and no more entries than files the last walk saw', async () => {
    const roots: string[] = [];
    try {
      for (let index = 0; index < 10; index += 1) {
        const root = mkdtempSync(path.join(tmpdir(), 'closedloop-snapshot-cache-'));
        roots.push(root);
        for (let file = 0; file < 3; file += 1)
          writeFileSync(path.join(root, `f${file}.txt`), `${index}:${file}\n`);
      }
      await age();
      for (const root of roots) snapshotWorkspace(root);
      expect(snapshotCacheSize()).toEqual({ roots: 8, entries: 24 });
      const last = roots[roots.length - 1] ?? '';
      rmSync(path.join(last, 'f0.txt'));
      rmSync(path.join(last, 'f1.txt'));
      snapshotWorkspace(last);
      expect(snapshotCacheSize()).toEqual({ roots: 8, entries: 22 });
      // The uncached oracle leaves the cache alone.
      snapshotWorkspace(roots[0] ?? '', { cache: false });
      expect(snapshotCacheSize()).toEqual({ roots: 8, entries: 22 });
    } finally {
      for (const root of roots) rmSync(root, { recursive: true, force: true });
    }
  });
});
