import { execFileSync } from 'node:child_process';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandRunner } from './create-command-runner';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { probeSandbox } from './sandbox';
import { ToolError } from './tool-error';
import { findWorkspaceBytecode } from './workspace-bytecode';

const hasSandbox = (await probeSandbox()).available;

const BUGGY = 'def add(a, b):\n    return a - b\n';
const FIXED = 'def add(a, b):\n    return a + b\n';
const TEST = 'from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n';

/**
 * Writes what a hostile step would: the bytecode of `FIXED` in `__pycache__`, with a header that
 * matches `calc.py` as it is left (`BUGGY`: same size, same modification time).
 */
function forgeCachedBytecode(root: string): void {
  execFileSync(
    'python3',
    [
      '-c',
      [
        'import os, py_compile, sys',
        "open('calc.py', 'w').write(sys.argv[1])",
        "os.utime('calc.py', (1700000000, 1700000000))",
        "py_compile.compile('calc.py', cfile=os.path.join('__pycache__', 'calc.' + sys.implementation.cache_tag + '.pyc'), doraise=True)",
        "open('calc.py', 'w').write(sys.argv[2])",
        "os.utime('calc.py', (1700000000, 1700000000))",
      ].join('\n'),
      FIXED,
      BUGGY,
    ],
    { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
}

/** A sourceless package `calc/` (only `__init__.pyc`, of `FIXED`): Python prefers it to `calc.py`. */
function plantSourcelessPackage(root: string): void {
  execFileSync(
    'python3',
    [
      '-c',
      [
        'import os, py_compile, sys',
        "os.makedirs('calc', exist_ok=True)",
        "open('fixed.py', 'w').write(sys.argv[1])",
        "py_compile.compile('fixed.py', cfile=os.path.join('calc', '__init__.pyc'), doraise=True)",
        "os.remove('fixed.py')",
      ].join('\n'),
      FIXED,
    ],
    { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
}

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({ files: { 'calc.py': BUGGY, 'test_calc.py': TEST } });
});
afterEach(async () => {
  await ws.cleanup();
});

describe('findWorkspaceBytecode', () => {
  it('lists __pycache__ folders and .pyc files with no source beside them, everywhere', async () => {
    await mkdir(path.join(ws.root, 'pkg', '__pycache__'), { recursive: true });
    await mkdir(path.join(ws.root, '.venv', 'lib', 'site', '__pycache__'), { recursive: true });
    await mkdir(path.join(ws.root, 'old'), { recursive: true });
    await writeFile(path.join(ws.root, 'old', 'kept.py'), '');
    await writeFile(path.join(ws.root, 'old', 'kept.pyc'), '');
    await writeFile(path.join(ws.root, 'old', 'orphan.pyc'), '');
    // A link named like the source may lead nowhere later: its .pyc is listed anyway.
    await symlink('gone.py', path.join(ws.root, 'old', 'linked.py'));
    await writeFile(path.join(ws.root, 'old', 'linked.pyc'), '');
    const found = await findWorkspaceBytecode(ws.root);
    expect(found?.caches.map((folder) => path.relative(ws.root, folder)).sort()).toEqual([
      '.venv/lib/site/__pycache__',
      'pkg/__pycache__',
    ]);
    expect(found?.sourceless.map((file) => path.relative(ws.root, file)).sort()).toEqual([
      'old/linked.pyc',
      'old/orphan.pyc',
    ]);
  });

  it('sees a change made since its last walk, and gives up past its bounds or on a linked __pycache__', async () => {
    expect(await findWorkspaceBytecode(ws.root)).toEqual({ caches: [], sourceless: [] });
    await mkdir(path.join(ws.root, 'a', 'b'), { recursive: true });
    await writeFile(path.join(ws.root, 'a', 'b', 'x.pyc'), '');
    expect((await findWorkspaceBytecode(ws.root))?.sourceless).toEqual([
      path.join(ws.root, 'a', 'b', 'x.pyc'),
    ]);
    expect(await findWorkspaceBytecode(ws.root, { maxEntries: 3 })).toBeUndefined();
    expect(await findWorkspaceBytecode(ws.root, { maxPaths: 0 })).toBeUndefined();
    await symlink(path.join(ws.root, 'a'), path.join(ws.root, 'a', 'b', '__pycache__'));
    expect(await findWorkspaceBytecode(ws.root)).toBeUndefined();
  });
});

describe('commands that ignore the workspace bytecode', { timeout: 60_000 }, () => {
  describe.runIf(hasSandbox)('sandboxed', () => {
    it('run the sources, not a forged __pycache__ or a sourceless package, and write no bytecode', async () => {
      forgeCachedBytecode(ws.root);
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
      // The forgery is real: a plain run imports it and the failing test passes.
      const fooled = await runner.run(['python3', '-m', 'pytest', '-q'], {
        env: { PYTHONDONTWRITEBYTECODE: '1' },
      });
      expect(fooled.exitCode).toBe(0);
      const honest = await runner.run(['python3', '-m', 'pytest', '-q'], {
        ignoreWorkspaceBytecode: true,
      });
      expect(honest).toMatchObject({ bytecode: 'hidden', exitCode: 1 });
      expect(honest.stdout).toMatch(/1 failed/);
      plantSourcelessPackage(ws.root);
      const sourceless = await runner.run(['python3', '-m', 'pytest', '-q'], {
        ignoreWorkspaceBytecode: true,
      });
      expect(sourceless).toMatchObject({ bytecode: 'hidden', exitCode: 1 });
      expect(sourceless.stdout).toMatch(/1 failed/);
      // Nothing written: only the forged bytecode is in __pycache__, the test's was never cached.
      expect(await readdir(path.join(ws.root, '__pycache__'))).toEqual([
        expect.stringMatching(/^calc\..*\.pyc$/),
      ]);
    });

    it('let py_compile and compileall succeed and write nothing into the workspace', async () => {
      forgeCachedBytecode(ws.root);
      await mkdir(path.join(ws.root, 'src'));
      await writeFile(path.join(ws.root, 'src', 'app.py'), 'print(1)\n');
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
      for (const argv of [
        ['python3', '-m', 'py_compile', 'calc.py', 'src/app.py'],
        ['python3', '-B', '-m', 'compileall', '-q', '.'],
      ]) {
        const result = await runner.run(argv, { ignoreWorkspaceBytecode: true });
        expect(result).toMatchObject({ bytecode: 'hidden', exitCode: 0 });
      }
      expect(await readdir(path.join(ws.root, 'src'))).toEqual(['app.py']);
      expect(await readdir(path.join(ws.root, '__pycache__'))).toEqual([
        expect.stringMatching(/^calc\..*\.pyc$/),
      ]);
    });

    it("read the interpreter's own cached bytecode", async () => {
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
      const result = await runner.run(['python3', '-v', '-m', 'json.tool', '--help'], {
        ignoreWorkspaceBytecode: true,
      });
      expect(result.bytecode).toBe('hidden');
      // `-v` says "matches" when a module's cached bytecode is used.
      expect(result.stderr).toMatch(/\/__pycache__\/[\w.-]+\.pyc matches \/.*\.py$/m);
    });

    it('fall back to a prefix nobody writes when a __pycache__ cannot be covered', async () => {
      forgeCachedBytecode(ws.root);
      await mkdir(path.join(ws.root, 'sub'));
      await symlink('../__pycache__', path.join(ws.root, 'sub', '__pycache__'));
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
      const result = await runner.run(['python3', '-m', 'pytest', '-q'], {
        ignoreWorkspaceBytecode: true,
      });
      expect(result).toMatchObject({ bytecode: 'prefix', exitCode: 1 });
    });
  });

  it('unsandboxed, ignore a forged __pycache__ and refuse to run beside sourceless bytecode', async () => {
    forgeCachedBytecode(ws.root);
    const runner = createCommandRunner({ root: ws.root, sandbox: 'off' });
    const result = await runner.run(['python3', '-m', 'pytest', '-q'], {
      ignoreWorkspaceBytecode: true,
    });
    expect(result).toMatchObject({ bytecode: 'prefix', exitCode: 1 });
    plantSourcelessPackage(ws.root);
    const refused = await runner
      .run(['python3', '-m', 'pytest', '-q'], { ignoreWorkspaceBytecode: true })
      .catch((error: unknown) => error);
    expect(ToolError.isInstance(refused) && refused.code).toBe('execution-failed');
    expect(String((refused as Error).message)).toMatch(/calc\/__init__\.pyc/);
  });
});
