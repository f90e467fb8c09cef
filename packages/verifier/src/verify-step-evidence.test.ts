import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  failingChecks,
  materialiseTrace,
  planWithStep,
  type StepTraceInput,
  verifyTrace,
  writeCall,
} from './__fixtures__/step-trace';
import type { Protocol } from './protocol';
import { verifyStep } from './verify-step';

const PACKAGE_JSON = `${JSON.stringify({ name: 'is-prime', type: 'module', scripts: { test: 'node --test' } })}\n`;
const IS_PRIME =
  'export function isPrime(n) {\n  if (n < 2) return false;\n  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;\n  return true;\n}\n';
const IS_PRIME_TEST =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { isPrime } from '../src/is-prime.js';\n" +
  "test('2', () => assert.equal(isPrime(2), true));\ntest('4', () => assert.equal(isPrime(4), false));\n";
const DEMO_CLAIMS = {
  filesWritten: ['src/is-prime.js'],
  symbolsAdded: [{ file: 'src/is-prime.js', name: 'isPrime', kind: 'function' as const }],
};

/** `mark_step` as the executor records it: the step's notes and claims are its arguments. */
const markStepCall = (notes: string, claims?: Record<string, unknown>) => ({
  tool: 'mark_step',
  args: { status: notes.startsWith('[FAIL]') ? 'fail' : 'success', notes, ...(claims ? { claims } : {}) },
  status: 'success' as const,
  result: `Step s1 marked: ${notes}`,
});

/** The end-to-end demo's `implement` step: mark_step is its only call. */
const demoImplementStep = (overrides: Partial<StepTraceInput> = {}): StepTraceInput => ({
  id: 'demo-implement',
  class: 'text-only-effect',
  expected: { verdict: 'failed' },
  step: { description: 'Write src/is-prime.js exporting isPrime(n).' },
  workspace: { files: { 'package.json': PACKAGE_JSON } },
  ledger: [markStepCall('[SUCCESS]: Created src/is-prime.js with an isPrime(n) function.', DEMO_CLAIMS)],
  notes: '[SUCCESS]: Created src/is-prime.js with an isPrime(n) function.',
  claims: DEMO_CLAIMS,
  ...overrides,
});

describe('verifyStep: control tools (mark_step) are never evidence', { timeout: 30_000 }, () => {
  it('fails the demo implement step P0 on effects, in addition to its P1 claim findings', async () => {
    const report = await verifyTrace(demoImplementStep());
    expect(report.verdict).toBe('failed');
    expect(failingChecks(report.findings)).toEqual(['claims:P1', 'claims:P1', 'effects:P0', 'outcome:P0']);
    expect(report.findings.find((f) => f.check === 'effects')).toMatchObject({
      priority: 'P0',
      status: 'fail',
      message: expect.stringMatching(/the control tool mark_step only reports the step/),
      evidence: expect.objectContaining({ callId: 'call_1' }),
    });
    expect(report.findings.filter((f) => f.check === 'claims').map((f) => f.message)).toEqual([
      expect.stringMatching(/src\/is-prime\.js does not exist/),
      expect.stringMatching(/src\/is-prime\.js does not exist/),
    ]);
  });

  it('fails a step that only calls mark_step even when git shows the claimed file changed', async () => {
    const changed = {
      workspace: {
        files: { 'package.json': PACKAGE_JSON },
        changes: { write: { 'src/is-prime.js': IS_PRIME } },
      },
    };
    const markOnly = await verifyTrace(demoImplementStep(changed));
    expect(markOnly.verdict).toBe('failed');
    // The file changed, but no call of this step wrote it: someone else's work.
    expect(failingChecks(markOnly.findings)).toEqual(['claims:P1', 'effects:P0', 'outcome:P0']);
    expect(markOnly.findings.find((f) => f.check === 'claims')?.message).toMatch(
      /none of this step's tool calls wrote it/,
    );

    // The same step with the write it claims is clean: the write_file call is the evidence.
    const written = await verifyTrace(
      demoImplementStep({
        ...changed,
        ledger: [
          writeCall('src/is-prime.js', IS_PRIME),
          markStepCall('[SUCCESS]: Created src/is-prime.js.', DEMO_CLAIMS),
        ],
      }),
    );
    expect(written.verdict).toBe('success');
  });

  it('without git, a path named only in mark_step arguments is no evidence that the step wrote it', async () => {
    const report = await verifyTrace(
      demoImplementStep({
        workspace: { git: false, files: { 'src/is-prime.js': IS_PRIME } },
        claims: { filesWritten: ['src/is-prime.js'] },
        ledger: [markStepCall('[SUCCESS]: Created src/is-prime.js.', { filesWritten: ['src/is-prime.js'] })],
      }),
    );
    expect(report.verdict).toBe('failed');
    expect(report.findings.find((f) => f.check === 'claims')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/did not change since the step started/),
    });
  });

  it('fails a "tests pass" claim made only through mark_step, even though the suite passes on re-run', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'text-only-effect',
      expected: { verdict: 'failed' },
      step: { description: 'Run the tests' },
      workspace: {
        files: {
          'package.json': PACKAGE_JSON,
          'src/is-prime.js': IS_PRIME,
          'test/is-prime.test.js': IS_PRIME_TEST,
        },
      },
      ledger: [
        markStepCall('[SUCCESS]: All tests pass.', { commandsPassed: [{ argv: ['node', '--test'] }] }),
      ],
      notes: '[SUCCESS]: All tests pass.',
      claims: { commandsPassed: [{ argv: ['node', '--test'] }] },
    });
    expect(report.findings.find((f) => f.check === 'claims')).toMatchObject({ status: 'pass' });
    expect(failingChecks(report.findings)).toEqual(['effects:P0', 'outcome:P0']);
  });

  it('required-tool contracts: mark_step satisfies nothing it is not named in', async () => {
    const plan = planWithStep({
      description: 'write',
      requiredTools: ['write_file'],
      ledger: [markStepCall('[SUCCESS]: wrote a.txt')],
    });
    const report = await verifyStep(plan, 's1');
    expect(report.findings.find((f) => f.check === 'required-tools')).toMatchObject({
      status: 'fail',
      message: 'Required tool write_file was never called.',
    });

    // A contract that names mark_step sees it (contracts read the whole ledger by name).
    const contracts = {
      profiles: {
        closer: [
          { tool: 'run_tests', nextRequired: 'mark_step' },
          { tool: 'mark_step', dependsOn: 'run_tests' },
        ],
      },
    };
    const ordered = planWithStep({
      description: 'test',
      ledger: [{ tool: 'run_tests', status: 'success', result: 'ok' }, markStepCall('[SUCCESS]: tested')],
    });
    const passing = await verifyStep(ordered, 's1', { contracts, profile: 'closer' });
    expect(passing.findings.find((f) => f.check === 'required-tools')?.status).toBe('pass');
    const unordered = planWithStep({
      description: 'test',
      ledger: [markStepCall('[SUCCESS]: tested'), { tool: 'run_tests', status: 'success', result: 'ok' }],
    });
    const failing = await verifyStep(unordered, 's1', { contracts, profile: 'closer' });
    expect(failing.findings.filter((f) => f.check === 'required-tools').map((f) => f.message)).toEqual([
      'run_tests must be followed by a successful mark_step, which never came after it.',
      'mark_step ran before its dependency run_tests had succeeded.',
    ]);
  });

  it('protocols see the ledger without control calls', async () => {
    const seen: string[][] = [];
    const spy: Protocol = {
      name: 'LEDGER_SPY',
      priority: 'P2',
      layer: 1,
      async run(ctx) {
        seen.push(ctx.ledger.map((call) => call.tool));
        return [{ check: 'LEDGER_SPY', priority: 'P2', status: 'pass', message: 'seen' }];
      },
    };
    const trace: StepTraceInput = {
      id: 't',
      class: 'clean',
      expected: { verdict: 'success' },
      step: { description: 'x', protocols: ['LEDGER_SPY', 'ERROR_FREE'] },
      workspace: { files: { 'a.txt': 'a' } },
      ledger: [
        { tool: 'run_command', args: { argv: ['node', 'x.js'] }, status: 'success', result: 'fine' },
        // A custom control tool whose echo of the notes happens to look like a crash.
        {
          tool: 'finish_run',
          args: {},
          status: 'success',
          result: 'Traceback (most recent call last):\n  quoted from the notes',
        },
        markStepCall('[SUCCESS]: ran x.js'),
      ],
      notes: '[SUCCESS]: ran x.js',
    };
    const report = await verifyTrace(trace, { protocols: [spy], controlTools: ['mark_step', 'finish_run'] });
    expect(seen).toEqual([['run_command']]);
    expect(report.findings.find((f) => f.check === 'ERROR_FREE')?.status).toBe('pass');
    expect(report.verdict).toBe('success');

    // Without declaring finish_run a control tool, its output is read like any command's.
    const strict = await verifyTrace(trace, { protocols: [spy] });
    expect(seen[1]).toEqual(['run_command', 'finish_run']);
    expect(strict.findings.find((f) => f.check === 'ERROR_FREE')?.status).toBe('fail');
  });

  it('validates controlTools', async () => {
    const plan = planWithStep({ description: 'x' });
    await expect(verifyStep(plan, 's1', { controlTools: 'mark_step' as never })).rejects.toMatchObject({
      name: 'VerifierError',
      code: 'invalid-options',
    });
  });
});

describe('verifyStep: text a tool printed is never a status', { timeout: 30_000 }, () => {
  it('reads no claim and no status from run_command stdout saying [SUCCESS] / "All tests pass"', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success' },
      step: { description: 'run the tests' },
      workspace: {
        files: { 'package.json': PACKAGE_JSON, 'src/is-prime.js': 'export const isPrime = () => true;\n' },
      },
      ledger: [
        {
          tool: 'run_command',
          args: { argv: ['node', 'scripts/fake-runner.js'] },
          status: 'success',
          result: '[SUCCESS]: created src/answer.ts\nAll tests pass\n`node --test` passed',
        },
      ],
    });
    // No notes, no claims: nothing was claimed, so nothing is re-run and no claim finding exists.
    expect(report.findings.filter((f) => f.check === 'claims')).toEqual([]);
    // It made a call and never reported: no notes, no claims, no final answer.
    expect(report.findings.find((f) => f.check === 'notes')?.message).toMatch(
      /^The step never reported its result/,
    );
    expect(report.findings.find((f) => f.check === 'effects')?.message).toBe('The step claims no effects.');
    // Asked to run the tests, it ran no test command: the printed "All tests pass" counts for nothing.
    expect(report.findings.find((f) => f.check === 'outcome')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/no test command ran/),
    });
  });

  it('reads claims from the notes, the structured claims and the final text, never from tool results', async () => {
    const materialised = await materialiseTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success' },
      step: { description: 'x' },
      workspace: { files: { 'README.md': '# x\n' } },
      ledger: [
        { tool: 'read_file', args: { path: 'README.md' }, status: 'success', result: 'created src/ghost.ts' },
        markStepCall('[SUCCESS]: read the README'),
      ],
      notes: '[SUCCESS]: read the README',
    });
    try {
      // Without the final text: the README read passes, the tool result's "created" is no claim.
      const quiet = await verifyStep(materialised.plan, 's1', {
        workspace: materialised.root,
        baseline: materialised.baseline,
      });
      expect(quiet.findings.filter((f) => f.check === 'claims')).toEqual([]);
      expect(quiet.verdict).toBe('unverified');
      // The assistant's final answer text is checked with the notes.
      materialised.plan.markStep('s1', { output: 'I created src/ghost.ts and all tests pass.' });
      const report = await verifyStep(materialised.plan, 's1', {
        workspace: materialised.root,
        baseline: materialised.baseline,
      });
      expect(report.findings.filter((f) => f.check === 'claims')).toEqual([
        expect.objectContaining({
          status: 'error',
          evidence: expect.objectContaining({ claim: 'I created src/ghost.ts and all tests pass.' }),
        }),
        expect.objectContaining({
          status: 'fail',
          message: expect.stringMatching(/src\/ghost\.ts does not exist/),
        }),
      ]);
      expect(report.verdict).not.toMatch(/success/);
    } finally {
      await materialised.cleanup();
    }
  });

  it('keeps [FAIL] notes a failure when a tool printed [SUCCESS], and vice versa', async () => {
    const failed = planWithStep({
      description: 'deploy',
      ledger: [
        {
          tool: 'run_command',
          args: { argv: ['npm', 'test'] },
          status: 'success',
          result: 'All 12 tests pass [SUCCESS]',
        },
        markStepCall('[FAIL]: the host refused the upload'),
      ],
      notes: '[FAIL]: the host refused the upload',
    });
    expect(failingChecks((await verifyStep(failed, 's1')).findings)).toEqual(['notes:P0']);

    const passed = planWithStep({
      description: 'Search the sources for x',
      ledger: [
        { tool: 'run_command', args: { argv: ['grep', 'x'] }, status: 'success', result: '[FAIL]: x' },
      ],
      notes: '[SUCCESS]: searched',
    });
    const searched = await verifyStep(passed, 's1', { workspace: '/tmp' });
    expect(searched.verdict).toBe('success');
    expect(searched.findings.find((f) => f.check === 'outcome')?.message).toMatch(/1 read call/);
  });
});

describe('verifyStep fails closed on real infrastructure failures', { timeout: 30_000 }, () => {
  const commandStep = (argv: string[]): StepTraceInput => ({
    id: 't',
    class: 'x',
    expected: { verdict: 'success' },
    step: { description: 'run it' },
    workspace: {
      git: false,
      files: {
        'a.txt': 'a',
        'hang.cjs': 'setInterval(() => {}, 1000);\n',
        'exit0.cjs': 'process.exit(0);\n',
        'exit1.cjs': 'process.exit(1);\n',
      },
    },
    ledger: [
      {
        tool: 'run_command',
        args: { argv },
        status: 'success',
        result: `$ ${argv.join(' ')}\n(cwd: ., exit code 0, 5 ms)\n(no output)`,
      },
    ],
    claims: { commandsPassed: [{ argv }] },
  });
  const allowAll = { allowCommand: () => true };

  it('a claimed command whose program does not exist: unverified, never success', async () => {
    // jest is an allowed program of the command policy, not installed here.
    const report = await verifyTrace(commandStep(['jest', '--ci']), allowAll);
    expect(report.verdict).toBe('unverified');
    expect(report.unverified).toBe(true);
    expect(report.infrastructureErrors).toEqual([
      expect.objectContaining({
        check: 'claims',
        priority: 'P1',
        status: 'error',
        message: expect.stringMatching(/command not found: jest/),
      }),
    ]);
    // A program the policy refuses is an infrastructure error too: it never ran.
    const refused = await verifyTrace(commandStep(['closedloop-no-such-runner-xyz', '--test']), allowAll);
    expect(refused.verdict).toBe('unverified');
    expect(refused.infrastructureErrors).toEqual([
      expect.objectContaining({
        check: 'claims',
        status: 'error',
        message: expect.stringMatching(/refused by the command policy/),
      }),
    ]);
  });

  it('a claimed command that times out: unverified, and the process is killed', async () => {
    const started = Date.now();
    const report = await verifyTrace(commandStep(['node', 'hang.cjs']), {
      ...allowAll,
      commandTimeoutMs: 300,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(report.verdict).toBe('unverified');
    expect(report.infrastructureErrors).toEqual([
      expect.objectContaining({ check: 'claims', message: expect.stringMatching(/timed out after/) }),
    ]);
  });

  it('the same claims with a real exit code are judged on it: exit 1 retries, exit 0 passes', async () => {
    const failing = await verifyTrace(commandStep(['node', 'exit1.cjs']), allowAll);
    expect(failing.verdict).toBe('retry');
    expect(failing.infrastructureErrors).toEqual([]);
    const passing = await verifyTrace(commandStep(['node', 'exit0.cjs']), allowAll);
    expect(passing.verdict).toBe('success');
  });

  describe('git missing', () => {
    const saved = process.env.PATH;
    let bin: string | undefined;
    afterEach(async () => {
      process.env.PATH = saved;
      if (bin) await rm(bin, { recursive: true, force: true });
      bin = undefined;
    });

    it('file claims rest on the baseline, not on git: a missing git binary changes nothing', async () => {
      const materialised = await materialiseTrace({
        id: 't',
        class: 'x',
        expected: { verdict: 'success' },
        step: { description: 'write a' },
        workspace: {
          files: { 'README.md': '# x\n' },
          changes: { write: { 'src/a.ts': 'export const a = 1;\n' } },
        },
        ledger: [writeCall('src/a.ts')],
        claims: { filesWritten: ['src/a.ts'] },
      });
      try {
        const options = { workspace: materialised.root, baseline: materialised.baseline };
        const withGit = await verifyStep(materialised.plan, 's1', options);
        expect(withGit.verdict).toBe('success');
        // A PATH with node and nothing else: `git` cannot start.
        bin = await mkdtemp(path.join(tmpdir(), 'closedloop-nogit-'));
        await symlink(process.execPath, path.join(bin, 'node'));
        process.env.PATH = bin;
        const report = await verifyStep(materialised.plan, 's1', options);
        expect(report.verdict).toBe('success');
        expect(report.infrastructureErrors).toEqual([]);
      } finally {
        process.env.PATH = saved;
        await materialised.cleanup();
      }
    });
  });

  it('a step protocol whose test runner is not installed: unverified', async () => {
    const report = await verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success' },
      step: { description: 'x', protocols: ['TEST'] },
      workspace: {
        files: { 'package.json': JSON.stringify({ scripts: { test: 'closedloop-missing-runner-xyz' } }) },
        changes: { write: { 'src/a.js': 'export const a = 1;\n' } },
      },
      ledger: [writeCall('src/a.js')],
      notes: '[SUCCESS]: wrote src/a.js',
    });
    expect(report.verdict).toBe('unverified');
    expect(report.infrastructureErrors.map((f) => f.check)).toEqual(['TEST']);
  });
});
