import type { ToolCallRecord } from '@closedloop/plan';
import { createToolRegistry, workspaceTools } from '@closedloop/tools';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from '../__fixtures__/temp-workspaces';
import { createProtocolContext } from '../protocol';
import { runProtocols } from '../run-protocols';
import { createCoverageProtocol, detectCoverage } from './coverage-protocol';
import { crashFreeProtocol, findRuntimeCrash } from './crash-free-protocol';
import { documentationProtocol } from './documentation-protocol';

const workspace = useTempWorkspaces({ git: true });

/** Runs real commands with the workspace's `run_command` tool and records them as a ledger. */
async function ledgerOf(root: string, commands: string[][]): Promise<ToolCallRecord[]> {
  const registry = createToolRegistry(workspaceTools({ root }));
  const ledger: ToolCallRecord[] = [];
  for (const [index, argv] of commands.entries()) {
    const outcome = await registry.execute(
      'run_command',
      { argv },
      {
        signal: new AbortController().signal,
        callId: `call_${index}`,
      },
    );
    ledger.push({
      callId: `call_${index}`,
      tool: 'run_command',
      args: { argv },
      status: outcome.status === 'success' ? 'success' : 'error',
      ...(outcome.status === 'success' ? { result: outcome.text } : { error: outcome.message }),
      calledAt: index,
      respondedAt: index,
    } as ToolCallRecord);
  }
  return ledger;
}

describe('CRASH_FREE (P0)', { timeout: 60_000 }, () => {
  it('fails P0 when a program the work ran died of an uncaught exception (real node)', async () => {
    const ws = await workspace({ 'app.js': 'const config = undefined;\nconsole.log(config.port);\n' });
    const ledger = await ledgerOf(ws.root, [['node', 'app.js']]);
    const { findings } = await runProtocols(
      [crashFreeProtocol],
      createProtocolContext({ workspace: ws.root, ledger }),
    );
    expect(findings).toEqual([
      expect.objectContaining({ check: 'CRASH_FREE', status: 'fail', priority: 'P0' }),
    ]);
    expect(findings[0]?.message).toMatch(/still crashes when re-run now: uncaught JavaScript exception/);
  });

  it('passes a crash the work fixed afterwards: the same command re-run now does not crash', async () => {
    const ws = await workspace({ 'app.js': 'const config = undefined;\nconsole.log(config.port);\n' });
    const ledger = await ledgerOf(ws.root, [['node', 'app.js']]);
    await ws.write('app.js', 'const config = { port: 8080 };\nconsole.log(config.port);\n');
    const { findings } = await runProtocols(
      [crashFreeProtocol],
      createProtocolContext({ workspace: ws.root, ledger }),
    );
    expect(findings).toEqual([expect.objectContaining({ status: 'pass', priority: 'P0' })]);
    expect(findings[0]?.message).toMatch(/crashed during the work .*re-run now, it exits 0 without crashing/);
  });

  it('keeps the recorded crash when the command may not be re-run', async () => {
    const ws = await workspace({});
    const ledger: ToolCallRecord[] = [
      {
        callId: 'c1',
        tool: 'run_command',
        args: { argv: ['node', '-e', 'boom()'] },
        status: 'success',
        result:
          "$ node -e 'boom()'\n(cwd: ., exit code 1, 40 ms)\n--- stderr ---\nReferenceError: boom is not defined\n    at [eval]:1:1\n\nNode.js v20.20.2",
        calledAt: 1,
        respondedAt: 2,
      } as ToolCallRecord,
    ];
    const { findings } = await runProtocols(
      [crashFreeProtocol],
      createProtocolContext({ workspace: ws.root, ledger }),
    );
    expect(findings).toEqual([expect.objectContaining({ status: 'fail', priority: 'P0' })]);
  });

  it('passes when the crash was fixed and the same command ran again, and failed tests are not crashes', async () => {
    const ws = await workspace({
      'app.js': 'throw new Error("boom");\n',
      'math.test.mjs':
        "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.equal(1 + 1, 3));\n",
    });
    const first = await ledgerOf(ws.root, [['node', 'app.js']]);
    await ws.write('app.js', 'console.log("ok");\n');
    const again = await ledgerOf(ws.root, [
      ['node', 'app.js'],
      ['node', '--test'],
    ]);
    const { findings } = await runProtocols(
      [crashFreeProtocol],
      createProtocolContext({ workspace: ws.root, ledger: [...first, ...again] }),
    );
    expect(findings).toEqual([expect.objectContaining({ status: 'pass', priority: 'P0' })]);
  });

  it('recognises crashes across runtimes, not runner summaries', () => {
    expect(
      findRuntimeCrash('Traceback (most recent call last):\n  File "a.py", line 1\nKeyError: \'port\'\n')
        ?.label,
    ).toBe('uncaught Python exception');
    expect(
      findRuntimeCrash('Traceback (most recent call last):\nAssertionError\n\nFAILED (failures=1)\n'),
    ).toBeUndefined();
    expect(
      findRuntimeCrash('panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()')
        ?.label,
    ).toBe('Go panic');
    expect(findRuntimeCrash("thread 'main' panicked at src/main.rs:2:5:\nboom")?.label).toBe(
      'Rust panic in main',
    );
    expect(findRuntimeCrash('Exception in thread "main" java.lang.NullPointerException')?.label).toBe(
      'uncaught Java exception',
    );
    expect(findRuntimeCrash('Segmentation fault (core dumped)')).toBeDefined();
    expect(
      findRuntimeCrash(
        ' FAIL  src/a.test.ts > adds\nAssertionError: expected 2 to be 3\n ❯ src/a.test.ts:3:20',
      ),
    ).toBeUndefined();
  });
});

describe('COVERAGE (P2, real measurement)', { timeout: 120_000 }, () => {
  const project = (threshold: string) => ({
    'package.json': JSON.stringify({
      name: 'm',
      type: 'module',
      scripts: { test: 'node --test --experimental-test-coverage' },
    }),
    'src/math.js':
      'export function isPrime(n) {\n  if (n < 2) return false;\n  for (let i = 2; i * i <= n; i++) {\n    if (n % i === 0) return false;\n  }\n  return true;\n}\nexport function unused(a) {\n  const b = a * 2;\n  const c = b + 1;\n  return c;\n}\n',
    'test/math.test.js': `import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { isPrime } from '../src/math.js';\ntest('primes', () => { ${threshold} });\n`,
  });

  it('measures line coverage with the runner the workspace configured and compares it with the threshold', async () => {
    const ws = await workspace(
      project(
        'assert.equal(isPrime(7), true); assert.equal(isPrime(9), false); assert.equal(isPrime(1), false);',
      ),
    );
    const ctx = createProtocolContext({ workspace: ws.root });
    expect(await detectCoverage(ctx)).toMatchObject({ tool: 'node', report: 'lcov' });
    const below = await runProtocols([createCoverageProtocol({ threshold: 90 })], ctx);
    expect(below.findings).toEqual([
      expect.objectContaining({ check: 'COVERAGE', status: 'fail', priority: 'P2' }),
    ]);
    const lines = below.findings[0]?.details?.lines as number;
    expect(lines).toBeGreaterThan(50);
    expect(lines).toBeLessThan(90);
    const met = await runProtocols(
      [createCoverageProtocol({ threshold: 50 })],
      createProtocolContext({ workspace: ws.root }),
    );
    expect(met.findings[0]).toMatchObject({ status: 'pass' });
    // The scratch report folder is gone.
    expect((await ws.git('status', '--porcelain')).trim()).toBe('');
  });

  it('takes no figure from a run whose code rewrites its own coverage data (v8.takeCoverage, NODE_V8_COVERAGE)', async () => {
    // The test process writes the raw coverage it is measured by: at exit it flushes V8's data,
    // stops coverage and marks every range as run. The report then says 100%.
    const forging = `import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
process.on('exit', () => {
  const dir = process.env.NODE_V8_COVERAGE;
  if (!dir) return;
  v8.takeCoverage();
  v8.stopCoverage();
  for (const name of readdirSync(dir)) {
    const data = JSON.parse(readFileSync(dir + '/' + name, 'utf8'));
    for (const script of data.result) for (const fn of script.functions) for (const range of fn.ranges) range.count = Math.max(range.count, 1);
    writeFileSync(dir + '/' + name, JSON.stringify(data));
  }
});
`;
    const files = project('assert.equal(isPrime(7), true);');
    const ws = await workspace({
      ...files,
      'test/helpers.js': forging,
      'test/math.test.js': `import './helpers.js';\n${files['test/math.test.js']}`,
    });
    const run = await runProtocols(
      [createCoverageProtocol({ threshold: 90 })],
      createProtocolContext({ workspace: ws.root }),
    );
    expect(run.findings).toEqual([
      expect.objectContaining({
        check: 'COVERAGE',
        status: 'error',
        message: expect.stringContaining('test/helpers.js'),
      }),
    ]);
  });

  it('does not apply without a configured coverage tool, and is an error when no report comes out', async () => {
    const ws = await workspace({
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'a.test.mjs': "import test from 'node:test';\ntest('x', () => {});\n",
    });
    const skipped = await runProtocols(
      [createCoverageProtocol()],
      createProtocolContext({ workspace: ws.root }),
    );
    expect(skipped.findings[0]).toMatchObject({ status: 'skip' });
    const broken = await workspace({
      'package.json': JSON.stringify({
        scripts: { test: 'node --test --experimental-test-coverage missing-folder/' },
      }),
    });
    const error = await runProtocols(
      [createCoverageProtocol()],
      createProtocolContext({ workspace: broken.root }),
    );
    expect(error.findings[0]).toMatchObject({ status: 'error', priority: 'P2' });
  });
});

describe('DOCUMENTATION (P2)', { timeout: 60_000 }, () => {
  it('asks for docs when an entry point changes its exports, and passes when a README changed too', async () => {
    const ws = await workspace({
      'package.json': JSON.stringify({ name: 'lib', main: './src/index.js' }),
      'src/index.js': 'export function parse(text) { return text.trim(); }\n',
      'src/internal.js': 'export const helper = 1;\n',
      'README.md': '# lib\n',
    });
    await ws.write(
      'src/index.js',
      'export function parse(text) { return text.trim(); }\nexport function format(value) { return String(value); }\n',
    );
    const missing = await runProtocols(
      [documentationProtocol],
      createProtocolContext({ workspace: ws.root }),
    );
    expect(missing.findings).toEqual([expect.objectContaining({ status: 'fail', priority: 'P2' })]);
    expect(missing.findings[0]?.message).toMatch(/added format in src\/index\.js/);
    await ws.write('README.md', '# lib\n\n`format(value)` turns a value into text.\n');
    const documented = await runProtocols(
      [documentationProtocol],
      createProtocolContext({ workspace: ws.root }),
    );
    expect(documented.findings).toEqual([expect.objectContaining({ status: 'pass' })]);
  });

  it('treats public Go symbols as API and ignores internal JS modules and tests', async () => {
    const ws = await workspace({
      'src/internal.js': 'export const helper = 1;\n',
      'store/store.go': 'package store\n\nfunc Get() {}\n',
      'store/store_test.go': 'package store\n',
    });
    await ws.write('src/internal.js', 'export const helper = 1;\nexport const other = 2;\n');
    expect(
      (await runProtocols([documentationProtocol], createProtocolContext({ workspace: ws.root })))
        .findings[0],
    ).toMatchObject({
      status: 'skip',
    });
    await ws.write('store/store.go', 'package store\n\nfunc Get() {}\n\nfunc Put() {}\n\nfunc put() {}\n');
    const { findings } = await runProtocols(
      [documentationProtocol],
      createProtocolContext({ workspace: ws.root }),
    );
    expect(findings[0]).toMatchObject({ status: 'fail' });
    expect(findings[0]?.message).toMatch(/added Put in store\/store\.go\)/);
  });
});
