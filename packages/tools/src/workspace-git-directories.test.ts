import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { findWorkspaceGitDirectories } from './workspace-git-directories';

let ws: TempWorkspace;
let outside: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
  outside = await createTempWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
  await outside.cleanup();
});

/** Makes the markers of a git directory (`HEAD`, `objects/`, `refs/`) in `dir`. */
async function gitDirectoryAt(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'objects'), { recursive: true });
  await mkdir(path.join(dir, 'refs'), { recursive: true });
  await writeFile(path.join(dir, 'HEAD'), 'ref: refs/heads/main\n');
}

describe('findWorkspaceGitDirectories', () => {
  it('finds .git folders, bare repositories by content, .git files and what they name, and submodule git directories', async () => {
    await gitDirectoryAt(path.join(ws.root, 'a', '.git'));
    await gitDirectoryAt(path.join(ws.root, 'a', '.git', 'modules', 'm'));
    await gitDirectoryAt(path.join(ws.root, 'deep', 'x', 'store.git'));
    await mkdir(path.join(ws.root, 'b'));
    await writeFile(path.join(ws.root, 'b', '.git'), 'gitdir: ../deep/x/store.git\n');
    await writeFile(path.join(ws.root, 'c.git'), 'not a folder');
    const found = await findWorkspaceGitDirectories(ws.root);
    expect(found.complete).toBe(true);
    expect(found.gitDirs.map((dir) => path.relative(ws.root, dir)).sort()).toEqual([
      'a/.git',
      'a/.git/modules/m',
      'deep/x/store.git',
    ]);
    expect([...found.pointers]).toEqual([
      [path.join(ws.root, 'b', '.git'), path.join(ws.root, 'deep', 'x', 'store.git')],
    ]);
  });

  it('does not walk through a link to a folder outside, but reports a .git link that leads there', async () => {
    await gitDirectoryAt(path.join(outside.root, 'repo', '.git'));
    await symlink(path.join(outside.root, 'repo'), path.join(ws.root, 'linked'));
    await mkdir(path.join(ws.root, 'p'));
    await symlink(path.join(outside.root, 'repo', '.git'), path.join(ws.root, 'p', '.git'));
    const found = await findWorkspaceGitDirectories(ws.root);
    expect(found.gitDirs).toEqual([]);
    expect(found.pointers.get(path.join(ws.root, 'p', '.git'))).toBe(path.join(outside.root, 'repo', '.git'));
  });
});
