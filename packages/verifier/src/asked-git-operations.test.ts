import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { type AskedGitOperation, askedGitOperations, checkGitOperation } from './asked-git-operations';
import { readGitRefs } from './workspace-snapshot';

const execFileAsync = promisify(execFile);
const workspace = useTempWorkspaces({ git: true });

describe('askedGitOperations', () => {
  it.each<[string, AskedGitOperation[]]>([
    ['Merge the branch feature into main', [{ kind: 'merge', branch: 'feature', into: 'main' }]],
    ['Merge `fix/login`', [{ kind: 'merge', branch: 'fix/login' }]],
    ['Revert the commit "feat: beta flag"', [{ kind: 'revert', subject: 'feat: beta flag' }]],
    ['Revert commit 3f2a9c1', [{ kind: 'revert', hash: '3f2a9c1' }]],
    ['Revert the last commit', [{ kind: 'revert', last: true }]],
    ['Stash the uncommitted changes to src/app.js', [{ kind: 'stash', files: ['src/app.js'] }]],
  ])('%s', (description, operations) => {
    expect(askedGitOperations(description)).toEqual(operations);
  });

  it.each(['Revert the change to src/a.js', 'Stash pop the changes back', 'Add a stash icon'])(
    'asks none: %s',
    (description) => {
      expect(askedGitOperations(description)).toEqual([]);
    },
  );
});

describe('checkGitOperation reads the real repository', () => {
  async function repository(files: Record<string, string> = { 'a.txt': '1\n' }) {
    const ws = await workspace(files);
    const git = async (args: readonly string[]) => {
      try {
        const { stdout } = await execFileAsync('git', [...args], { cwd: ws.root });
        return { exitCode: 0, stdout } as never;
      } catch {
        return { exitCode: 1, stdout: '' } as never;
      }
    };
    const commit = async (file: string, text: string, message: string) => {
      await ws.write(file, text);
      await ws.git('add', '-A');
      await ws.git('commit', '-qm', message);
    };
    return { ws, git, commit };
  }

  it('a merge: the branch must be an ancestor of HEAD; a branch the repository lacks is not judged', async () => {
    const { ws, git, commit } = await repository();
    await ws.git('checkout', '-qb', 'feature');
    await commit('f.txt', 'f\n', 'feat: f');
    await ws.git('checkout', '-q', 'main');
    await commit('m.txt', 'm\n', 'chore: m');
    const before = readGitRefs(ws.root);
    await ws.git('checkout', 'feature', '--', 'f.txt');
    await ws.git('commit', '-qm', 'Merge branch feature');
    const env = () => ({ refs: { before, after: readGitRefs(ws.root) }, git });
    const merge: AskedGitOperation = { kind: 'merge', branch: 'feature', into: 'main' };
    expect(await checkGitOperation(merge, env())).toMatchObject({ status: 'fail' });
    await ws.git('merge', '-q', '--no-edit', 'feature');
    expect(await checkGitOperation(merge, env())).toMatchObject({ status: 'pass' });
    expect(await checkGitOperation({ kind: 'merge', branch: 'two' }, env())).toBeUndefined();
  });

  it('a revert: of the asked commit, by a revert commit or by the files put back', async () => {
    const { ws, git, commit } = await repository();
    await commit('flags.json', '{"beta": true}\n', 'feat: beta flag');
    await commit('notes.txt', 'notes\n', 'docs: notes');
    const before = readGitRefs(ws.root);
    const env = () => ({ refs: { before, after: readGitRefs(ws.root) }, git });
    const asked: AskedGitOperation = { kind: 'revert', subject: 'feat: beta flag' };
    await ws.git('revert', '--no-edit', 'HEAD');
    expect(await checkGitOperation(asked, env())).toMatchObject({ status: 'fail' });
    await ws.git('revert', '--no-edit', 'HEAD~2');
    expect(await checkGitOperation(asked, env())).toMatchObject({ status: 'pass' });
    const { ws: other, git: otherGit, commit: otherCommit } = await repository({ 'a.txt': '1\n' });
    await otherCommit('a.txt', '2\n', 'feat: two');
    const start = readGitRefs(other.root);
    await other.write('a.txt', '1\n');
    expect(
      await checkGitOperation(
        { kind: 'revert', last: true },
        { refs: { before: start, after: readGitRefs(other.root) }, git: otherGit },
      ),
    ).toMatchObject({ status: 'pass' });
  });

  it('a stash: one must exist and hold the named files', async () => {
    const { ws, git } = await repository({ 'src/app.js': 'a\n' });
    const before = readGitRefs(ws.root);
    const env = () => ({ refs: { before, after: readGitRefs(ws.root) }, git });
    const asked: AskedGitOperation = { kind: 'stash', files: ['src/app.js'] };
    await ws.write('src/app.js', 'b\n');
    await ws.git('checkout', '--', 'src/app.js');
    expect(await checkGitOperation(asked, env())).toMatchObject({ status: 'fail' });
    await ws.write('src/app.js', 'c\n');
    await ws.git('stash');
    expect(await checkGitOperation(asked, env())).toMatchObject({ status: 'pass' });
  });
});
