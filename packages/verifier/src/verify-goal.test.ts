import { ScriptedModel } from '@closedloop/model/testing';
import { Plan } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { defineProtocol } from './define-protocol';
import { verifyGoal } from './verify-goal';

const workspace = useTempWorkspaces({ git: true });

const TESTS =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { isPrime } from '../src/math.mjs';\n" +
  "test('2', () => assert.equal(isPrime(2), true));\ntest('9', () => assert.equal(isPrime(9), false));\n";
const GOOD =
  'export function isPrime(n) {\n  if (n < 2) return false;\n  for (let i = 2; i * i <= n; i++) if (n % i === 0) return false;\n  return true;\n}\n';
const BAD = 'export function isPrime(n) {\n  return n % 2 === 1;\n}\n';

async function project(math: string) {
  const ws = await workspace({
    'test/math.test.mjs': TESTS,
    'src/math.mjs': 'export function isPrime() {}\n',
  });
  await ws.write('src/math.mjs', math);
  return ws;
}

describe('verifyGoal', { timeout: 30_000 }, () => {
  it('succeeds when the derived criteria hold in a real workspace', async () => {
    const ws = await project(GOOD);
    const report = await verifyGoal(
      {
        workspace: ws.root,
        request: 'Implement isPrime in src/math.mjs',
        functionalityCases: [{ module: 'src/math.mjs', export: 'isPrime', input: 17, expected: true }],
      },
      { mode: 'standard' },
    );
    expect(report.verdict).toBe('success');
    expect(Object.fromEntries(report.criteria.map((c) => [c.id, c.status]))).toMatchObject({
      CODE_COMPILES: 'pass',
      TESTS_PASS: 'pass',
      FUNCTIONALITY_WORKS: 'pass',
      REQUIREMENT_MET: 'skip',
      HUMAN_APPROVED: 'skip',
    });
    expect(report.timings.map((t) => t.check)).toEqual(
      expect.arrayContaining(['SYNTAX', 'TEST', 'FUNCTIONALITY']),
    );
  });

  it('asks for a retry when the tests fail, and fails on a P0 criterion', async () => {
    const ws = await project(BAD);
    const retry = await verifyGoal({ workspace: ws.root, request: 'Implement isPrime' });
    expect(retry.verdict).toBe('retry');
    expect(retry.criteria.find((c) => c.id === 'TESTS_PASS')?.status).toBe('fail');

    await ws.write('src/math.mjs', 'export function isPrime(n) {\n');
    const failed = await verifyGoal({ workspace: ws.root, request: 'Implement isPrime' });
    expect(failed.verdict).toBe('failed');
    expect(failed.findings.find((f) => f.check === 'SYNTAX')).toMatchObject({
      status: 'fail',
      priority: 'P0',
    });
    expect(failed.findings.find((f) => f.check === 'TEST')).toMatchObject({
      status: 'skip',
      message: expect.stringMatching(/fast-fail/),
    });
  });

  it('is unverified when a required check cannot run (fail closed)', async () => {
    const ws = await project(GOOD);
    await ws.write('package.json', JSON.stringify({ scripts: { test: 'not-installed-runner-xyz' } }));
    const report = await verifyGoal({ workspace: ws.root, request: 'Implement isPrime' });
    expect(report.verdict).toBe('unverified');
    expect(report.infrastructureErrors.map((f) => f.check)).toEqual(['TEST']);
  });

  it('uses explicit criteria with custom protocols and applies criterion priorities', async () => {
    const ws = await project(GOOD);
    const readme = defineProtocol({
      name: 'README',
      description: 'a README exists',
      steps: [{ name: 'exists', run: (ctx) => ctx.facts.exists('README.md') }],
    });
    const report = await verifyGoal(
      {
        workspace: ws.root,
        request: 'docs',
        criteria: [{ id: 'HAS_README', priority: 'P0', protocol: 'README' }],
      },
      { protocols: [readme] },
    );
    expect(report.verdict).toBe('failed');
    // The workspace's own test command always runs too: a claimed runner never replaces it.
    expect(report.criteria).toEqual([
      expect.objectContaining({ id: 'HAS_README', status: 'fail', source: 'user' }),
      expect.objectContaining({ id: 'TESTS_PASS', status: 'pass', source: 'implicit', protocol: 'TEST' }),
    ]);
    const without = await verifyGoal(
      {
        workspace: ws.root,
        request: 'docs',
        criteria: [{ id: 'HAS_README', priority: 'P0', protocol: 'README' }],
      },
      { protocols: [readme], workspaceTests: false },
    );
    expect(without.criteria.map((criterion) => criterion.id)).toEqual(['HAS_README']);
    await expect(
      verifyGoal({
        workspace: ws.root,
        request: 'x',
        criteria: [{ id: 'X', priority: 'P0', protocol: 'MISSING' }],
      }),
    ).rejects.toMatchObject({ code: 'invalid-options' });
    await expect(
      verifyGoal({
        workspace: ws.root,
        request: 'x',
        criteria: [{ id: 'X', priority: 'P5', protocol: 'TEST' }] as never,
      }),
    ).rejects.toMatchObject({
      code: 'invalid-options',
    });
  });

  it('selects layers by mode and reads the plan (incomplete steps, ledgers, confidence)', async () => {
    const ws = await project(GOOD);
    const plan = Plan.create({
      steps: [
        { id: 'a', description: 'write isPrime' },
        { id: 'b', description: 'docs', dependsOn: ['a'] },
      ],
    });
    plan.markStep('a', { status: 'in_progress' });
    plan.recordToolCall('a', { callId: 'c1', tool: 'run_command', args: { argv: ['node', 'x.js'] } });
    plan.recordToolResult('a', {
      callId: 'c1',
      tool: 'run_command',
      status: 'success',
      result: 'Uncaught TypeError: boom',
    });
    plan.recordVerification('a', { verdict: 'success', confidence: 0.6, unverified: true });
    plan.markStep('a', { status: 'completed' });
    const model = new ScriptedModel({ turns: [] });
    const report = await verifyGoal(
      { workspace: ws.root, request: 'Implement isPrime', plan, model },
      { mode: 'minimal' },
    );
    expect(report.findings.find((f) => f.check === 'TEST')).toMatchObject({
      status: 'skip',
      message: expect.stringMatching(/not part of mode minimal/),
    });
    expect(report.findings.find((f) => f.check === 'ERROR_FREE')).toMatchObject({ status: 'fail' });
    expect(report.findings.find((f) => f.check === 'plan')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/b \(not_started\)/),
    });
    expect(report).toMatchObject({ verdict: 'retry', confidence: 0.6, unverified: true });
  });

  it('reads the plan ledgers without control calls (controlTools)', async () => {
    const ws = await project(GOOD);
    const plan = Plan.create({ steps: [{ id: 'a', description: 'write isPrime' }] });
    plan.markStep('a', { status: 'in_progress' });
    // A custom control tool whose echo of the notes happens to look like a crash.
    plan.recordToolCall('a', { callId: 'c1', tool: 'finish_run', args: {} });
    plan.recordToolResult('a', {
      callId: 'c1',
      tool: 'finish_run',
      status: 'success',
      result: 'Traceback (most recent call last):\n  (quoted in the notes)',
    });
    plan.markStep('a', { status: 'completed' });
    const context = { workspace: ws.root, request: 'Implement isPrime', plan };
    const strict = await verifyGoal(context, { mode: 'minimal' });
    expect(strict.findings.find((f) => f.check === 'ERROR_FREE')).toMatchObject({ status: 'fail' });
    const control = await verifyGoal(context, { mode: 'minimal', controlTools: ['mark_step', 'finish_run'] });
    expect(control.findings.find((f) => f.check === 'ERROR_FREE')).toMatchObject({ status: 'skip' });
    await expect(verifyGoal(context, { controlTools: [''] })).rejects.toMatchObject({
      code: 'invalid-options',
    });
  });

  it('fails a test criterion when zero tests ran', async () => {
    const ws = await workspace({
      // No test file anywhere (Node 22+ reads "node --test test/" as a file and fails instead).
      'package.json': JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }),
      'test/.keep': '',
    });
    const asked = await verifyGoal({
      workspace: ws.root,
      request: 'x',
      criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TEST' }],
    });
    expect(asked.findings.find((finding) => finding.check === 'TEST')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/no test ran/),
    });
    // The workspace's own command, run implicitly: no tests means nothing to run, not a failure.
    const implicit = await verifyGoal({ workspace: ws.root, request: 'x', criteria: [] });
    expect(implicit.findings.find((finding) => finding.check === 'TEST')).toMatchObject({ status: 'skip' });
  });

  it('judges the final workspace: a later step that undid an earlier one fails the goal', async () => {
    const ws = await project(GOOD);
    const plan = Plan.create({
      steps: [
        { id: 'a', description: 'Create src/extra.mjs' },
        { id: 'b', description: 'Tidy up' },
      ],
    });
    plan.markStep('a', { status: 'in_progress' });
    plan.markStep('a', {
      notes: '[SUCCESS]: created src/extra.mjs with function helper',
      status: 'completed',
    });
    plan.markStep('b', { status: 'in_progress' });
    plan.markStep('b', { notes: '[SUCCESS]: tidied the README', status: 'completed' });
    const gone = await verifyGoal(
      { workspace: ws.root, request: 'x', criteria: [], plan },
      { workspaceTests: false },
    );
    expect(gone.findings.find((finding) => finding.check === 'final-state')).toMatchObject({
      status: 'fail',
      priority: 'P1',
      message: expect.stringMatching(
        /Step a's claim ".*src\/extra\.mjs" does not hold in the final workspace: src\/extra\.mjs does not exist/,
      ),
    });
    await ws.write('src/extra.mjs', 'export function helper() {}\n');
    const back = await verifyGoal(
      { workspace: ws.root, request: 'x', criteria: [], plan },
      { workspaceTests: false },
    );
    expect(back.findings.find((finding) => finding.check === 'final-state')).toMatchObject({
      status: 'pass',
    });
  });

  it('turns each planner success criterion into a finding: rules first, the judge for the rest', async () => {
    const ws = await project(GOOD);
    await ws.write('package.json', JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }));
    await ws.write('README.md', '# isPrime\nUse isPrime(n).\n');
    const judge = new ScriptedModel({
      turns: [
        { text: JSON.stringify({ criteria: [{ index: 0, verdict: 'PASS', reason: 'the diff handles 1' }] }) },
      ],
    });
    const report = await verifyGoal(
      {
        workspace: ws.root,
        request: 'isPrime',
        criteria: [],
        model: judge,
        successCriteria: [
          'src/math.mjs exports isPrime',
          'node --test exits 0 with the two isPrime cases',
          'all 5 tests pass',
          'README.md mentions "isPrime(n)"',
          'src/old.mjs is deleted',
          'isPrime(1) is false',
        ],
      },
      { workspaceTests: false },
    );
    const criteria = report.findings.filter((finding) => finding.check === 'criteria');
    expect(criteria.map((finding) => [finding.evidence?.claim, finding.status])).toEqual([
      ['src/math.mjs exports isPrime', 'pass'],
      ['node --test exits 0 with the two isPrime cases', 'pass'],
      ['all 5 tests pass', 'fail'],
      ['README.md mentions "isPrime(n)"', 'pass'],
      ['src/old.mjs is deleted', 'pass'],
      ['isPrime(1) is false', 'pass'],
    ]);
    expect(criteria[2]?.message).toMatch(/5 passing test\(s\) claimed, the runner reports 2 passed/);
    const unjudged = await verifyGoal(
      { workspace: ws.root, request: 'x', criteria: [], successCriteria: ['the code is elegant'] },
      { workspaceTests: false },
    );
    expect(unjudged.findings.find((finding) => finding.check === 'criteria')).toMatchObject({
      status: 'warn',
      priority: 'P2',
    });
  });
});

describe('verifyGoal: a check asked for that cannot run', () => {
  it('is a warning that says unverified and why, not a silent skip', async () => {
    const ws = await workspace({ 'a.txt': 'a\n' });
    const report = await verifyGoal(
      {
        workspace: ws.root,
        request: 'Check a.txt',
        criteria: [{ id: 'TESTS', description: 'tests pass', priority: 'P1', protocol: 'TEST' }],
      },
      { mode: 'standard' },
    );
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        check: 'TEST',
        status: 'warn',
        message: expect.stringMatching(
          /^Unverified: TESTS asks for TEST, which cannot run .*no test command/,
        ),
      }),
    );
    expect(report.verdict).not.toBe('success');
  });
});
