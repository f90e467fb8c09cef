import { chmod, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { createWorkspaceFacts } from './workspace-facts';

const workspace = useTempWorkspaces({ git: true });
const repo = (files: Record<string, string>, git = true) => workspace(files, { git });

describe('createWorkspaceFacts', { timeout: 30_000 }, () => {
  it('reports untracked, modified and deleted files from real git', async () => {
    const ws = await repo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'README.md': 'r\n' });
    await ws.write('src/a.ts', 'a2\n');
    await ws.write('src/new dir/c.ts', 'c\n');
    await rm(path.join(ws.root, 'src/b.ts'));
    const facts = createWorkspaceFacts(ws.root);
    const changes = await facts.changes();
    expect(
      Object.fromEntries([...(changes ?? new Map()).values()].map((change) => [change.path, change.kind])),
    ).toEqual({
      'src/a.ts': 'modified',
      'src/b.ts': 'deleted',
      'src/new dir/c.ts': 'untracked',
    });
    const diff = await facts.diff();
    expect(diff).toContain('-a\n+a2');
    expect(diff).toContain('+++ b/src/new dir/c.ts');
    expect(facts.isFile('src/a.ts')).toBe(true);
    expect(facts.exists('src/b.ts')).toBe(false);
  });

  it.each([2, 3, 4])(
    'sees changes the index hides from git (assume-unchanged, skip-worktree; index version %i)',
    async (version) => {
      const ws = await repo({
        'pkg/a.ts': 'a\n',
        'pkg/b.ts': 'b\n',
        'pkg/c.ts': 'c\n',
        'pkg/same.ts': 's\n',
        'pkg/sparse.ts': 'p\n',
      });
      await ws.git('update-index', `--index-version=${version}`);
      await ws.git('update-index', '--assume-unchanged', 'pkg/a.ts', 'pkg/c.ts', 'pkg/same.ts');
      await ws.git('update-index', '--skip-worktree', 'pkg/b.ts', 'pkg/sparse.ts');
      await ws.write('pkg/a.ts', 'a2\n');
      await ws.write('pkg/b.ts', 'b2\n');
      await rm(path.join(ws.root, 'pkg/c.ts'));
      // A sparse checkout leaves skip-worktree files out: not a deletion.
      await rm(path.join(ws.root, 'pkg/sparse.ts'));
      // Git itself sees nothing.
      expect(await ws.git('status', '--porcelain')).toBe('');
      const facts = createWorkspaceFacts(path.join(ws.root, 'pkg'));
      const changes = [...((await facts.changes()) ?? new Map()).values()];
      expect(changes.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
        { path: 'a.ts', kind: 'modified', hiddenBy: 'assume-unchanged' },
        { path: 'b.ts', kind: 'modified', hiddenBy: 'skip-worktree' },
        { path: 'c.ts', kind: 'deleted', hiddenBy: 'assume-unchanged' },
      ]);
      const diff = await facts.diff();
      expect(diff).toContain("the index's assume-unchanged bit hides this file");
      expect(diff).toContain('--- a/a.ts\n+++ b/a.ts\n@@ -1,1 +1,1 @@\n-a\n+a2\n');
      expect(diff).toContain('--- a/b.ts\n+++ b/b.ts\n@@ -1,1 +1,1 @@\n-b\n+b2\n');
      expect(diff).toContain('--- a/c.ts\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-c\n');
    },
  );

  it('sees new files hidden by ignore rules a command added (.git/info/exclude, a self-ignoring .gitignore)', async () => {
    const ws = await repo({ 'a.ts': 'a\n', '.gitignore': 'node_modules/\n' });
    await ws.write('node_modules/x/index.js', 'x\n');
    await ws.write('secret.ts', 's\n');
    await writeFile(path.join(ws.root, '.git', 'info', 'exclude'), 'secret.ts\n');
    await ws.write('gen/.gitignore', '*\n');
    await ws.write('gen/out.js', 'o\n');
    expect(await ws.git('status', '--porcelain')).toBe('');
    const facts = createWorkspaceFacts(ws.root);
    const changes = [...((await facts.changes()) ?? new Map()).values()];
    expect(changes.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: 'gen/.gitignore', kind: 'untracked', hiddenBy: 'ignore-rule' },
      { path: 'gen/out.js', kind: 'untracked', hiddenBy: 'ignore-rule' },
      { path: 'secret.ts', kind: 'untracked', hiddenBy: 'ignore-rule' },
    ]);
    const diff = await facts.diff();
    expect(diff).toContain('an ignore rule that is not committed hides this file');
    expect(diff).toContain('--- /dev/null\n+++ b/secret.ts\n@@ -0,0 +1,1 @@\n+s\n');
  });

  it('is not fooled by the repository configuration or attributes a command wrote', async () => {
    const ws = await repo({ 'a.ts': 'a\n', 'b.ts': 'b\n' });
    const quiet = path.join(ws.root, '.git', 'quiet.sh');
    await writeFile(quiet, '#!/bin/sh\nexit 0\n');
    await chmod(quiet, 0o755);
    await writeFile(path.join(ws.root, '.git', 'excludes'), 'new.ts\n');
    await ws.git('config', 'status.showUntrackedFiles', 'no');
    await ws.git('config', 'core.excludesFile', path.join(ws.root, '.git', 'excludes'));
    await ws.git('config', 'diff.noprefix', 'true');
    await ws.git('config', 'diff.external', quiet);
    await writeFile(path.join(ws.root, '.git', 'info', 'attributes'), 'b.ts -diff\n');
    await ws.write('a.ts', 'a2\n');
    await ws.write('b.ts', 'b2\n');
    await ws.write('new.ts', 'n\n');
    const facts = createWorkspaceFacts(ws.root);
    const changes = (await facts.changes()) ?? new Map();
    expect(changes.get('new.ts')).toEqual({ path: 'new.ts', kind: 'untracked' });
    const diff = await facts.diff();
    expect(diff).toContain('diff --git a/a.ts b/a.ts');
    expect(diff).toContain('-a\n+a2');
    expect(diff).toContain('-b\n+b2');
    expect(diff).not.toContain('Binary files');
    expect(diff).toContain('+++ b/new.ts');
  });

  it('refuses a repository whose core.worktree points git at another folder (fails closed)', async () => {
    const ws = await repo({ 'a.ts': 'a\n' });
    const other = await repo({ 'b.ts': 'b\n' }, false);
    await ws.write('a.ts', 'a2\n');
    await ws.git('config', 'core.worktree', other.root);
    await expect(createWorkspaceFacts(ws.root).changes()).rejects.toThrow(/core\.worktree|git status failed/);
  });

  it('counts changes a step already committed when given the base commit', async () => {
    const ws = await repo({ 'a.txt': '1\n' });
    const base = (await ws.git('rev-parse', 'HEAD')).trim();
    await ws.write('a.txt', '2\n');
    await ws.git('commit', '-qam', 'step commit');
    expect((await createWorkspaceFacts(ws.root).changes())?.size).toBe(0);
    expect((await createWorkspaceFacts(ws.root, { baseRef: base }).changes())?.get('a.txt')?.kind).toBe(
      'modified',
    );
  });

  it('works from a subfolder of a repository, with paths relative to the workspace', async () => {
    const ws = await repo({ 'pkg/src/a.ts': 'a\n', 'other.txt': 'o\n' });
    await ws.write('pkg/src/a.ts', 'changed\n');
    await ws.write('other.txt', 'changed\n');
    const facts = createWorkspaceFacts(path.join(ws.root, 'pkg'));
    expect([...((await facts.changes()) ?? new Map()).keys()]).toEqual(['src/a.ts']);
  });

  it('has no git facts outside a repository and normalises paths', async () => {
    const ws = await repo({ 'a.ts': 'x' }, false);
    const facts = createWorkspaceFacts(ws.root);
    expect(facts.gitTop).toBeUndefined();
    expect(await facts.changes()).toBeUndefined();
    expect(await facts.diff()).toBe('');
    expect(facts.relative('./src\\b.ts')).toBe('src/b.ts');
    expect(facts.relative(path.join(ws.root, 'a.ts'))).toBe('a.ts');
    expect(facts.relative('../escape.ts')).toBeUndefined();
    expect(facts.relative('/etc/passwd')).toBeUndefined();
    expect(facts.read('a.ts')).toBe('x');
    expect(facts.read('missing.ts')).toBeUndefined();
  });

  it('never reads a file through a link out of the workspace (a command may plant one)', async () => {
    const outside = await repo({ 'secret.txt': 'OUTSIDE-CANARY\n' }, false);
    const ws = await repo({ 'src/a.ts': 'a\n' });
    await symlink(path.join(outside.root, 'secret.txt'), path.join(ws.root, 'src', 'leak.ts'));
    await symlink(outside.root, path.join(ws.root, 'linked-dir'));
    await symlink('a.ts', path.join(ws.root, 'src', 'alias.ts'));
    const facts = createWorkspaceFacts(ws.root);
    expect(facts.read('src/leak.ts')).toBeUndefined();
    expect(facts.read('linked-dir/secret.txt')).toBeUndefined();
    expect(facts.read('src/alias.ts')).toBe('a\n');
    expect(facts.read('src/a.ts')).toBe('a\n');
  });
});
