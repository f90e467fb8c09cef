import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTempWorkspace } from './create-temp-workspace';

describe('createTempWorkspace', () => {
  it('creates a real folder with files and removes it', async () => {
    const ws = await createTempWorkspace({ files: { 'a/b.txt': 'hello', 'c.txt': '' } });
    expect(existsSync(ws.root)).toBe(true);
    expect(await ws.read('a/b.txt')).toBe('hello');
    expect(await ws.exists('c.txt')).toBe(true);
    expect(await ws.exists('nope')).toBe(false);
    await ws.write('d/e/f.txt', 'deep');
    expect(await ws.read('d/e/f.txt')).toBe('deep');
    await ws.cleanup();
    await ws.cleanup();
    expect(existsSync(ws.root)).toBe(false);
  });

  it('refuses paths outside the workspace', async () => {
    const ws = await createTempWorkspace();
    try {
      await expect(ws.write('../escape.txt', 'x')).rejects.toThrow(/outside/);
      expect(() => ws.read('/etc/passwd')).toThrow(/outside/);
    } finally {
      await ws.cleanup();
    }
  });

  it('initialises git with a local identity and one commit of the files', async () => {
    const ws = await createTempWorkspace({ files: { 'src/index.ts': 'export {};\n' }, git: true });
    try {
      expect((await ws.git('log', '--format=%s')).trim()).toBe('initial commit');
      expect((await ws.git('ls-files')).trim()).toBe('src/index.ts');
      expect((await ws.git('config', 'user.email')).trim()).toBe('test@closedloop.invalid');
      expect((await ws.git('rev-parse', '--abbrev-ref', 'HEAD')).trim()).toBe('main');
      // A plain git in the folder (no test env) can commit too: the identity is local.
      await ws.write('x.txt', 'x');
      execFileSync('git', ['add', 'x.txt'], { cwd: ws.root });
      execFileSync('git', ['commit', '-q', '-m', 'second'], { cwd: ws.root });
      expect((await ws.git('log', '--format=%s')).trim().split('\n')).toEqual(['second', 'initial commit']);
    } finally {
      await ws.cleanup();
    }
  });

  it('supports await using', async () => {
    let root = '';
    {
      await using ws = await createTempWorkspace({ prefix: 'closedloop-using-' });
      root = ws.root;
      expect(root).toContain('closedloop-using-');
    }
    expect(existsSync(root)).toBe(false);
  });
});
