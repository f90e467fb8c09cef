import { execFile } from 'node:child_process';
import { link, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry, type ToolRegistry } from './create-tool-registry';
import { startLinkSwapper } from './start-link-swapper';
import type { ToolContext } from './tool';
import { workspaceTools } from './workspace-tools';

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });
const execFileAsync = promisify(execFile);

let ws: TempWorkspace;
let outside: TempWorkspace;
let registry: ToolRegistry;

beforeEach(async () => {
  ws = await createTempWorkspace({ files: { 'inside/f.txt': 'INSIDE\n', 'inside/g.txt': 'inside g\n' } });
  outside = await createTempWorkspace({
    files: { 'f.txt': 'OUTSIDE-CANARY\n', 'g.txt': 'outside g\n', 'outside-only.txt': 'x\n' },
  });
  registry = createToolRegistry(workspaceTools({ root: ws.root }), { redactor: false });
});
afterEach(async () => {
  await ws.cleanup();
  await outside.cleanup();
});

describe('file tools against a parent folder swapped for a symlink in a loop', () => {
  it('never reads, writes, edits, lists or deletes outside the workspace', { timeout: 120_000 }, async () => {
    // Each state holds a moment (up to 2 ms), so checks and opens land on both.
    const swapper = startLinkSwapper({
      folder: path.join(ws.root, 'inside'),
      keep: path.join(ws.root, 'inside-real'),
      target: outside.root,
      pauseMs: 2,
    });
    const escapes: string[] = [];
    const counts = { attempts: 0, succeeded: 0, refused: 0 };
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let round = 0; round < 150; round++) {
        const calls: [string, Record<string, unknown>][] = [
          ['read_file', { path: 'inside/f.txt' }],
          ['write_file', { path: `inside/new-${round}.txt`, content: 'WRITTEN' }],
          ['edit_file', { path: 'inside/f.txt', old_string: 'INSIDE', new_string: 'INSIDE' }],
          ['edit_file', { path: 'inside/g.txt', old_string: 'g', new_string: 'g' }],
          ['list_dir', { path: 'inside' }],
          ['list_dir', { path: '.', recursive: true }],
          ['delete_file', { path: 'inside/g.txt' }],
        ];
        for (const [tool, args] of calls) {
          counts.attempts++;
          const outcome = await registry.execute(tool, args, context());
          if (outcome.status === 'success') counts.succeeded++;
          else counts.refused++;
          if (outcome.status === 'success' && /OUTSIDE-CANARY|outside-only/.test(outcome.text))
            escapes.push(`${tool}: ${outcome.text.slice(0, 80)}`);
        }
        // Put back what the delete removed inside (with the tool: a plain write could follow the swap).
        await registry.execute('write_file', { path: 'inside/g.txt', content: 'inside g\n' }, context());
      }
    } finally {
      await swapper.stop();
    }
    const outsideFiles = (await readdir(outside.root)).sort();
    expect(outsideFiles).toEqual(['f.txt', 'g.txt', 'outside-only.txt']);
    expect(await readFile(path.join(outside.root, 'f.txt'), 'utf8')).toBe('OUTSIDE-CANARY\n');
    expect(await readFile(path.join(outside.root, 'g.txt'), 'utf8')).toBe('outside g\n');
    console.log(
      `swap race: ${counts.attempts} calls, ${counts.succeeded} succeeded inside, ${counts.refused} refused, ${escapes.length} escapes`,
    );
    expect(escapes).toEqual([]);
  });
});

describe('special files', () => {
  it('refuses to read or write a FIFO instead of hanging on it', async () => {
    await execFileAsync('mkfifo', [path.join(ws.root, 'pipe')]);
    const started = Date.now();
    for (const [tool, args] of [
      ['read_file', { path: 'pipe' }],
      ['write_file', { path: 'pipe', content: 'x' }],
      ['edit_file', { path: 'pipe', old_string: 'a', new_string: 'b' }],
    ] as const) {
      const outcome = await registry.execute(tool, args, context());
      expect(outcome.status, tool).toBe('error');
    }
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('hard links', () => {
  it('refuses to write or edit through a hard link, and to read one outside node_modules', async () => {
    await link(path.join(outside.root, 'f.txt'), path.join(ws.root, 'linked.txt'));
    const read = await registry.execute('read_file', { path: 'linked.txt' }, context());
    expect(read).toMatchObject({ status: 'error', code: 'path-escape' });
    expect(read.text).toContain('hard links');
    const write = await registry.execute('write_file', { path: 'linked.txt', content: 'PWNED' }, context());
    expect(write).toMatchObject({ status: 'error', code: 'path-escape' });
    const edit = await registry.execute(
      'edit_file',
      { path: 'linked.txt', old_string: 'OUTSIDE', new_string: 'PWNED' },
      context(),
    );
    expect(edit).toMatchObject({ status: 'error', code: 'path-escape' });
    expect(await readFile(path.join(outside.root, 'f.txt'), 'utf8')).toBe('OUTSIDE-CANARY\n');
    // Deleting the link only removes its name here.
    expect(await registry.execute('delete_file', { path: 'linked.txt' }, context())).toMatchObject({
      status: 'success',
    });
    expect(await readFile(path.join(outside.root, 'f.txt'), 'utf8')).toBe('OUTSIDE-CANARY\n');
  });

  it('reads hard-linked files inside node_modules (package stores link them there)', async () => {
    await mkdir(path.join(ws.root, 'node_modules', 'pkg'), { recursive: true });
    await link(path.join(outside.root, 'g.txt'), path.join(ws.root, 'node_modules', 'pkg', 'index.js'));
    expect(
      await registry.execute('read_file', { path: 'node_modules/pkg/index.js' }, context()),
    ).toMatchObject({ status: 'success', text: 'outside g\n' });
    expect(
      await registry.execute('write_file', { path: 'node_modules/pkg/index.js', content: 'x' }, context()),
    ).toMatchObject({ status: 'error', code: 'path-escape' });
  });
});

describe('git repositories found by content', () => {
  it('refuses writes to a bare repository’s config and hooks (no .git in the path)', async () => {
    await execFileAsync('git', ['init', '-q', '--bare', path.join(ws.root, 'vendor', 'repo')]);
    for (const target of ['vendor/repo/config', 'vendor/repo/hooks/post-update', 'vendor/repo/HEAD']) {
      const outcome = await registry.execute(
        'write_file',
        { path: target, content: '[core]\n\tfsmonitor = touch pwned\n' },
        context(),
      );
      expect(outcome, target).toMatchObject({ status: 'error', code: 'path-escape' });
      expect(outcome.text).toContain('git repository');
    }
    const edit = await registry.execute(
      'edit_file',
      { path: 'vendor/repo/config', old_string: 'bare = true', new_string: 'fsmonitor = touch pwned' },
      context(),
    );
    expect(edit).toMatchObject({ status: 'error', code: 'path-escape' });
    expect(await readFile(path.join(ws.root, 'vendor/repo/config'), 'utf8')).not.toContain('fsmonitor');
  });

  it('refuses to build a repository piece by piece, and a .git file or folder anywhere', async () => {
    expect(
      await registry.execute(
        'write_file',
        { path: 'fake/HEAD', content: 'ref: refs/heads/main\n' },
        context(),
      ),
    ).toMatchObject({ status: 'success' });
    const objects = await registry.execute(
      'write_file',
      { path: 'fake/objects/info/x', content: '' },
      context(),
    );
    expect(objects).toMatchObject({ status: 'error', code: 'path-escape' });
    const refs = await registry.execute(
      'write_file',
      { path: 'fake/refs/heads/main', content: '' },
      context(),
    );
    expect(refs).toMatchObject({ status: 'error', code: 'path-escape' });
    for (const target of ['sub/.git', 'sub/.git/config', 'x/.GIT/hooks/pre-commit']) {
      const outcome = await registry.execute(
        'write_file',
        { path: target, content: 'gitdir: /tmp/evil\n' },
        context(),
      );
      expect(outcome, target).toMatchObject({ status: 'error', code: 'path-escape' });
    }
  });

  it('refuses writes into a nested repository’s .git and into the workspace repository', async () => {
    await ws.git('init', '-q', '.');
    for (const target of ['.git/config', '.git/hooks/pre-commit', '.git/info/attributes']) {
      const outcome = await registry.execute('write_file', { path: target, content: 'x' }, context());
      expect(outcome, target).toMatchObject({ status: 'error', code: 'path-escape' });
    }
    expect(await registry.execute('delete_file', { path: '.git', recursive: true }, context())).toMatchObject(
      {
        status: 'error',
        code: 'path-escape',
      },
    );
  });
});
