import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { diffSnapshots, readGitRefs, snapshotWorkspace } from './workspace-snapshot';

const workspace = useTempWorkspaces({ git: true });
const here = path.dirname(fileURLToPath(import.meta.url));

describe('snapshotWorkspace / diffSnapshots', () => {
  it('keeps the listing of every folder it walked, as it is now, and none of the folders it skips', async () => {
    const ws = await workspace({ 'src/a.ts': 'export const a = 1;\n', 'node_modules/x/package.json': '{}' });
    await ws.write('src/deep/b.ts', 'export const b = 1;\n');
    const first = snapshotWorkspace(ws.root);
    expect([...(first.folders?.get('src') ?? [])].sort()).toEqual(['a.ts', 'deep']);
    expect(first.folders?.get('src/deep')).toEqual(['b.ts']);
    expect(first.folders?.get('')).toEqual(expect.arrayContaining(['src', 'node_modules', '.git']));
    expect(first.folders?.has('.git')).toBe(false);
    expect(first.folders?.has('node_modules')).toBe(false);
    // A cached walk still lists what the folder holds now.
    await ws.write('src/c.ts', 'export const c = 1;\n');
    expect([...(snapshotWorkspace(ws.root).folders?.get('src') ?? [])].sort()).toEqual([
      'a.ts',
      'c.ts',
      'deep',
    ]);
  });

  it('sees created, modified, deleted and moved files against the baseline — commits, ignored files and all', async () => {
    const ws = await workspace({
      '.gitignore': 'dist/\n',
      'src/a.ts': 'export const a = 1;\n',
      'src/old.ts': 'export const old = 1;\n',
      'test/a.test.ts': 'expect(a).toBe(1);\n',
    });
    await ws.write('dist/index.js', 'stale\n');
    const before = snapshotWorkspace(ws.root);
    expect(before.files.has('dist/index.js')).toBe(true);
    expect(before.texts.get('test/a.test.ts')).toContain('expect(a)');
    expect(before.git?.branch).toBe('main');

    await ws.write('src/a.ts', 'export const a = 2;\n');
    await ws.git('commit', '-qam', 'own work');
    await ws.write('src/b.ts', 'export const b = 1;\n');
    await ws.write('src/moved.ts', 'export const old = 1;\n');
    await rm(path.join(ws.root, 'src/old.ts'));
    const changes = diffSnapshots(before, snapshotWorkspace(ws.root));
    expect([...changes.created].sort()).toEqual(['src/b.ts', 'src/moved.ts']);
    expect(changes.modified).toEqual(['src/a.ts']);
    expect(changes.deleted).toEqual(['src/old.ts']);
    expect(changes.moved).toEqual([{ from: 'src/old.ts', to: 'src/moved.ts' }]);
    expect(changes.status('dist/index.js')).toBe('unchanged');
    expect(changes.status('never.ts')).toBe('unchanged');
    expect(changes.refsChanged.map((ref) => ref.ref)).toEqual(
      expect.arrayContaining(['refs/heads/main', 'HEAD']),
    );
  });

  it('judges rewrites by content, not by timestamps, and records node_modules per package', async () => {
    const ws = await workspace({
      'a.txt': 'same\n',
      'node_modules/left-pad/package.json': '{"version":"1.0.0"}',
    });
    const before = snapshotWorkspace(ws.root);
    expect(before.packages.has('node_modules/left-pad')).toBe(true);
    expect([...before.files.keys()].some((file) => file.startsWith('node_modules/'))).toBe(false);
    await ws.write('a.txt', 'same\n');
    await ws.write('node_modules/dayjs/package.json', '{"version":"1.0.0"}');
    const changes = diffSnapshots(before, snapshotWorkspace(ws.root));
    expect(changes.status('a.txt')).toBe('unchanged');
    expect(changes.packagesChanged).toEqual(['node_modules/dayjs']);
  });

  it('marks a walk cut by maxFiles as truncated: unseen paths are unknown, never unchanged', async () => {
    const ws = await workspace({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
    const before = snapshotWorkspace(ws.root, { maxFiles: 1 });
    expect(before.truncated).toBe(true);
    expect(diffSnapshots(before, snapshotWorkspace(ws.root, { maxFiles: 1 })).status('zzz.txt')).toBe(
      'unknown',
    );
  });

  it('reads HEAD and refs from .git without starting git', async () => {
    const ws = await workspace({ 'a.txt': 'a' });
    const refs = readGitRefs(ws.root);
    expect(refs?.head).toBe((await ws.git('rev-parse', 'HEAD')).trim());
    expect(refs?.refs.get('refs/heads/main')).toBe(refs?.head);
  });

  it('never blocks on, or reads without end, a ref a command made a FIFO or a link to /dev/zero', async () => {
    const ws = await workspace({ 'a.txt': 'a' });
    const head = (await ws.git('rev-parse', 'HEAD')).trim();
    execFileSync('mkfifo', [
      path.join(ws.root, '.git/refs/heads/fifo'),
      path.join(ws.root, '.git/packed-refs'),
    ]);
    await symlink('/dev/zero', path.join(ws.root, '.git/refs/tags/zero'));
    // In a child process: a blocked read would hang this one for good.
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@closedloop/source',
        '--input-type=module',
        '-e',
        `import { readGitRefs } from ${JSON.stringify(path.join(here, 'workspace-snapshot.ts'))};
const refs = readGitRefs(${JSON.stringify(ws.root)});
console.log(JSON.stringify({ head: refs?.head, refs: [...(refs?.refs.keys() ?? [])] }));`,
      ],
      { cwd: path.join(here, '..'), encoding: 'utf8', timeout: 20_000, maxBuffer: 1024 * 1024 },
    );
    expect(child.signal, child.stderr).toBeNull();
    expect(JSON.parse(child.stdout)).toEqual({ head, refs: ['refs/heads/main'] });
  });

  it('never reads through a test file swapped for a link to a file outside the workspace', async () => {
    const outside = await workspace({ 'secret.txt': 'OUTSIDE-CANARY\n' }, { git: false });
    const ws = await workspace({ 'test/flip.test.ts': 'inside\n' }, { git: false });
    const dir = path.join(ws.root, 'test');
    // Another process swaps the file and a link to the outside file, atomically, in a loop.
    const flipper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const p = require('node:path'); const d = ${JSON.stringify(dir)};
for (let i = 0; ; i++) {
  try { fs.rmSync(p.join(d, 'l')); } catch {}
  fs.symlinkSync(${JSON.stringify(path.join(outside.root, 'secret.txt'))}, p.join(d, 'l'));
  fs.renameSync(p.join(d, 'l'), p.join(d, 'flip.test.ts'));
  fs.writeFileSync(p.join(d, 'f'), 'inside ' + i + '\\n'); fs.renameSync(p.join(d, 'f'), p.join(d, 'flip.test.ts'));
  // Now and then the regular file stays a moment, so that a snapshot can read it even when this
  // loop gets a core to itself (the test also checks that some reads happened).
  if (i % 16 === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3);
}`,
      ],
      { stdio: 'ignore' },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      let read = 0;
      for (let i = 0; i < 1500; i++) {
        const text = snapshotWorkspace(ws.root).texts.get('test/flip.test.ts');
        if (text !== undefined) read++;
        expect(text ?? '').not.toContain('OUTSIDE-CANARY');
      }
      expect(read).toBeGreaterThan(0);
    } finally {
      flipper.kill('SIGKILL');
    }
  });
});
