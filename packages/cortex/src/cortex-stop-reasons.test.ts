import type { ScriptedResponse } from '@closedloop/model/testing';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import type { Finding, Protocol } from '@closedloop/verifier';
import { afterEach, describe, expect, it } from 'vitest';
import { failStep, type ScenarioOptions, scenarioModel, writeStep } from './__fixtures__/scenario-model';
import { type CortexOptions, createCortex } from './create-cortex';
import type { PlannerOutput } from './draft-plan';
import type { RunEvent } from './run-events';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

async function setup(
  scenario: ScenarioOptions,
  options: Partial<CortexOptions> = {},
  files: Record<string, string> = {},
) {
  const ws = await createTempWorkspace({ files: { 'README.md': '# test\n', ...files }, git: true });
  workspaces.push(ws);
  const model = scenarioModel(scenario);
  const events: RunEvent[] = [];
  const cortex = createCortex({
    model,
    tools: workspaceTools({ root: ws.root }),
    workspace: ws.root,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { ws, model, cortex, events };
}

function plan(
  steps: Array<{ id: string; dependsOn?: string[] }>,
  extra: Partial<PlannerOutput> = {},
): PlannerOutput {
  return {
    title: 'plan',
    successCriteria: [],
    protocols: [],
    ...extra,
    steps: steps.map((step) => ({
      id: step.id,
      description: `do ${step.id}`,
      dependsOn: step.dependsOn ?? [],
      requiredTools: [],
      successCriteria: [],
      protocols: [],
    })),
  };
}

/** A goal protocol whose findings come from a function (called once per goal verification). */
function goalProtocol(
  name: string,
  priority: 'P0' | 'P1' | 'P2',
  findings: (call: number) => Omit<Finding, 'check' | 'priority'>[],
): Protocol {
  let call = 0;
  return {
    name,
    priority,
    layer: 1,
    async run() {
      call++;
      return findings(call).map((finding) => ({ check: name, priority, ...finding }));
    },
  };
}

/** Repair steps (ids s1, s2…) write `repair.txt` with the content `content(n)` for the n-th repair run. */
function repairSteps(content: (n: number) => string): (turn: number) => ScriptedResponse {
  let runs = 0;
  return (turn) => {
    if (turn === 0) runs++;
    return writeStep('repair.txt', content(runs))[turn]!;
  };
}

const redesign = (description: string) => ({
  action: 'redesign' as const,
  steps: [{ description }],
  dependencies: {},
});

describe('stop reasons', () => {
  it('completed: a direct one-step run pays no planner call and answers with the step output', async () => {
    const { cortex, model, ws } = await setup({ steps: { task: writeStep('hello.txt', 'hi') } });
    const result = await cortex.run('Create hello.txt containing "hi"');
    expect(result).toMatchObject({ stopReason: 'completed', answerSource: 'step' });
    expect(result.answer).toContain('hello.txt');
    expect(model.asked.planner).toBe(0);
    expect(model.asked.aggregate).toBe(0);
    expect(await ws.read('hello.txt')).toBe('hi');
  });

  it('completed-with-warnings: only a P2 goal check fails', async () => {
    const { cortex } = await setup(
      { steps: { task: writeStep('hello.txt', 'hi') } },
      {
        planning: 'never',
        verifier: {
          protocols: [goalProtocol('STYLE', 'P2', () => [{ status: 'fail', message: 'style nit' }])],
          criteria: [{ id: 'STYLE_OK', priority: 'P2', protocol: 'STYLE' }],
        },
      },
    );
    const result = await cortex.run('Create hello.txt');
    expect(result.stopReason).toBe('completed-with-warnings');
    expect(result.report.verdict).toBe('warnings-only');
    expect(result.report.findings).toContainEqual(
      expect.objectContaining({ check: 'STYLE', status: 'fail' }),
    );
  });

  it('failed: a P0 goal check fails (and the answer is aggregated)', async () => {
    const { cortex, model } = await setup(
      {
        plans: [plan([{ id: 'a' }, { id: 'b' }])],
        steps: { a: writeStep('a.txt', 'A'), b: writeStep('b.txt', 'B') },
        answer: 'It does not build.',
      },
      {
        planning: 'always',
        verifier: {
          protocols: [goalProtocol('BUILDS', 'P0', () => [{ status: 'fail', message: 'compile error' }])],
          criteria: [{ id: 'CODE_COMPILES', priority: 'P0', protocol: 'BUILDS' }],
        },
      },
    );
    const result = await cortex.run('Build the thing');
    expect(result).toMatchObject({
      stopReason: 'failed',
      answer: 'It does not build.',
      answerSource: 'model',
    });
    expect(model.asked.aggregate).toBe(1);
  });

  it('failed: the planner gives no valid plan after its repair turn (typed invalid-plan in the report)', async () => {
    const cyclic = plan([
      { id: 'a', dependsOn: ['b'] },
      { id: 'b', dependsOn: ['a'] },
    ]);
    const { cortex, model } = await setup({ plans: [cyclic, cyclic] }, { planning: 'always' });
    const result = await cortex.run('Do a and b');
    expect(result.stopReason).toBe('failed');
    expect(result.report.error).toMatchObject({ code: 'invalid-plan' });
    expect(result.plan).toBeNull();
    expect(model.asked.planner).toBe(2);
    const second = model.requests[1]!.messages.at(-1)!;
    expect(second.content).toContain('cycle');
  });

  it('the planner repair turn fixes a plan that names an unknown tool', async () => {
    const bad = plan([{ id: 'a' }]);
    bad.steps[0]!.requiredTools = ['teleport'];
    const { cortex } = await setup(
      { plans: [bad, plan([{ id: 'a' }])], steps: { a: writeStep('a.txt', 'A') } },
      { planning: 'always' },
    );
    const result = await cortex.run('Make a');
    expect(result.stopReason).toBe('completed');
  });

  it('blocked: a step fails and the replanner gives up', async () => {
    const { cortex, model } = await setup(
      {
        plans: [plan([{ id: 'a' }, { id: 'b', dependsOn: ['a'] }])],
        steps: { a: failStep('no credentials') },
        replans: [{ action: 'give_up', reason: 'no credentials anywhere' }],
      },
      { planning: 'always' },
    );
    const result = await cortex.run('Post it, then report');
    expect(result.stopReason).toBe('blocked');
    expect(result.report.steps.map((step) => [step.id, step.status])).toEqual([
      ['a', 'blocked'],
      ['b', 'blocked'],
    ]);
    expect(result.report.replans).toEqual([
      expect.objectContaining({ batch: 1, failed: ['a'], action: 'give-up', reason: 'step-failed' }),
    ]);
    expect(model.asked.steps.b).toBeUndefined();
  });

  it('max-iterations: P1 goal checks keep failing with changing errors and no progress', async () => {
    const words = ['alpha', 'beta', 'gamma', 'delta'];
    const { cortex, model } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A'), '*': repairSteps((n) => `repair ${n}`) },
        replans: [redesign('repair the tests, first idea'), redesign('repair the tests, second idea')],
      },
      {
        planning: 'never',
        maxIterations: 2,
        verifier: {
          protocols: [
            goalProtocol('TESTS', 'P1', (call) => [{ status: 'fail', message: `failure ${words[call]}` }]),
          ],
          criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' }],
        },
      },
    );
    const result = await cortex.run('Make the tests pass');
    expect(result.stopReason).toBe('max-iterations');
    expect(result.report.iterations.map((iteration) => iteration.decision)).toEqual(['iterate', 'stop']);
    expect(result.report.replans).toEqual([
      expect.objectContaining({ reason: 'goal-repair', action: 'redesign' }),
    ]);
    expect(model.asked.replanner).toBe(1);
  });

  it('max-iterations is extended ×1.5 once when there was progress', async () => {
    const { cortex } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A'), '*': repairSteps((n) => `repair ${n}`) },
        replans: ['one', 'two', 'three', 'four'].map((word) => redesign(`repair idea ${word}`)),
      },
      {
        planning: 'never',
        maxIterations: 2,
        verifier: {
          // Two checks: one more passes after the first repair (progress), then nothing changes.
          protocols: [
            goalProtocol('TESTS', 'P1', (call) => [
              { status: 'fail', message: `failing case ${['a', 'b', 'c', 'd', 'e'][call]}` },
            ]),
            goalProtocol('LINT', 'P1', (call) => [
              call === 1 ? { status: 'fail', message: 'lint' } : { status: 'pass', message: 'ok' },
            ]),
          ],
          criteria: [
            { id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' },
            { id: 'LINT_PASS', priority: 'P1', protocol: 'LINT' },
          ],
        },
      },
    );
    const result = await cortex.run('Make the checks pass');
    expect(result.stopReason).toBe('max-iterations');
    // cap 2 reached with progress → extended to 3 → stop at 3.
    expect(result.report.iterations).toHaveLength(3);
    expect(result.reason).toContain('extended');
  });

  it('stalled: the same error three times in a row while the workspace changes', async () => {
    const { cortex } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A'), '*': repairSteps((n) => `repair ${n}`) },
        replans: ['one', 'two', 'three'].map((word) => redesign(`repair idea ${word}`)),
      },
      {
        planning: 'never',
        maxIterations: 6,
        verifier: {
          protocols: [
            goalProtocol('TESTS', 'P1', (call) => [{ status: 'fail', message: `expected 2 got ${call}` }]),
          ],
          criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' }],
        },
      },
    );
    const result = await cortex.run('Make the tests pass');
    expect(result.stopReason).toBe('stalled');
    expect(result.reason).toContain('same error repeated 3 times');
    expect(result.report.iterations).toHaveLength(3);
  });

  it('loop-detected: the failures oscillate between two errors while the workspace changes', async () => {
    const { cortex } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A'), '*': repairSteps((n) => `repair ${n}`) },
        replans: ['one', 'two', 'three', 'four'].map((word) => redesign(`repair idea ${word}`)),
      },
      {
        planning: 'never',
        maxIterations: 8,
        verifier: {
          protocols: [
            goalProtocol('TESTS', 'P1', (call) => [
              { status: 'fail', message: call % 2 === 1 ? 'timeout in parser' : 'wrong sum in totals' },
            ]),
          ],
          criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' }],
        },
      },
    );
    const result = await cortex.run('Make the tests pass');
    expect(result.stopReason).toBe('loop-detected');
    expect(result.reason).toContain('oscillate');
    // A, B, A, B: the fourth goal verification sees the oscillation.
    expect(result.report.iterations).toHaveLength(4);
  });

  it('stalled: five iterations in a row without progress (new errors, changing workspace)', async () => {
    const { cortex } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A'), '*': repairSteps((n) => `repair ${n}`) },
        replans: ['one', 'two', 'three', 'four', 'five', 'six'].map((word) =>
          redesign(`repair idea ${word}`),
        ),
      },
      {
        planning: 'never',
        maxIterations: 10,
        verifier: {
          // A different failure every time (numbers would be normalised away, so words): never
          // the same error, never an A, B, A, B pattern, but never one check more passing either.
          protocols: [
            goalProtocol('TESTS', 'P1', (call) => [
              {
                status: 'fail',
                message: `${['parser', 'lexer', 'totals', 'dates', 'names', 'ranges', 'units'][call]} case fails`,
              },
            ]),
          ],
          criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' }],
        },
      },
    );
    const result = await cortex.run('Make the tests pass');
    expect(result.stopReason).toBe('stalled');
    expect(result.reason).toContain('5 iterations in a row without progress');
    // The first verification sets the baseline; five more without a better metric stop the run.
    expect(result.report.iterations).toHaveLength(6);
  });

  it('a goal repair redesigned into steps that only look is refused: blocked, not a loop of read-only repairs', async () => {
    const { cortex } = await setup(
      {
        steps: {
          task: writeStep('a.txt', 'A'),
          // The repair only looks around: the workspace does not change.
          '*': [
            { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
            {
              toolCalls: [
                {
                  name: 'mark_step',
                  arguments: { status: 'success', notes: '[SUCCESS]: looked, nothing to fix' },
                },
              ],
            },
          ],
        },
        // Read-only repairs of a failing goal: the replanner refuses them (`weakened-redesign`),
        // repairs once, then gives up. (A repeated state is covered in stall-detector.test.ts.)
        replans: [redesign('investigate the failure'), redesign('investigate the failure again')],
      },
      {
        planning: 'never',
        maxIterations: 6,
        verifier: {
          protocols: [goalProtocol('TESTS', 'P1', () => [{ status: 'fail', message: 'still broken' }])],
          criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' }],
        },
      },
    );
    const result = await cortex.run('Make the tests pass');
    expect(result.stopReason).toBe('blocked');
    expect(result.reason).toMatch(/goal repair gave up|weakened|blocked/);
    expect(result.report.iterations).toHaveLength(1);
  });

  it('budget-exhausted: no model request starts once the token budget is used up', async () => {
    const { cortex, model } = await setup(
      {
        plans: [plan([{ id: 'a' }, { id: 'b', dependsOn: ['a'] }])],
        steps: { a: writeStep('a.txt', 'A'), b: writeStep('b.txt', 'B') },
      },
      { planning: 'always', budget: { maxTokens: 1 } },
    );
    const result = await cortex.run('Write a then b');
    expect(result.stopReason).toBe('budget-exhausted');
    expect(model.calls).toHaveLength(1);
    expect(result.answerSource).toBe('fallback');
    expect(result.report.usage.calls).toBe(1);
    expect(result.report.usage.byPurpose.planner?.calls).toBe(1);
  });

  it('budget-exhausted by cost, with prices', async () => {
    const { cortex } = await setup(
      {
        plans: [plan([{ id: 'a' }, { id: 'b', dependsOn: ['a'] }])],
        steps: { a: writeStep('a.txt', 'A'), b: writeStep('b.txt', 'B') },
      },
      {
        planning: 'always',
        budget: { maxCostUsd: 0.0001 },
        prices: { 'scripted-model': { inputPerMTok: 1000, outputPerMTok: 1000 } },
      },
    );
    const result = await cortex.run('Write a then b');
    expect(result.stopReason).toBe('budget-exhausted');
    expect(result.report.usage.costUsd).toBeGreaterThan(0.0001);
  });

  it('deadline: the run deadline stops a slow run with a best-effort answer', async () => {
    const { cortex } = await setup(
      {
        plans: [plan([{ id: 'a' }, { id: 'b', dependsOn: ['a'] }, { id: 'c', dependsOn: ['b'] }])],
        steps: { '*': (turn: number) => writeStep('x.txt', 'x')[turn]! },
        // Six step turns of 250 ms: the whole run would take ≥ 1.5 s.
        latencyMs: (request) => (JSON.stringify(request.messages).includes('# Your step') ? 250 : 0),
      },
      { planning: 'always', deadlines: { runMs: 150 } },
    );
    const t0 = performance.now();
    const result = await cortex.run('Do a, b, then c');
    expect(result.stopReason).toBe('deadline');
    // Stopped at the deadline, not after the run (the bound leaves room for a loaded machine).
    expect(performance.now() - t0).toBeLessThan(1_200);
    expect(result.report.steps.filter((step) => step.status === 'completed')).toHaveLength(0);
    expect(result.answer).toContain('Run stopped: deadline');
  });

  it('a step deadline fails the step; the replanner then redesigns it', async () => {
    const { cortex } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A'), '*': (turn: number) => writeStep('a.txt', 'A')[turn]! },
        replans: [redesign('write a.txt faster')],
        latencyMs: (request) => (JSON.stringify(request.messages).includes('# Your step: task') ? 3000 : 0),
      },
      // Long enough for a real step (sandboxed git runs in its verification), short against the slow one.
      { planning: 'never', deadlines: { stepMs: 600 } },
    );
    const result = await cortex.run('Write a.txt');
    expect(result.stopReason).toBe('completed');
    expect(result.report.steps[0]).toMatchObject({ id: 'task', status: 'replaced' });
    expect(result.report.steps[0]!.notes).toContain('deadline');
  });

  it('cancelled: after abort no model request starts and the run returns within 100 ms', async () => {
    const { cortex, model } = await setup(
      {
        plans: [plan([{ id: 'a' }, { id: 'b' }, { id: 'c', dependsOn: ['a', 'b'] }])],
        steps: { '*': (turn: number) => writeStep('x.txt', 'x')[turn]! },
        latencyMs: (request) => (JSON.stringify(request.messages).includes('# Your step') ? 5_000 : 0),
      },
      { planning: 'always' },
    );
    const controller = new AbortController();
    const running = cortex.run('Do a and b, then c', { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const callsAtAbort = model.calls.length;
    const t0 = performance.now();
    controller.abort();
    const result = await running;
    expect(performance.now() - t0).toBeLessThan(100);
    expect(result.stopReason).toBe('cancelled');
    expect(model.calls.length).toBe(callsAtAbort);
    expect(
      result.report.steps.filter((step) => step.status === 'in_progress').map((step) => step.id),
    ).toEqual(['a', 'b']);
  });
});
