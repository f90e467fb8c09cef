import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { copyFile, mkdir, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from '../__fixtures__/temp-workspaces';
import { createProtocolContext } from '../protocol';
import { runProtocols } from '../run-protocols';
import { buildProtocol, lintProtocol, testProtocol, typecheckProtocol } from './command-protocols';

const workspace = useTempWorkspaces();

const MATH = (body: string) => `export function isPrime(n) {\n${body}\n}\n`;
const GOOD = MATH(
  '  if (n < 2) return false;\n  for (let i = 2; i * i <= n; i++) if (n % i === 0) return false;\n  return true;',
);
const BAD = MATH('  return n % 2 === 1;');
const TESTS =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { isPrime } from '../src/math.mjs';\n" +
  "test('2', () => assert.equal(isPrime(2), true));\ntest('9', () => assert.equal(isPrime(9), false));\ntest('17', () => assert.equal(isPrime(17), true));\n";

describe('TEST protocol against real suites', { timeout: 120_000 }, () => {
  it('passes a passing node --test suite and reports its counts', async () => {
    const ws = await workspace({ 'src/math.mjs': GOOD, 'test/math.test.mjs': TESTS });
    const { findings } = await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root }));
    expect(findings).toEqual([
      expect.objectContaining({
        check: 'TEST',
        status: 'pass',
        details: expect.objectContaining({ format: 'node-test', passed: 3, failed: 0, total: 3 }),
        evidence: expect.objectContaining({ command: ['node', '--test'], exitCode: 0 }),
      }),
    ]);
  });

  it('never passes a failing suite that a workspace .npmrc rigs (node-options preloading a module)', async () => {
    // The module rewrites what the test runner prints and how it exits.
    const rig =
      'const write = process.stdout.write.bind(process.stdout);\n' +
      "process.stdout.write = (t, ...r) => write(String(t).replace(/not ok/g, 'ok').replace(/# fail \\d+/g, '# fail 0'), ...r);\n" +
      "process.on('exit', () => { process.exitCode = 0; });\n";
    const ws = await workspace({
      'src/math.mjs': BAD,
      'test/math.test.mjs': TESTS,
      'rig.cjs': rig,
      '.npmrc': 'node-options=--require ./rig.cjs\n',
      'package.json': '{ "scripts": { "test": "node --test" } }\n',
    });
    const [finding] = (await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(finding?.status).not.toBe('pass');
    expect(finding?.message).toMatch(/node-options/);
  });

  it('fails a failing node --test suite with the failing test names', async () => {
    const ws = await workspace({ 'src/math.mjs': BAD, 'test/math.test.mjs': TESTS });
    const [finding] = (await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(finding).toMatchObject({ status: 'fail', priority: 'P1', details: { passed: 1, failed: 2 } });
    expect(finding?.message).toMatch(/1 passed, 2 failed/);
    // TAP up to Node 22, the spec reporter from Node 23 on; each failing test named once.
    expect(finding?.message).toMatch(/not ok \d+ - 2|✖ 2 /);
    expect(finding?.message?.match(/(?:not ok \d+ - |✖ )9\b/g)).toHaveLength(1);
  });

  it('runs pytest suites', async () => {
    const ws = await workspace({
      'pytest.ini': '[pytest]\n',
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'test_calc.py':
        'from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    });
    const [failing] = (await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(failing).toMatchObject({ status: 'fail', details: { format: 'pytest', passed: 1, failed: 1 } });
    // The fix has the same size and, here, the same mtime as the bug: Python's bytecode cache
    // (keyed by size and mtime in seconds) must not stand in for the source.
    const { mtime } = statSync(path.join(ws.root, 'calc.py'));
    await ws.write('calc.py', 'def add(a, b):\n    return a + b\n');
    utimesSync(path.join(ws.root, 'calc.py'), mtime, mtime);
    const [passing] = (await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(passing).toMatchObject({ status: 'pass', details: { passed: 2, failed: 0 } });
  });

  it('never passes a failing pytest suite on bytecode a step forged or left without its source', async () => {
    const ws = await workspace({
      'pytest.ini': '[pytest]\n',
      'test_calc.py': 'from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n',
    });
    // `calc.py` reads `a - b` (the test fails); its cached bytecode, with a header that matches
    // that source (size and modification time), returns `a + b`.
    execFileSync(
      'python3',
      [
        '-c',
        [
          'import os, py_compile, sys',
          "open('calc.py', 'w').write('def add(a, b):\\n    return a + b\\n')",
          "os.utime('calc.py', (1700000000, 1700000000))",
          "py_compile.compile('calc.py', cfile=os.path.join('__pycache__', 'calc.' + sys.implementation.cache_tag + '.pyc'), doraise=True)",
          "open('calc.py', 'w').write('def add(a, b):\\n    return a - b\\n')",
          "os.utime('calc.py', (1700000000, 1700000000))",
        ].join('\n'),
      ],
      { cwd: ws.root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
    );
    const [forged] = (await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(forged).toMatchObject({ status: 'fail', details: { format: 'pytest', passed: 0, failed: 1 } });
    // A folder `calc/` holding only `__init__.pyc` (of `a + b`) is imported before `calc.py`.
    await mkdir(path.join(ws.root, 'calc'));
    await copyFile(
      path.join(ws.root, '__pycache__', readdirSync(path.join(ws.root, '__pycache__'))[0] as string),
      path.join(ws.root, 'calc', '__init__.pyc'),
    );
    const [sourceless] = (await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(sourceless?.status).not.toBe('pass');
  });

  it('fails when the runner exits 0 without running a test, and skips without a runner', async () => {
    const ws = await workspace({ 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) });
    const [finding] = (await runProtocols([testProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(finding).toMatchObject({ status: 'fail', message: expect.stringMatching(/no test ran/) });
    const empty = await workspace({ 'a.txt': '' });
    expect(
      (await runProtocols([testProtocol], createProtocolContext({ workspace: empty.root }))).findings[0]
        ?.status,
    ).toBe('skip');
  });
});

describe('BUILD and LINT protocols', { timeout: 120_000 }, () => {
  it('run the package scripts and judge by exit code', async () => {
    const ws = await workspace({
      'package.json': JSON.stringify({ scripts: { build: 'node build.mjs', lint: 'node lint.mjs' } }),
      'build.mjs': "console.error('error: cannot bundle src/index.ts'); process.exit(2);",
      'lint.mjs': "console.log('✖ 3 problems (2 errors, 1 warning)'); process.exit(1);",
    });
    const ctx = createProtocolContext({ workspace: ws.root });
    const { findings } = await runProtocols([buildProtocol, lintProtocol], ctx, { fastFail: false });
    expect(findings[0]).toMatchObject({
      check: 'BUILD',
      priority: 'P0',
      status: 'fail',
      message: expect.stringContaining('cannot bundle'),
    });
    expect(findings[1]).toMatchObject({ check: 'LINT', status: 'fail', details: { errors: 2, warnings: 1 } });
    await ws.write('build.mjs', 'process.exit(0)');
    await ws.write('lint.mjs', 'process.exit(0)');
    const again = await runProtocols(
      [buildProtocol, lintProtocol],
      createProtocolContext({ workspace: ws.root }),
    );
    expect(again.findings.map((f) => f.status)).toEqual(['pass', 'pass']);
  });

  it('reports a missing program (exit 127) as an infrastructure error, not a failure', async () => {
    const ws = await workspace({
      'package.json': JSON.stringify({ scripts: { build: 'definitely-not-installed-xyz --build' } }),
    });
    const [finding] = (await runProtocols([buildProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(finding).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/could not run its program/),
    });
  });
});

describe('TYPECHECK protocol with a real tsc', { timeout: 120_000 }, () => {
  it('fails on type errors and passes when they are fixed', async () => {
    const ws = await workspace({
      'tsconfig.json': JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, types: [] },
        include: ['src'],
      }),
      'src/a.ts': 'export const n: number = "not a number";\n',
    });
    const typescriptDir = path.dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
    await mkdir(path.join(ws.root, 'node_modules', '.bin'), { recursive: true });
    await symlink(typescriptDir, path.join(ws.root, 'node_modules', 'typescript'));
    await symlink('../typescript/bin/tsc', path.join(ws.root, 'node_modules', '.bin', 'tsc'));
    const [failing] = (await runProtocols([typecheckProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(failing).toMatchObject({ status: 'fail', priority: 'P1', details: { typeErrors: 1 } });
    expect(failing?.message).toMatch(/error TS2322/);
    await ws.write('src/a.ts', 'export const n: number = 1;\n');
    const [passing] = (await runProtocols([typecheckProtocol], createProtocolContext({ workspace: ws.root })))
      .findings;
    expect(passing).toMatchObject({ status: 'pass' });
  });
});
