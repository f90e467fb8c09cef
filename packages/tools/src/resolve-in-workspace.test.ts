import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry, type ToolRegistry } from './create-tool-registry';
import { resolveInWorkspace } from './resolve-in-workspace';
import type { ToolContext } from './tool';
import { ToolError } from './tool-error';
import { workspaceTools } from './workspace-tools';

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });
const canary = 'CANARY-do-not-touch\n';

let base: string;
let root: string;
let outside: string;
let sibling: string;
let registry: ToolRegistry;

async function snapshot(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(folder, full)] = await readFile(full, 'utf8');
  }
  return out;
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'closedloop-confine-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  sibling = path.join(base, 'root-evil');
  for (const dir of [root, outside, sibling, path.join(root, 'src'), path.join(root, 'inner')])
    await mkdir(dir);
  await writeFile(path.join(outside, 'canary.txt'), canary);
  await writeFile(path.join(sibling, 'secret.txt'), canary);
  await writeFile(path.join(root, 'README.md'), '# inside\n');
  await writeFile(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(root, 'a%20b.txt'), 'literal percent\n');
  await symlink('../outside/canary.txt', path.join(root, 'link-file-out'));
  await symlink('../outside', path.join(root, 'link-dir-out'));
  await symlink(outside, path.join(root, 'link-dir-out-abs'));
  await symlink('../outside/not-yet.txt', path.join(root, 'link-dangling-out'));
  await symlink('../missing-dir/deeper', path.join(root, 'link-dangling-dir-out'));
  await symlink('../..', path.join(root, 'inner', 'link-up'));
  await symlink('../root-evil', path.join(root, 'link-root-evil'));
  await symlink('link-loop-b', path.join(root, 'link-loop-a'));
  await symlink('link-loop-a', path.join(root, 'link-loop-b'));
  await symlink('link-dir-out', path.join(root, 'link-chain'));
  await symlink('src', path.join(root, 'link-inside'));
  await symlink(path.join(outside, 'not-yet-abs.txt'), path.join(root, 'link-dangling-abs'));
  await symlink(path.join(base, 'root-evil-new'), path.join(root, 'link-dangling-sibling'));
  await symlink(path.join(outside, 'canary.txt'), path.join(root, 'src', 'nested-link-file-out'));
  registry = createToolRegistry(workspaceTools({ root }), { redactor: false });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const attacks = (): string[] => [
  '..',
  '../',
  '../outside/canary.txt',
  '../../etc/passwd',
  './../outside/canary.txt',
  'src/../../outside/canary.txt',
  'src/./../../outside',
  '/etc/passwd',
  path.join(outside, 'canary.txt'),
  path.join(sibling, 'secret.txt'),
  `${root}-evil/secret.txt`,
  `${root}/../outside/canary.txt`,
  `${root}-evil/not-yet.txt`,
  '../root-evil/secret.txt',
  '../root-evil/not-yet.txt',
  'src/../../root-evil/secret.txt',
  '//etc/passwd',
  '%2e%2e/outside/canary.txt',
  '%2E%2E%2Foutside%2Fcanary.txt',
  '..%2foutside%2fcanary.txt',
  '%252e%252e/outside/canary.txt',
  'src/%2e%2e/%2e%2e/outside/canary.txt',
  '%2fetc%2fpasswd',
  '%2Fetc/passwd',
  '..%5coutside%5ccanary.txt',
  '%2e%2e%2fnot-yet.txt',
  '\uff0e\uff0e/outside/canary.txt',
  '\uff0e\uff0e\uff0foutside\uff0fcanary.txt',
  '\u2025/outside/canary.txt',
  '\ufe52\ufe52/outside/canary.txt',
  '\uff0fetc\uff0fpasswd',
  '\u2024\u2024/outside/canary.txt',
  '..\\outside\\canary.txt',
  'src\\..\\..\\outside\\canary.txt',
  'README.md\u0000../../outside/canary.txt',
  'src/\u0000',
  'README\u001b.md',
  '~/.bashrc',
  '~',
  'file:///etc/passwd',
  'C:\\Windows\\win.ini',
  'link-file-out',
  'link-dir-out/canary.txt',
  'link-dir-out/new.txt',
  'link-dir-out/sub/new.txt',
  'link-dir-out-abs/canary.txt',
  'link-dangling-out',
  'link-dangling-abs',
  'link-dangling-sibling',
  'link-dangling-sibling/deeper/new.txt',
  'src/nested-link-file-out',
  'link-dangling-dir-out/x.txt',
  'inner/link-up/outside/canary.txt',
  'inner/link-up/root-evil/secret.txt',
  'link-root-evil/secret.txt',
  'link-loop-a',
  'link-chain/canary.txt',
  'src/../link-dir-out/canary.txt',
  'link-dir-out',
  'link-dir-out/',
];

describe('resolveInWorkspace', () => {
  it('has a corpus of at least 30 attack paths', () => {
    expect(attacks().length).toBeGreaterThanOrEqual(30);
  });

  it('refuses every attack path with ToolError path-escape', async () => {
    const leaks: string[] = [];
    for (const attack of attacks()) {
      try {
        const resolved = await resolveInWorkspace(root, attack);
        leaks.push(`${JSON.stringify(attack)} -> ${resolved}`);
      } catch (error) {
        if (!ToolError.isInstance(error) || error.code !== 'path-escape')
          leaks.push(`${JSON.stringify(attack)} threw ${error}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it('resolves legitimate paths, including odd-looking ones, to real paths inside', async () => {
    expect(await resolveInWorkspace(root, '.')).toBe(root);
    expect(await resolveInWorkspace(root, '')).toBe(root);
    expect(await resolveInWorkspace(root, 'README.md')).toBe(path.join(root, 'README.md'));
    expect(await resolveInWorkspace(root, './src/../README.md')).toBe(path.join(root, 'README.md'));
    expect(await resolveInWorkspace(root, 'src\\a.ts')).toBe(path.join(root, 'src', 'a.ts'));
    expect(await resolveInWorkspace(root, path.join(root, 'src'))).toBe(path.join(root, 'src'));
    expect(await resolveInWorkspace(root, 'a%20b.txt')).toBe(path.join(root, 'a%20b.txt'));
    expect(await resolveInWorkspace(root, 'link-inside/a.ts')).toBe(path.join(root, 'src', 'a.ts'));
    expect(await resolveInWorkspace(root, 'new/dir/file.ts')).toBe(path.join(root, 'new', 'dir', 'file.ts'));
    expect(await resolveInWorkspace(root, '...')).toBe(path.join(root, '...'));
    expect(await resolveInWorkspace(root, '..foo')).toBe(path.join(root, '..foo'));
    expect(await resolveInWorkspace(root, 'caf\u00e9.txt')).toBe(path.join(root, 'caf\u00e9.txt'));
  });

  it('works when the root itself is reached through a symlink', async () => {
    const alias = path.join(base, 'alias');
    await symlink(root, alias);
    expect(await resolveInWorkspace(alias, 'README.md')).toBe(path.join(root, 'README.md'));
    expect(await resolveInWorkspace(alias, path.join(alias, 'README.md'))).toBe(path.join(root, 'README.md'));
    await expect(resolveInWorkspace(alias, '../outside/canary.txt')).rejects.toMatchObject({
      code: 'path-escape',
    });
  });

  it('answers a path too long for the file system with a clear execution-failed, not an escape', async () => {
    for (const userPath of ['n'.repeat(300), `${'deep/'.repeat(1000)}file.txt`]) {
      await expect(resolveInWorkspace(root, userPath)).rejects.toMatchObject({
        code: 'execution-failed',
        message: expect.stringContaining('too long'),
      });
    }
    // Still refused first when it climbs out.
    await expect(resolveInWorkspace(root, `../${'n'.repeat(300)}`)).rejects.toMatchObject({
      code: 'path-escape',
    });
  });

  it('fails with execution-failed when the root does not exist', async () => {
    await expect(resolveInWorkspace(path.join(base, 'nope'), 'a')).rejects.toMatchObject({
      code: 'execution-failed',
    });
  });
});

describe('file tools under attack', () => {
  const calls = (attack: string): [string, Record<string, unknown>][] => [
    ['read_file', { path: attack }],
    ['write_file', { path: attack, content: 'PWNED' }],
    ['edit_file', { path: attack, old_string: 'CANARY', new_string: 'PWNED' }],
    ['list_dir', { path: attack }],
    ['delete_file', { path: attack, recursive: true }],
  ];

  it('never returns outside content in a result text', async () => {
    for (const attack of attacks()) {
      const outcome = await registry.execute('read_file', { path: attack }, context());
      expect(outcome.text).not.toContain('CANARY');
    }
  });

  it('refuses every attack for read, write, edit, list and delete, and the outside stays unchanged', async () => {
    const before = { outside: await snapshot(outside), sibling: await snapshot(sibling) };
    const leaks: string[] = [];
    let count = 0;
    for (const attack of attacks()) {
      for (const [tool, args] of calls(attack)) {
        count++;
        const outcome = await registry.execute(tool, args, context());
        if (outcome.status !== 'error' || outcome.code !== 'path-escape') {
          leaks.push(`${tool} ${JSON.stringify(attack)}: ${outcome.status} ${outcome.text.slice(0, 120)}`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(150);
    expect(await snapshot(outside)).toEqual(before.outside);
    expect(await snapshot(sibling)).toEqual(before.sibling);
    expect(await readFile(path.join(outside, 'canary.txt'), 'utf8')).toBe(canary);
    expect(await readdir(outside)).toEqual(['canary.txt']);
    const known = ['alias', 'outside', 'root', 'root-evil'];
    expect((await readdir(base)).filter((name) => !known.includes(name))).toEqual([]);
  });
});
