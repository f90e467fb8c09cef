import { spawnSync } from 'node:child_process';
import { chmod, chown, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { removeInterruptedWrites } from './internal';
import { workspaceTools } from './workspace-tools';

const here = path.dirname(fileURLToPath(import.meta.url));
let ws: TempWorkspace;

beforeEach(async () => {
  ws = await createTempWorkspace({
    files: { 'src/a.ts': 'export const a = 1;\nexport const b = 2;\n', 'README.md': '# hi\n' },
  });
});
afterEach(async () => {
  await ws.cleanup();
});

/** Runs one tool in a child process that SIGKILLs itself after `bytes` bytes of its file write. */
function runKilled(tool: string, args: object, bytes: number) {
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=@closedloop/source',
      path.join(here, '__fixtures__', 'run-file-tool.ts'),
    ],
    {
      cwd: path.join(here, '..'),
      env: {
        ...process.env,
        ROOT: ws.root,
        TOOL: tool,
        ARGS: JSON.stringify(args),
        KILL_AFTER_BYTES: String(bytes),
      },
      encoding: 'utf8',
    },
  );
  expect(child.signal, child.stderr).toBe('SIGKILL');
}

const names = async (folder: string) => (await readdir(path.join(ws.root, folder))).sort();

describe('kill -9 in the middle of a file write', () => {
  // 3-byte characters: the cut at 4096 falls inside one of them.
  const content = `${'✓'.repeat(3000)}\n`;

  it('write_file over an existing file: the file keeps its old content, never a torn one', async () => {
    runKilled('write_file', { path: 'README.md', content }, 4096);
    expect(await ws.read('README.md')).toBe('# hi\n');
    // What the kill left is a temporary file, removed by name (as resume does).
    const left = (await names('.')).filter((name) => name.startsWith('.closedloop-tmp-'));
    expect(left).toHaveLength(1);
    expect(await removeInterruptedWrites(ws.root, 'README.md')).toEqual(left);
    expect(await names('.')).toEqual(['README.md', 'src']);
  }, 30_000);

  it('write_file of a new file: no file at all, and nothing left once the leftovers are removed', async () => {
    for (const cut of [0, 1, 4096]) {
      runKilled('write_file', { path: 'src/deep/new.txt', content }, cut);
      expect(await ws.exists('src/deep/new.txt'), `cut ${cut}`).toBe(false);
    }
    expect(await removeInterruptedWrites(ws.root, 'src/deep/new.txt')).toHaveLength(3);
    expect(await names('src/deep')).toEqual([]);
    expect(await names('src')).toEqual(['a.ts', 'deep']);
  }, 60_000);

  it('edit_file: the file keeps its old content, and the edit then applies once', async () => {
    const args = {
      path: 'src/a.ts',
      old_string: 'export const b = 2;',
      new_string: `export const b = '${content}';`,
    };
    runKilled('edit_file', args, 10);
    expect(await ws.read('src/a.ts')).toBe('export const a = 1;\nexport const b = 2;\n');
    await removeInterruptedWrites(ws.root, 'src/a.ts');
    const registry = createToolRegistry(workspaceTools({ root: ws.root }), { redactor: false });
    const outcome = await registry.execute('edit_file', args, {
      signal: new AbortController().signal,
      callId: 'c',
    });
    expect(outcome.status).toBe('success');
    expect(await ws.read('src/a.ts')).toBe(`export const a = 1;\nexport const b = '${content}';\n`);
    expect(await names('src')).toEqual(['a.ts']);
  }, 30_000);

  it('removes only the leftovers of the path it is given, and nothing outside the workspace', async () => {
    runKilled('write_file', { path: 'README.md', content }, 1);
    runKilled('write_file', { path: 'src/a.ts', content }, 1);
    expect(await removeInterruptedWrites(ws.root, 'src/a.ts')).toHaveLength(1);
    expect((await names('.')).filter((name) => name.startsWith('.closedloop-tmp-'))).toHaveLength(1);
    expect(await removeInterruptedWrites(ws.root, '../README.md')).toEqual([]);
    expect(await removeInterruptedWrites(ws.root, 'missing/x.txt')).toEqual([]);
  }, 30_000);
});

describe('the atomic replace keeps what the file was', () => {
  it('keeps an executable file executable, and its owner, through write_file and edit_file', async () => {
    await ws.write('run.sh', '#!/bin/sh\necho a\n');
    await chmod(path.join(ws.root, 'run.sh'), 0o750);
    // Root (as here and in CI containers) replaces it with a file of its own: the owner is kept too.
    const root = process.getuid?.() === 0;
    if (root) await chown(path.join(ws.root, 'run.sh'), 1234, 1235);
    const registry = createToolRegistry(workspaceTools({ root: ws.root }), { redactor: false });
    const context = { signal: new AbortController().signal, callId: 'c' };
    expect(
      (await registry.execute('write_file', { path: 'run.sh', content: '#!/bin/sh\necho b\n' }, context))
        .status,
    ).toBe('success');
    expect((await stat(path.join(ws.root, 'run.sh'))).mode & 0o7777).toBe(0o750);
    expect(
      (
        await registry.execute(
          'edit_file',
          { path: 'run.sh', old_string: 'echo b', new_string: 'echo c' },
          context,
        )
      ).status,
    ).toBe('success');
    expect((await stat(path.join(ws.root, 'run.sh'))).mode & 0o7777).toBe(0o750);
    expect(await ws.read('run.sh')).toBe('#!/bin/sh\necho c\n');
    const stats = await stat(path.join(ws.root, 'run.sh'));
    expect([stats.uid, stats.gid]).toEqual(root ? [1234, 1235] : [process.getuid?.(), process.getgid?.()]);
    expect(await names('.')).toEqual(['README.md', 'run.sh', 'src']);
  });
});
