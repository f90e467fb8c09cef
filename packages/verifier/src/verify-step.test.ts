import { createHash } from 'node:crypto';
import { utimesSync } from 'node:fs';
import path from 'node:path';
import { createTempWorkspace } from '@closedloop/tools/testing';
import { describe, expect, it } from 'vitest';
import {
  failingChecks as failing,
  planWithStep,
  type StepTraceInput,
  verifyTrace,
  writeCall as write,
} from './__fixtures__/step-trace';
import { toVerificationRecord } from './verdict';
import { VerifierError } from './verifier-error';
import { verifyStep } from './verify-step';

const MATH_OK =
  'export function isPrime(n) {\n  if (n < 2) return false;\n  for (let i = 2; i * i <= n; i++) if (n % i === 0) return false;\n  return true;\n}\n';
const MATH_BUG = 'export function isPrime(n) {\n  return n % 2 === 1;\n}\n';
const MATH_TEST =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { isPrime } from '../src/math.mjs';\n" +
  "test('2 is prime', () => assert.equal(isPrime(2), true));\ntest('9 is not prime', () => assert.equal(isPrime(9), false));\n";

describe('verifyStep', { timeout: 30_000 }, () => {
  it('absence of evidence is not success: no calls and no notes is unverified', async () => {
    const plan = planWithStep({ description: 'think' });
    const report = await verifyStep(plan, 's1');
    expect(report.verdict).toBe('unverified');
    expect(report.unverified).toBe(true);
    expect(report.infrastructureErrors).toEqual([]);
    expect(report.timings.map((timing) => timing.check)).toEqual([
      'execution',
      'ledger',
      'notes',
      'required-tools',
      'commands',
      'claims',
      'effects',
      'outcome',
      'hollow',
      'tampering',
    ]);
  });

  it('fails P0 on a pending call: the tool call never returned', async () => {
    const plan = planWithStep({
      description: 'write api',
      ledger: [{ tool: 'write_file', args: { path: 'src/api.py' }, status: 'pending' }],
      notes: '[SUCCESS]: wrote src/api.py',
    });
    const report = await verifyStep(plan, 's1');
    expect(report.verdict).toBe('failed');
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        check: 'ledger',
        priority: 'P0',
        status: 'fail',
        evidence: { callId: 'call_1' },
      }),
    );
    expect(report.findings).toContainEqual(
      expect.objectContaining({ check: 'notes', status: 'fail', priority: 'P0' }),
    );
  });

  it('fails on [FAIL] notes with startswith leniency', async () => {
    for (const notes of ['[FAIL]: no credentials', '[FAIL] no credentials', '  [FAIL]no credentials']) {
      const report = await verifyStep(planWithStep({ description: 'post', notes }), 's1');
      expect(report.verdict).toBe('failed');
      expect(report.findings[1]).toMatchObject({
        check: 'notes',
        status: 'fail',
        message: expect.stringContaining('no credentials'),
      });
    }
  });

  it('never reads a tool RESULT as status: a tool printing [SUCCESS] does not rescue an errored call', async () => {
    const plan = planWithStep({
      description: 'run tests',
      ledger: [
        {
          tool: 'run_command',
          args: { argv: ['npm', 'test'] },
          status: 'error',
          error: '[SUCCESS]: all tests pass',
        },
      ],
    });
    const report = await verifyStep(plan, 's1');
    expect(report.verdict).toBe('failed');
    expect(failing(report.findings)).toEqual(['ledger:P1', 'notes:P1', 'outcome:P0']);
  });

  it('never reads a tool RESULT as status: a tool printing [FAIL] in a successful call does not fail the step', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success' },
      step: { description: 'Run `node print.js`' },
      workspace: { files: { 'print.js': "console.log('[FAIL]: x');\n" } },
      ledger: [
        {
          tool: 'run_command',
          args: { argv: ['node', 'print.js'] },
          status: 'success',
          result: '$ node print.js\n(cwd: ., exit code 0, 20 ms)\n--- stdout ---\n[FAIL]: x',
        },
      ],
      notes: '[SUCCESS]: ran print.js',
    });
    expect(report.verdict).toBe('success');
    expect(report.findings.find((f) => f.check === 'outcome')?.message).toMatch(/exited 0/);
  });

  it('reports a tool error recovered on the same target as a P2 warning', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success-with-warnings' },
      step: { description: 'Write a.txt' },
      workspace: { changes: { write: { 'a.txt': 'a' } } },
      ledger: [
        { tool: 'write_file', args: { path: 'a.txt' }, status: 'error', error: 'EACCES' },
        { tool: 'write_file', args: { path: 'a.txt' }, status: 'success', result: 'ok' },
      ],
      notes: '[SUCCESS]: done',
    });
    expect(report.verdict).toBe('success-with-warnings');
    expect(report.findings[0]).toMatchObject({ check: 'ledger', priority: 'P2', status: 'warn' });
  });

  it('does not count a success on another target as recovery', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'retry' },
      step: { description: 'Fix the bug' },
      workspace: { files: { 'a.ts': 'a', 'b.ts': 'b' }, changes: { write: { 'b.ts': 'bb' } } },
      ledger: [
        { tool: 'edit_file', args: { path: 'a.ts' }, status: 'error', error: 'old_string not found' },
        { tool: 'edit_file', args: { path: 'b.ts' }, status: 'success', result: 'ok' },
      ],
      notes: '[SUCCESS]: fixed it',
    });
    expect(report.verdict).toBe('retry');
    expect(failing(report.findings)).toEqual(['ledger:P1', 'notes:P1']);
  });

  it('fails [SUCCESS] notes that sit on an unrecovered error', async () => {
    const plan = planWithStep({
      description: 'write',
      ledger: [{ tool: 'write_file', args: { path: 'a.txt' }, status: 'error', error: 'disk full' }],
      notes: '[SUCCESS]: wrote a.txt',
    });
    const report = await verifyStep(plan, 's1', { claimsFromNotes: 'never' });
    expect(failing(report.findings)).toEqual(['ledger:P1', 'notes:P1', 'outcome:P0']);
    expect(report.verdict).toBe('failed');
  });

  it('checks the step requiredTools in order', async () => {
    const missing = planWithStep({
      description: 'review',
      requiredTools: ['generate_testbench', 'run_simulation'],
      ledger: [{ tool: 'generate_testbench', status: 'success', result: 'tb' }],
    });
    const report = await verifyStep(missing, 's1');
    expect(report.verdict).toBe('retry');
    expect(report.findings.find((f) => f.check === 'required-tools')?.message).toMatch(
      /run_simulation was never called/,
    );

    const wrongOrder = planWithStep({
      description: 'review',
      requiredTools: ['generate_testbench', 'run_simulation'],
      ledger: [
        { tool: 'run_simulation', status: 'success', result: 'ok' },
        { tool: 'generate_testbench', status: 'success', result: 'tb' },
      ],
    });
    const second = await verifyStep(wrongOrder, 's1');
    expect(second.verdict).toBe('retry');
    expect(second.findings.find((f) => f.check === 'required-tools')?.message).toMatch(/order/);
  });

  it('applies profile contracts and rejects unknown profiles and bad configurations', async () => {
    const plan = planWithStep({
      description: 'review',
      ledger: [{ tool: 'generate_testbench', status: 'success', result: 'tb' }],
      notes: '[SUCCESS]: generated the testbench',
    });
    const contracts = {
      profiles: {
        reviewer: [
          { tool: 'generate_testbench', nextRequired: 'run_simulation' },
          { tool: 'run_simulation', dependsOn: 'generate_testbench' },
        ],
      },
    };
    const report = await verifyStep(plan, 's1', { contracts, profile: 'reviewer' });
    expect(failing(report.findings)).toEqual(['required-tools:P1', 'required-tools:P1']);
    await expect(verifyStep(plan, 's1', { contracts, profile: 'nobody' })).rejects.toMatchObject({
      code: 'unknown-profile',
    });
    await expect(
      verifyStep(plan, 's1', { contracts: { profiles: { x: [{ tol: 'a' }] } }, profile: 'x' }),
    ).rejects.toSatisfy(
      (error: unknown) => VerifierError.isInstance(error) && error.code === 'invalid-contract',
    );
  });

  it('throws unknown-step for a step the plan does not have, and aborted for an aborted signal', async () => {
    const plan = planWithStep({ description: 'x' });
    await expect(verifyStep(plan, 'nope')).rejects.toMatchObject({
      name: 'VerifierError',
      code: 'unknown-step',
    });
    const controller = new AbortController();
    controller.abort();
    await expect(verifyStep(plan, 's1', { signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
  });

  it('passes a true file claim backed by git and fails a claimed file that does not exist', async () => {
    const ok = await verifyTrace({
      id: 't',
      class: 'clean',
      expected: { verdict: 'success' },
      step: { description: 'create a' },
      workspace: {
        files: { 'README.md': '# x\n' },
        changes: { write: { 'src/a.ts': 'export const a = 1;\n' } },
      },
      ledger: [write('src/a.ts')],
      notes: '[SUCCESS]: created src/a.ts',
    });
    expect(ok.verdict).toBe('success');
    expect(ok.findings.find((f) => f.check === 'claims')?.message).toMatch(
      /was created since the step started/,
    );

    const missing = await verifyTrace({
      id: 't',
      class: 'missing-file',
      expected: { verdict: 'retry' },
      step: { description: 'create a' },
      workspace: { files: { 'README.md': '# x\n' } },
      ledger: [write('src/a.ts')],
      notes: '[SUCCESS]: wrote `src/a.ts`',
    });
    expect(missing.verdict).toBe('retry');
    expect(missing.findings.find((f) => f.check === 'claims')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('src/a.ts does not exist'),
    });
  });

  it('fails a claimed modification the workspace does not show', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'unchanged-file',
      expected: { verdict: 'retry' },
      step: { description: 'edit auth' },
      workspace: { files: { 'src/auth.ts': 'export function login() {}\n' } },
      ledger: [{ tool: 'read_file', args: { path: 'src/auth.ts' }, status: 'success', result: '...' }],
      notes: '[SUCCESS]: 已修改 auth.ts',
    });
    expect(report.verdict).toBe('failed');
    expect(report.findings.find((f) => f.check === 'claims')?.message).toMatch(
      /src\/auth\.ts exists but did not change since the step started/,
    );
    expect(failing(report.findings)).toEqual(['claims:P1', 'effects:P0', 'outcome:P0']);
  });

  it('checks symbol claims with the TypeScript AST (English and Chinese)', async () => {
    const base = {
      id: 't',
      class: 'x',
      expected: { verdict: 'success' as const },
      step: { description: 'add validateToken' },
      ledger: [write('src/auth.ts')],
    };
    const present = await verifyTrace({
      ...base,
      workspace: {
        files: { 'src/auth.ts': 'export function login() {}\n' },
        changes: {
          write: {
            'src/auth.ts':
              'export function login() {}\nexport const validateToken = (t: string) => t.length > 0;\n',
          },
        },
      },
      notes: '[SUCCESS]: 在 auth.ts 中加入了 validateToken 函數',
    });
    expect(present.verdict).toBe('success');
    expect(present.findings.find((f) => f.check === 'claims')?.message).toMatch(
      /src\/auth\.ts:2 declares function validateToken/,
    );

    const absent = await verifyTrace({
      ...base,
      workspace: {
        files: { 'src/auth.ts': 'export function login() {}\n' },
        changes: { write: { 'src/auth.ts': 'export function login() {}\n// validateToken comes later\n' } },
      },
      notes: '[SUCCESS]: added function validateToken in auth.ts',
    });
    expect(absent.verdict).toBe('retry');
    expect(absent.findings.find((f) => f.check === 'claims')?.message).toMatch(
      /no function named validateToken in src\/auth\.ts/,
    );
  });

  it('re-runs "tests pass" claims with the detected runner (real node --test)', async () => {
    const base = {
      id: 't',
      class: 'x',
      expected: { verdict: 'success' as const },
      step: { description: 'implement isPrime' },
      ledger: [
        write('src/math.mjs'),
        {
          tool: 'run_command',
          args: { argv: ['node', '--test'] },
          status: 'success' as const,
          result: '# pass 2',
        },
      ],
      notes: '[SUCCESS]: implemented isPrime, all tests pass',
    };
    const passing = await verifyTrace({
      ...base,
      workspace: {
        files: { 'test/math.test.mjs': MATH_TEST },
        changes: { write: { 'src/math.mjs': MATH_OK } },
      },
    });
    expect(passing.verdict).toBe('success');
    const claim = passing.findings.find((f) => f.check === 'claims');
    expect(claim?.message).toMatch(/2 passed, 0 failed/);
    expect(claim?.evidence?.command).toEqual(['node', '--test']);

    const failingRun = await verifyTrace({
      ...base,
      workspace: {
        files: { 'test/math.test.mjs': MATH_TEST },
        changes: { write: { 'src/math.mjs': MATH_BUG } },
      },
    });
    expect(failingRun.verdict).toBe('retry');
    expect(failingRun.findings.find((f) => f.check === 'claims')).toMatchObject({
      status: 'fail',
      evidence: expect.objectContaining({ exitCode: 1 }),
    });
  });

  it('fails text-only effects: claims with no successful tool call (P0)', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'text-only-effect',
      expected: { verdict: 'failed' },
      step: { description: 'create a' },
      workspace: { files: { 'src/a.ts': 'export const a = 1;\n' } },
      ledger: [],
      notes: '[SUCCESS]: 新增了 src/a.ts',
    });
    expect(report.verdict).toBe('failed');
    expect(report.findings.find((f) => f.check === 'effects')).toMatchObject({
      status: 'fail',
      priority: 'P0',
    });
  });

  it('without git, judges against the baseline: a read changes nothing, a command that generated the file does', async () => {
    const base = {
      id: 't',
      class: 'x',
      expected: { verdict: 'success' as const },
      step: { description: 'x' },
    };
    const readOnly = await verifyTrace({
      ...base,
      workspace: { git: false, files: { 'a.ts': 'export const a = 1;\n' } },
      ledger: [{ tool: 'read_file', args: { path: 'a.ts' }, status: 'success', result: '...' }],
      notes: '[SUCCESS]: modified a.ts',
    });
    expect(readOnly.findings.find((f) => f.check === 'claims')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/a\.ts exists but did not change/),
    });
    expect(readOnly.verdict).toBe('failed');
    const generated = await verifyTrace({
      ...base,
      workspace: { git: false, files: {}, changes: { write: { 'out/report.json': '{}' } } },
      ledger: [
        {
          tool: 'run_command',
          args: { argv: ['node', 'gen.js', 'out/report.json'] },
          status: 'success',
          result: 'ok',
        },
      ],
      notes: '[SUCCESS]: generated out/report.json',
    });
    expect(generated.findings.find((f) => f.check === 'claims')).toMatchObject({
      status: 'pass',
      evidence: expect.objectContaining({ callId: 'call_1' }),
    });
  });

  it('cannot check claims without a workspace: unverified, never success', async () => {
    const plan = planWithStep({
      description: 'x',
      ledger: [write('a.ts')],
      notes: '[SUCCESS]: created a.ts',
    });
    const report = await verifyStep(plan, 's1');
    expect(report.findings.find((f) => f.check === 'claims')).toMatchObject({ status: 'error' });
    expect(report.verdict).toBe('unverified');
  });

  it('a claimed command the policy will not re-run is unverified, never accepted', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success' },
      step: { description: 'x' },
      workspace: {},
      ledger: [{ tool: 'run_command', status: 'success', result: 'ok' }],
      claims: { commandsPassed: [{ argv: ['rm', '-rf', '/'] }] },
    });
    expect(report.findings.find((f) => f.check === 'claims')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/not re-run/),
    });
    expect(report.verdict).toBe('unverified');
  });

  it('turns a crashing check into an infrastructure error and fails closed (unverified)', async () => {
    const plan = planWithStep({
      description: 'x',
      ledger: [write('a.ts')],
      claims: { commandsPassed: [{ argv: ['node', '-e', 'process.exit(0)'] }] },
    });
    const report = await verifyStep(plan, 's1', {
      workspace: '/tmp',
      allowCommand: () => {
        throw new Error('policy exploded');
      },
    });
    expect(report.verdict).toBe('unverified');
    expect(report.infrastructureErrors).toEqual([
      expect.objectContaining({ check: 'claims', status: 'error', priority: 'P1' }),
    ]);
    expect(report.unverified).toBe(true);
  });

  it('turns a check that exceeds checkTimeoutMs into an infrastructure error and kills its command', async () => {
    const plan = planWithStep({
      description: 'x',
      ledger: [write('a.ts')],
      claims: { commandsPassed: [{ argv: ['node', 'hang.cjs'] }] },
    });
    const started = Date.now();
    await using ws = await createTempWorkspace({ files: { 'hang.cjs': 'setInterval(() => {}, 1000);\n' } });
    const report = await verifyStep(plan, 's1', {
      workspace: ws.root,
      allowCommand: () => true,
      checkTimeoutMs: 300,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(report.infrastructureErrors).toEqual([
      expect.objectContaining({ check: 'claims', message: expect.stringMatching(/timed out after 300 ms/) }),
    ]);
    expect(report.verdict).toBe('unverified');
  });

  it('runs step protocols after the checks and skips them after a P0 failure', async () => {
    const passing = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success' },
      step: { description: 'implement isPrime', protocols: ['TEST', 'NOPE'] },
      workspace: {
        files: { 'test/math.test.mjs': MATH_TEST },
        changes: { write: { 'src/math.mjs': MATH_OK } },
      },
      ledger: [write('src/math.mjs')],
      notes: '[SUCCESS]: wrote src/math.mjs',
    });
    expect(passing.findings.find((f) => f.check === 'TEST')).toMatchObject({ status: 'pass', layer: 2 });
    expect(passing.findings.find((f) => f.check === 'NOPE')).toMatchObject({
      status: 'warn',
      priority: 'P2',
    });
    expect(passing.verdict).toBe('success-with-warnings');

    const p0 = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'failed' },
      step: { description: 'x', protocols: ['TEST'] },
      workspace: { files: { 'test/math.test.mjs': MATH_TEST } },
      ledger: [],
      notes: '[FAIL]: could not do it',
    });
    expect(p0.findings.find((f) => f.check === 'TEST')).toMatchObject({
      status: 'skip',
      message: expect.stringMatching(/fast-fail/),
    });
  });

  it('propagates confidence: < 0.4 fails, 0.4–0.7 marks unverified, upstream bounds it', async () => {
    const trace = {
      id: 't',
      class: 'x',
      expected: { verdict: 'success' as const },
      step: { description: 'Create a.txt' },
      workspace: { changes: { write: { 'a.txt': 'a' } } },
      ledger: [write('a.txt')],
      notes: '[SUCCESS]: created a.txt',
    };
    const low = await verifyTrace(trace, { confidence: 0.3 });
    expect(low.verdict).toBe('retry');
    const medium = await verifyTrace(trace, { confidence: 0.5 });
    expect(medium).toMatchObject({ verdict: 'success-with-warnings', unverified: true, confidence: 0.5 });
    const high = await verifyTrace(trace, { confidence: 0.9 });
    expect(high).toMatchObject({ verdict: 'success', unverified: false, confidence: 0.9 });
    const plan = planWithStep({ description: 'x' });
    plan.recordVerification('s1', toVerificationRecord(medium));
    expect(plan.step('s1').verification).toMatchObject({
      verdict: 'success-with-warnings',
      unverified: true,
      confidence: 0.5,
    });
  });
  describe('without a baseline (a resumed step) in a folder that is not a git repository', () => {
    const description = "Bump the package version from 1.0.0 to 1.0.1 with the project's release script.";
    const bump = async (changed: boolean) => {
      const ws = await createTempWorkspace({
        files: { 'package.json': '{"version":"1.0.0"}\n', 'README.md': 'x\n' },
        git: false,
      });
      const minuteAgo = new Date(Date.now() - 60_000);
      for (const file of ['package.json', 'README.md'])
        utimesSync(path.join(ws.root, file), minuteAgo, minuteAgo);
      const plan = planWithStep({
        description,
        ledger: [
          {
            tool: 'run_command',
            args: { argv: ['node', 'scripts/bump-version.mjs'] },
            status: 'success',
            result: '$ node scripts/bump-version.mjs\n(cwd: ., exit code 0, 40 ms)\n--- stdout ---\nv1.0.1',
          },
        ],
        notes: '[SUCCESS]: Bumped the version to 1.0.1 in package.json.',
      });
      // The command's effect: not in the ledger, only in the workspace, after the call started (a
      // process starts some ms after its call; files carry the kernel's coarse clock).
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (changed) await ws.write('package.json', '{"version":"1.0.1"}\n');
      try {
        return await verifyStep(plan, 's1', { workspace: ws.root });
      } finally {
        await ws.cleanup();
      }
    };

    it("sees a file a command changed since the step's first call (file times)", async () => {
      const report = await bump(true);
      expect(failing(report.findings)).toEqual([]);
      expect(report.findings).toContainEqual(expect.objectContaining({ check: 'outcome', status: 'pass' }));
    });

    describe('priorStates (what files held before the step, from a journal): judged by content, not by clocks', () => {
      const edited = async (priorText: string | undefined) => {
        const ws = await createTempWorkspace({ files: { 'notes.txt': 'new\n' }, git: false });
        // Written by an attempt on a machine whose clock ran ahead: older than the step's first call.
        const minuteAgo = new Date(Date.now() - 60_000);
        utimesSync(path.join(ws.root, 'notes.txt'), minuteAgo, minuteAgo);
        const plan = planWithStep({
          description: 'Update notes.txt.',
          ledger: [
            {
              tool: 'edit_file',
              args: { path: 'notes.txt', old_string: 'old', new_string: 'new' },
              status: 'success',
              result: '{"path":"notes.txt","replacements":1}',
            },
          ],
          notes: '[SUCCESS]: updated notes.txt',
          claims: { filesWritten: ['notes.txt'] },
        });
        const sha = (text: string) => createHash('sha256').update(text).digest('hex');
        try {
          return await verifyStep(plan, 's1', {
            workspace: ws.root,
            ...(priorText !== undefined
              ? { priorStates: new Map([[path.join(ws.root, 'notes.txt'), sha(priorText)]]) }
              : {}),
          });
        } finally {
          await ws.cleanup();
        }
      };
      const claim = (report: Awaited<ReturnType<typeof edited>>) =>
        report.findings.find(
          (finding) => finding.check === 'claims' && finding.message.includes('notes.txt'),
        );

      it('a file whose content differs from before the step counts, whatever its times say', async () => {
        expect(claim(await edited('old\n'))).toMatchObject({ status: 'pass' });
        // File times alone would not have shown it.
        expect(claim(await edited(undefined))).toMatchObject({ status: 'fail' });
      });

      it('a file that holds what it held before the step does not count', async () => {
        expect(claim(await edited('new\n'))).toMatchObject({
          status: 'fail',
          message: expect.stringContaining('did not change since the step started'),
        });
      });
    });

    it('still fails a step whose command changed nothing', async () => {
      const report = await bump(false);
      expect(report.findings).toContainEqual(
        expect.objectContaining({
          check: 'outcome',
          status: 'fail',
          message: expect.stringContaining('no file changed since the step started (file times)'),
        }),
      );
    });
  });
});

describe('verifyStep: a fix of a failing command the description names', { timeout: 30_000 }, () => {
  const CLI = 'const [name] = process.argv.slice(2);\nconsole.log(name.toUpperCase());\n';
  const FIXED = "const [name = 'world'] = process.argv.slice(2);\nconsole.log(name.toUpperCase());\n";
  const trace = (after: string, ledger: StepTraceInput['ledger'] = []): StepTraceInput => ({
    id: 't',
    class: 'reproduction',
    expected: { verdict: 'success' },
    step: { description: 'Fix the crash: `node cli.js` throws a TypeError' },
    workspace: { files: { 'cli.js': CLI }, changes: { write: { 'cli.js': after } } },
    ledger: [write('cli.js', after), ...ledger],
    notes: '[SUCCESS]: fixed the crash in cli.js',
  });
  const ran = (exitCode: number) => ({
    tool: 'run_command',
    args: { argv: ['node', 'cli.js'] },
    status: 'success' as const,
    result: `$ node cli.js\n(cwd: ., exit code ${exitCode}, 20 ms)\n--- stdout ---\nWORLD`,
  });

  it('is unverified when the step never ran the command after its change (the verifier may not run it)', async () => {
    const report = await verifyTrace(trace(CLI.replace('toUpperCase', 'toLocaleUpperCase')));
    expect(report.verdict).toBe('unverified');
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        check: 'outcome',
        status: 'error',
        message: expect.stringMatching(/never ran it/),
      }),
    );
  });

  it('passes on the step running it after the change (exit 0), fails on that run failing', async () => {
    const fixed = await verifyTrace(trace(FIXED, [ran(0)]));
    expect(fixed.verdict).toBe('success');
    expect(fixed.findings).toContainEqual(
      expect.objectContaining({
        check: 'outcome',
        status: 'pass',
        message: expect.stringMatching(/exited 0/),
      }),
    );
    const broken = await verifyTrace(trace(CLI.replace('toUpperCase', 'toLocaleUpperCase'), [ran(1)]));
    expect(broken.verdict).not.toMatch(/^success/);
  });

  it('re-runs it when the policy allows: a fix that does not fix it still exits non-zero', async () => {
    const report = await verifyTrace(trace(CLI.replace('toUpperCase', 'toLocaleUpperCase')), {
      allowCommand: (argv) => argv.join(' ') === 'node cli.js',
    });
    expect(report.verdict).toBe('retry');
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        check: 'outcome',
        status: 'fail',
        message: expect.stringMatching(/still exits 1/),
      }),
    );
    const fixed = await verifyTrace(trace(FIXED), {
      allowCommand: (argv) => argv.join(' ') === 'node cli.js',
    });
    expect(fixed.verdict).toBe('success');
  });
});
