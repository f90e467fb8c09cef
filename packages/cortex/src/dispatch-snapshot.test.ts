import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fileState,
  gitFingerprint,
  gitLockFiles,
  removeLeftoverGitLocks,
  snapshotBeforeDispatch,
  textSha256,
  workspaceFingerprint,
} from './dispatch-snapshot';

let ws: TempWorkspace;
let outside: string;
beforeEach(async () => {
  ws = await createTempWorkspace({ files: { 'inside.txt': 'hello inside\n' } });
  outside = await mkdtemp(path.join(tmpdir(), 'closedloop-outside-'));
  await writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET of the host\n');
});
afterEach(async () => {
  await ws.cleanup();
  await rm(outside, { recursive: true, force: true });
});

const tool = (name: string) => {
  const found = workspaceTools({ root: ws.root }).find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(name);
  return found;
};

describe('the dispatch snapshot reads no file through a link out of the workspace', () => {
  it('journals a link out as "other", without its target content or hash', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(ws.root, 'link.txt'));
    const snapshot = snapshotBeforeDispatch({
      workspace: ws.root,
      tool: tool('edit_file'),
      input: { path: 'link.txt', old_string: 'TOP', new_string: 'NOT' },
    });
    expect(snapshot).toEqual({ kind: 'file', path: 'link.txt', state: { type: 'other' } });
    expect(JSON.stringify(snapshot)).not.toContain('SECRET');
    expect(fileState(ws.root, path.join(ws.root, 'link.txt'))).toEqual({ type: 'other' });
  });

  it('still follows a link inside the workspace, and snapshots an edit of a real file', async () => {
    await symlink('inside.txt', path.join(ws.root, 'alias.txt'));
    expect(fileState(ws.root, path.join(ws.root, 'alias.txt'))).toEqual({
      type: 'file',
      sha256: textSha256('hello inside\n'),
      bytes: 13,
    });
    const snapshot = snapshotBeforeDispatch({
      workspace: ws.root,
      tool: tool('edit_file'),
      input: { path: 'inside.txt', old_string: 'hello', new_string: 'bye' },
    });
    expect(snapshot).toMatchObject({ kind: 'file', after: { text: 'bye inside\n' } });
    expect(fileState(ws.root, path.join(ws.root, 'nothing.txt'))).toEqual({ type: 'missing' });
  });
});

describe('the git fingerprint reads only bounded regular files inside the git directory', () => {
  it('a FIFO, a link to /dev/zero and a link to / in .git/refs neither hang it nor walk the host', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.root, stdio: 'ignore' });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'one');
    execFileSync('mkfifo', [path.join(ws.root, '.git', 'refs', 'heads', 'fifo')]);
    await symlink('/dev/zero', path.join(ws.root, '.git', 'refs', 'tags', 'zero'));
    await symlink('/', path.join(ws.root, '.git', 'refs', 'loop'));
    // In a child: a read that blocks would block this worker past any test timeout.
    const fingerprint = () =>
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--conditions=@closedloop/source',
          '--input-type=module',
          '-e',
          `import { gitFingerprint } from ${JSON.stringify(path.join(import.meta.dirname, 'dispatch-snapshot.ts'))};
           process.stdout.write(String(gitFingerprint(${JSON.stringify(ws.root)})));`,
        ],
        { encoding: 'utf8', timeout: 15_000 },
      );
    const before = fingerprint();
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint()).toBe(before);
    // It still sees history: a new commit changes it.
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'two');
    expect(fingerprint()).not.toBe(before);
  }, 60_000);
});

describe('the workspace fingerprint never follows a link', () => {
  it('a link to a host folder is fingerprinted as the link: what changes behind it does not count', async () => {
    await symlink(outside, path.join(ws.root, 'host'));
    const before = workspaceFingerprint(ws.root);
    await writeFile(path.join(outside, 'more.txt'), 'written on the host\n');
    expect(workspaceFingerprint(ws.root)).toEqual(before);
    await writeFile(path.join(ws.root, 'inside.txt'), 'changed inside\n');
    expect(workspaceFingerprint(ws.root).fingerprint).not.toBe(before.fingerprint);
  });
});

describe('the git lock files a killed git command left', () => {
  it('are no refs to the history fingerprint, and only the new ones held open by nobody are removed', async () => {
    const repo = await createTempWorkspace({ files: { 'a.txt': 'a\n' }, git: true });
    try {
      const git = path.join(repo.root, '.git');
      await writeFile(path.join(git, 'config.lock'), '');
      const runCommand = workspaceTools({ root: repo.root }).find((tool) => tool.name === 'run_command')!;
      const snapshot = snapshotBeforeDispatch({ workspace: repo.root, tool: runCommand, input: {} });
      expect(snapshot).toMatchObject({ kind: 'workspace', gitLocks: [path.join('.git', 'config.lock')] });
      const history = gitFingerprint(repo.root);
      const branch = (await repo.git('symbolic-ref', '--short', 'HEAD')).trim();
      await writeFile(path.join(git, 'refs', 'heads', `${branch}.lock`), '');
      await writeFile(path.join(git, 'index.lock'), '');
      expect(gitFingerprint(repo.root), 'a ref lock is not a ref').toBe(history);
      expect(gitLockFiles(repo.root)).toHaveLength(3);
      // A live git holds its lock open: that one stays.
      const holder = spawn(
        process.execPath,
        [
          '-e',
          `require('fs').openSync(${JSON.stringify(path.join(git, 'index.lock'))}, 'r'); console.log('held'); setInterval(() => {}, 1000)`,
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      await new Promise((resolve) => holder.stdout.once('data', resolve));
      const gitLocks = snapshot?.kind === 'workspace' ? (snapshot.gitLocks ?? []) : [];
      expect(removeLeftoverGitLocks(repo.root, gitLocks)).toEqual([
        path.join('.git', 'refs', 'heads', `${branch}.lock`),
      ]);
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('close', resolve));
      expect(removeLeftoverGitLocks(repo.root, gitLocks)).toEqual([path.join('.git', 'index.lock')]);
      // The lock that was there at dispatch is not the call's: it stays.
      expect(gitLockFiles(repo.root)).toEqual([path.join('.git', 'config.lock')]);
    } finally {
      await repo.cleanup();
    }
  });
});
