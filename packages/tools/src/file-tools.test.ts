import { spawnSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry, type ToolRegistry } from './create-tool-registry';
import type { ToolContext } from './tool';
import { workspaceTools } from './workspace-tools';

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });

let ws: TempWorkspace;
let registry: ToolRegistry;

beforeEach(async () => {
  ws = await createTempWorkspace({
    files: { 'src/a.ts': 'export const a = 1;\nexport const b = 2;\n', 'README.md': '# hi\n' },
  });
  registry = createToolRegistry(workspaceTools({ root: ws.root }), { redactor: false });
});
afterEach(async () => {
  await ws.cleanup();
});

describe('read_file', () => {
  it('reads a file and a line range', async () => {
    expect(await registry.execute('read_file', { path: 'src/a.ts' }, context())).toMatchObject({
      status: 'success',
      text: 'export const a = 1;\nexport const b = 2;\n',
    });
    expect(
      await registry.execute('read_file', { path: 'src/a.ts', start_line: 2, end_line: 2 }, context()),
    ).toMatchObject({
      text: 'export const b = 2;',
    });
  });

  it('accepts an absolute path inside the root', async () => {
    const outcome = await registry.execute('read_file', { path: path.join(ws.root, 'README.md') }, context());
    expect(outcome).toMatchObject({ status: 'success', text: '# hi\n' });
  });

  it('fails clearly for a missing file, a folder, a binary file and a bad range', async () => {
    const missing = await registry.execute('read_file', { path: 'nope.ts' }, context());
    expect(missing).toMatchObject({ status: 'error', code: 'execution-failed' });
    expect(missing.text).toContain('nope.ts does not exist');
    expect((await registry.execute('read_file', { path: 'src' }, context())).text).toContain(
      'is a directory',
    );
    await ws.write('bin.dat', 'a\u0000b');
    expect((await registry.execute('read_file', { path: 'bin.dat' }, context())).text).toContain('binary');
    expect(
      (await registry.execute('read_file', { path: 'src/a.ts', start_line: 9 }, context())).text,
    ).toContain('past the end');
    expect(
      (await registry.execute('read_file', { path: 'src/a.ts', start_line: 2, end_line: 1 }, context())).text,
    ).toContain('before start_line');
  });

  it('refuses files over the read limit', async () => {
    const small = createToolRegistry(workspaceTools({ root: ws.root, maxReadBytes: 10 }), {
      redactor: false,
    });
    expect((await small.execute('read_file', { path: 'src/a.ts' }, context())).text).toContain('read limit');
  });

  it('follows a symlink that stays inside the workspace', async () => {
    await symlink(path.join(ws.root, 'src/a.ts'), path.join(ws.root, 'link.ts'));
    expect(await registry.execute('read_file', { path: 'link.ts' }, context())).toMatchObject({
      status: 'success',
    });
  });
});

describe('write_file', () => {
  it('creates a file and its parent folders', async () => {
    const outcome = await registry.execute(
      'write_file',
      { path: 'deep/er/new.txt', content: 'héllo' },
      context(),
    );
    expect(outcome).toMatchObject({
      status: 'success',
      output: { path: 'deep/er/new.txt', bytes: 6, created: true },
    });
    expect(await ws.read('deep/er/new.txt')).toBe('héllo');
  });

  it('overwrites an existing file', async () => {
    const outcome = await registry.execute('write_file', { path: 'README.md', content: 'new' }, context());
    expect(outcome).toMatchObject({ status: 'success', output: { created: false } });
    expect(await ws.read('README.md')).toBe('new');
  });

  it('refuses to write a folder, the root, or inside .git', async () => {
    expect((await registry.execute('write_file', { path: 'src', content: 'x' }, context())).text).toContain(
      'is a directory',
    );
    expect((await registry.execute('write_file', { path: '.', content: 'x' }, context())).status).toBe(
      'error',
    );
    const git = await registry.execute('write_file', { path: '.git/config', content: 'x' }, context());
    expect(git).toMatchObject({ status: 'error', code: 'path-escape' });
    expect(await ws.exists('.git/config')).toBe(false);
  });

  it('marks write_file not destructive and delete_file destructive', () => {
    expect(registry.get('write_file')?.destructive).toBe(false);
    expect(registry.get('delete_file')?.destructive).toBe(true);
    expect(registry.get('read_file')?.idempotent).toBe(true);
    // An edit applied twice changes the file twice: resume must not simply re-run it.
    expect(registry.get('edit_file')).toMatchObject({ destructive: false, idempotent: false });
    expect(registry.get('write_file')?.idempotent).toBe(true);
  });
});

describe('edit_file', () => {
  it('replaces one unique occurrence and reports the line', async () => {
    const outcome = await registry.execute(
      'edit_file',
      { path: 'src/a.ts', old_string: 'b = 2', new_string: 'b = 3' },
      context(),
    );
    expect(outcome).toMatchObject({
      status: 'success',
      output: { path: 'src/a.ts', replacements: 1, line: 2 },
    });
    expect(await ws.read('src/a.ts')).toBe('export const a = 1;\nexport const b = 3;\n');
  });

  it('shrinks a file correctly', async () => {
    await registry.execute(
      'edit_file',
      { path: 'src/a.ts', old_string: 'export const b = 2;\n', new_string: '' },
      context(),
    );
    expect(await ws.read('src/a.ts')).toBe('export const a = 1;\n');
  });

  it('fails when the text is missing or not unique, and leaves the file unchanged', async () => {
    const none = await registry.execute(
      'edit_file',
      { path: 'src/a.ts', old_string: 'zzz', new_string: 'y' },
      context(),
    );
    expect(none).toMatchObject({ status: 'error', code: 'execution-failed' });
    expect(none.text).toContain('not found');
    const many = await registry.execute(
      'edit_file',
      { path: 'src/a.ts', old_string: 'export', new_string: 'y' },
      context(),
    );
    expect(many.text).toContain('occurs 2 times');
    expect(await ws.read('src/a.ts')).toBe('export const a = 1;\nexport const b = 2;\n');
    const empty = await registry.execute(
      'edit_file',
      { path: 'src/a.ts', old_string: '', new_string: 'y' },
      context(),
    );
    expect(empty).toMatchObject({ status: 'error', code: 'invalid-arguments' });
  });
});

describe('list_dir', () => {
  it('lists a folder, flat and recursive', async () => {
    const flat = await registry.execute('list_dir', {}, context());
    expect(flat).toMatchObject({
      status: 'success',
      output: {
        path: '.',
        entries: [
          { path: 'README.md', type: 'file', size: 5 },
          { path: 'src', type: 'directory' },
        ],
        truncated: false,
      },
    });
    const deep = await registry.execute('list_dir', { path: '.', recursive: true }, context());
    expect(
      deep.status === 'success' &&
        (deep.output as { entries: { path: string }[] }).entries.map((e) => e.path),
    ).toEqual(['README.md', 'src', 'src/a.ts']);
  });

  it('caps entries and fails for a file', async () => {
    const capped = createToolRegistry(workspaceTools({ root: ws.root, maxListEntries: 1 }), {
      redactor: false,
    });
    expect(await capped.execute('list_dir', { path: '.' }, context())).toMatchObject({
      output: { truncated: true },
    });
    expect((await registry.execute('list_dir', { path: 'README.md' }, context())).text).toContain(
      'is a file',
    );
  });
});

describe('delete_file', () => {
  it('deletes a file, a symlink (not its target) and a folder with recursive', async () => {
    expect(await registry.execute('delete_file', { path: 'README.md' }, context())).toMatchObject({
      status: 'success',
      output: { deleted: 'file' },
    });
    expect(await ws.exists('README.md')).toBe(false);
    await symlink(path.join(ws.root, 'src/a.ts'), path.join(ws.root, 'link.ts'));
    expect(await registry.execute('delete_file', { path: 'link.ts' }, context())).toMatchObject({
      output: { deleted: 'symlink' },
    });
    expect(await ws.exists('src/a.ts')).toBe(true);
    const folder = await registry.execute('delete_file', { path: 'src' }, context());
    expect(folder.text).toContain('recursive=true');
    expect(await registry.execute('delete_file', { path: 'src', recursive: true }, context())).toMatchObject({
      output: { deleted: 'directory' },
    });
    expect(await ws.exists('src')).toBe(false);
  });

  it('refuses the root, .git and missing files', async () => {
    expect((await registry.execute('delete_file', { path: '.', recursive: true }, context())).text).toContain(
      'root',
    );
    expect((await registry.execute('delete_file', { path: './', recursive: true }, context())).status).toBe(
      'error',
    );
    expect((await registry.execute('delete_file', { path: 'gone.txt' }, context())).text).toContain(
      'does not exist',
    );
    const git = await createTempWorkspace({ git: true });
    try {
      const tools = createToolRegistry(workspaceTools({ root: git.root }));
      expect(await tools.execute('delete_file', { path: '.git', recursive: true }, context())).toMatchObject({
        code: 'path-escape',
      });
      expect(await git.exists('.git/HEAD')).toBe(true);
    } finally {
      await git.cleanup();
    }
  });
});

describe('a full disk: a write cut short leaves the file as it was', () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  /** Runs a tool in a child process whose files may not grow past `limitKb` (`ulimit -f`). */
  const runLimited = (tool: string, args: object, limitKb: number) => {
    const child = spawnSync(
      'bash',
      [
        '-c',
        `ulimit -f ${limitKb} && exec "$0" "$@"`,
        process.execPath,
        '--import',
        'tsx',
        '--conditions=@closedloop/source',
        path.join(here, '__fixtures__', 'run-file-tool.ts'),
      ],
      {
        cwd: path.join(here, '..'),
        env: { ...process.env, ROOT: ws.root, TOOL: tool, ARGS: JSON.stringify(args) },
        encoding: 'utf8',
      },
    );
    expect(child.status, child.stderr).toBe(0);
    return JSON.parse(child.stdout) as { status: string; text: string };
  };
  const big = 'x'.repeat(5000);

  it('write_file over an existing file: an error, and the file keeps its content', async () => {
    const outcome = runLimited('write_file', { path: 'README.md', content: big }, 2);
    expect(outcome.status).toBe('error');
    expect(outcome.text).toMatch(/Could not write README\.md \(EFBIG\): it was left as it was/);
    expect(await ws.read('README.md')).toBe('# hi\n');
  }, 30_000);

  it('write_file of a new file: an error, and no file', async () => {
    const outcome = runLimited('write_file', { path: 'src/new.txt', content: big }, 2);
    expect(outcome.status).toBe('error');
    expect(await ws.exists('src/new.txt')).toBe(false);
  }, 30_000);

  it('edit_file that grows a file past the limit: an error, and the file keeps its content', async () => {
    const outcome = runLimited(
      'edit_file',
      { path: 'src/a.ts', old_string: 'export const b = 2;', new_string: `export const b = '${big}';` },
      2,
    );
    expect(outcome.status).toBe('error');
    expect(await ws.read('src/a.ts')).toBe('export const a = 1;\nexport const b = 2;\n');
  }, 30_000);

  it('a write that fits is whole', async () => {
    const outcome = runLimited('write_file', { path: 'README.md', content: big.slice(0, 1500) }, 2);
    expect(outcome.status).toBe('success');
    expect(await ws.read('README.md')).toBe(big.slice(0, 1500));
  }, 30_000);
});
