import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { indexGitlinks, unsafeConfigKeys } from './nested-repositories';

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

describe('unsafeConfigKeys', () => {
  it('allows what git init and git clone write', async () => {
    ws = await createTempWorkspace({ git: true, files: { 'a.txt': 'a' } });
    await ws.git('remote', 'add', 'origin', 'https://example.invalid/r.git');
    await ws.git('config', 'branch.main.remote', 'origin');
    await ws.git('config', 'branch.main.merge', 'refs/heads/main');
    const config = (await readFile(path.join(ws.root, '.git', 'config'), 'utf8')).replace(
      /^\s*gpgsign = false\n/m,
      '',
    );
    expect(unsafeConfigKeys(config.replace(/\[commit\]\n/, ''))).toEqual([]);
  });

  it('refuses every key that may run a program, in any spelling', () => {
    expect(
      unsafeConfigKeys(
        [
          '[core] fsmonitor = x',
          '[CORE]',
          '\tHooksPath = /x',
          '[diff "evil"]',
          '\ttextconv = x',
          '[filter.lfs]',
          '\tclean = x',
          '[include]',
          '\tpath = other',
          '[remote "o"]',
          '\turl = ok',
          '\tuploadpack = x',
        ].join('\n'),
      ),
    ).toEqual([
      'core.fsmonitor',
      'core.hookspath',
      'diff.evil.textconv',
      'filter.lfs.clean',
      'include.path',
      'remote.o.uploadpack',
    ]);
  });
});

describe('indexGitlinks', () => {
  it.each([2, 3, 4])('finds the submodules of an index of version %i', async (version) => {
    ws = await createTempWorkspace({ git: true, files: { 'a.txt': 'a', 'deep/er/b.txt': 'b' } });
    await ws.git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},deep/sub`);
    await ws.git('update-index', '--add', '--cacheinfo', `160000,${'2'.repeat(40)},deep/sub2`);
    // An intent-to-add entry has extended flags: git keeps version 3 only then.
    if (version === 3) {
      await ws.write('deep/new.txt', 'n');
      await ws.git('add', '--intent-to-add', 'deep/new.txt');
    }
    await ws.git('update-index', '--index-version', String(version));
    const index = await readFile(path.join(ws.root, '.git', 'index'));
    expect(index.readUInt32BE(4)).toBe(version);
    expect(indexGitlinks(index)).toEqual(['deep/sub', 'deep/sub2']);
  });
});
