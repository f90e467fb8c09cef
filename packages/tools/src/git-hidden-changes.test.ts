import { chmod, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitStatus } from './command-tools';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import type { ToolContext } from './tool';
import { workspaceTools } from './workspace-tools';

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({
    files: {
      'a.txt': 'a\n',
      'b.txt': 'b\n',
      'c.txt': 'c\n',
      '.gitignore': 'node_modules/\n',
    },
    git: true,
  });
});
afterEach(async () => {
  sandbox = 'off';
  await ws.cleanup();
});

let sandbox: 'off' | 'auto' = 'off';
const registry = () => createToolRegistry(workspaceTools({ root: ws.root, sandbox }), { redactor: false });
async function status(): Promise<GitStatus> {
  const outcome = await registry().execute('git_status', {}, context());
  if (outcome.status !== 'success') throw new Error(outcome.text);
  return outcome.output as GitStatus;
}
async function diff(input: Record<string, unknown> = {}): Promise<string> {
  const outcome = await registry().execute('git_diff', input, context());
  if (outcome.status !== 'success') throw new Error(outcome.text);
  return outcome.text;
}

describe('git_status and git_diff show what the index bits hide', () => {
  it.each(['off', 'auto'] as const)(
    'a change under skip-worktree or assume-unchanged, marked hidden (sandbox %s)',
    async (mode) => {
      sandbox = mode;
      await ws.git('update-index', '--skip-worktree', 'a.txt');
      await ws.git('update-index', '--assume-unchanged', 'b.txt', 'c.txt');
      await ws.write('a.txt', 'a changed\n');
      await ws.write('b.txt', 'b changed\n');
      await rm(path.join(ws.root, 'c.txt'));
      // git itself shows a clean work tree.
      expect(await ws.git('status', '--porcelain')).toBe('');
      const shown = await status();
      expect(shown.clean).toBe(false);
      expect(shown.files).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: 'a.txt', kind: 'modified', hiddenBy: 'skip-worktree' }),
          expect.objectContaining({ path: 'b.txt', kind: 'modified', hiddenBy: 'assume-unchanged' }),
          expect.objectContaining({ path: 'c.txt', kind: 'deleted', hiddenBy: 'assume-unchanged' }),
        ]),
      );
      const text = await diff();
      expect(text).toContain("the index's skip-worktree bit hides this file");
      expect(text).toContain('+a changed');
      expect(text).toContain('-b\n+b changed');
      expect(text).toMatch(/--- a\/c\.txt\n\+\+\+ \/dev\/null/);
      expect(await diff({ paths: ['b.txt'] })).not.toContain('a.txt');
      expect(await diff({ stat: true })).toMatch(/a\.txt \| modified \(not shown by git/);
      sandbox = 'off';
    },
  );

  it('an unchanged file under a bit is not reported', async () => {
    await ws.git('update-index', '--skip-worktree', 'a.txt');
    expect((await status()).clean).toBe(true);
    expect(await diff()).toBe('(no changes)');
  });
});

describe('git_status shows new files hidden by ignore rules the history does not hold', () => {
  it.each(['off', 'auto'] as const)('.git/info/exclude (sandbox %s)', async (mode) => {
    sandbox = mode;
    await ws.write('secret.ts', 'x\n');
    await writeFile(path.join(ws.root, '.git', 'info', 'exclude'), 'secret.ts\n');
    expect(await ws.git('status', '--porcelain')).toBe('');
    expect((await status()).files).toEqual([
      expect.objectContaining({
        path: 'secret.ts',
        kind: 'untracked',
        hiddenBy: 'ignore-rule',
        rule: '.git/info/exclude:1:secret.ts',
      }),
    ]);
    sandbox = 'off';
  });

  it('a new .gitignore that ignores itself, and a changed committed one', async () => {
    await ws.write('gen/.gitignore', '*\n');
    await ws.write('gen/out.js', 'x\n');
    await ws.write('.gitignore', 'node_modules/\nhidden.ts\n');
    await ws.write('hidden.ts', 'x\n');
    const files = (await status()).files;
    expect(files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'gen/out.js', hiddenBy: 'ignore-rule', rule: 'gen/.gitignore:1:*' }),
        expect.objectContaining({ path: 'gen/.gitignore', hiddenBy: 'ignore-rule' }),
        expect.objectContaining({
          path: 'hidden.ts',
          hiddenBy: 'ignore-rule',
          rule: '.gitignore:2:hidden.ts',
        }),
        expect.objectContaining({ path: '.gitignore', kind: 'modified' }),
      ]),
    );
  });

  it('files ignored by a committed .gitignore are not reported', async () => {
    await ws.write('node_modules/x/index.js', 'x\n');
    expect((await status()).clean).toBe(true);
  });
});

describe('workspace git configuration does not change what the git tools show', () => {
  it('status.showUntrackedFiles=no and core.excludesFile', async () => {
    await ws.write('new.ts', 'x\n');
    await ws.write('other.ts', 'x\n');
    await writeFile(path.join(ws.root, '.git', 'my-excludes'), 'other.ts\n');
    await ws.git('config', 'status.showUntrackedFiles', 'no');
    await ws.git('config', 'core.excludesFile', path.join(ws.root, '.git', 'my-excludes'));
    expect(await ws.git('status', '--porcelain')).toBe('');
    const files = (await status()).files;
    expect(files.map((file) => [file.path, file.kind, file.hiddenBy])).toEqual([
      ['new.ts', 'untracked', undefined],
      ['other.ts', 'untracked', undefined],
    ]);
  });

  it('diff.noprefix, diff.mnemonicPrefix, diff.relative and diff.external', async () => {
    const external = path.join(ws.root, 'quiet.sh');
    await writeFile(external, '#!/bin/sh\nexit 0\n');
    await chmod(external, 0o755);
    await ws.git('config', 'diff.noprefix', 'true');
    await ws.git('config', 'diff.mnemonicPrefix', 'true');
    await ws.git('config', 'diff.external', external);
    await ws.write('a.txt', 'a changed\n');
    const text = await diff();
    expect(text).toContain('diff --git a/a.txt b/a.txt');
    expect(text).toContain('+a changed');
  });

  it('a -diff or binary attribute on a text file (work tree or .git/info/attributes)', async () => {
    await ws.write('.gitattributes', 'a.txt -diff\n');
    await writeFile(path.join(ws.root, '.git', 'info', 'attributes'), 'b.txt binary\n');
    await ws.write('a.txt', 'a changed\n');
    await ws.write('b.txt', 'b changed\n');
    const text = await diff();
    expect(text).not.toContain('Binary files');
    expect(text).toContain('+a changed');
    expect(text).toContain('+b changed');
    expect(text).toContain('# shown as text');
  });

  it("core.worktree pointing git at another folder: an error, never another folder's status", async () => {
    const other = await createTempWorkspace({ files: { 'x.txt': 'x\n' } });
    try {
      await ws.git('config', 'core.worktree', other.root);
      for (const tool of ['git_status', 'git_diff']) {
        const outcome = await registry().execute(tool, {}, context());
        expect(outcome.status).toBe('error');
        expect(outcome.text).toMatch(/core\.worktree/);
      }
    } finally {
      await other.cleanup();
    }
  });

  it('a real binary file stays binary', async () => {
    await ws.write('a.txt', 'a\0b\n');
    expect(await diff()).toContain('Binary files a/a.txt and b/a.txt differ');
  });
});
