import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Plan, type PlanEvent } from '@closedloop/plan';
import { defineTool, workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import type { Finding, Protocol } from '@closedloop/verifier';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  failStep,
  lyingStep,
  type ScenarioOptions,
  scenarioModel,
  writeStep,
} from './__fixtures__/scenario-model';
import { CortexError } from './cortex-error';
import { type CortexOptions, createCortex } from './create-cortex';
import type { PlannerOutput } from './draft-plan';
import { createJsonlRunStore } from './jsonl-run-store';
import { isPlanEvent, isRunEventOf, type RunEvent } from './run-events';

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
    planning: 'always',
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { ws, model, cortex, events };
}

type DraftStep = { id: string; dependsOn?: string[]; protocols?: string[] };
function plan(steps: DraftStep[]): PlannerOutput {
  return {
    title: 'plan',
    successCriteria: [],
    protocols: [],
    steps: steps.map((step) => ({
      id: step.id,
      description: `do ${step.id}`,
      dependsOn: step.dependsOn ?? [],
      requiredTools: [],
      successCriteria: [],
      protocols: step.protocols ?? [],
    })),
  };
}

/** The plan a run's events rebuild (`Plan.replay` of its plan events, `runId` stripped). */
function replayPlan(events: readonly RunEvent[]): Plan {
  return Plan.replay(
    events.filter(isPlanEvent).map((event): PlanEvent => {
      const { runId: _runId, ...rest } = event;
      return rest as PlanEvent;
    }),
  );
}

/** A goal protocol whose findings come from a function (called once per goal verification). */
function goalProtocol(
  name: string,
  findings: (call: number) => Omit<Finding, 'check' | 'priority'>[],
): Protocol {
  let call = 0;
  return {
    name,
    priority: 'P1',
    layer: 1,
    async run() {
      call++;
      return findings(call).map((finding) => ({ check: name, priority: 'P1' as const, ...finding }));
    },
  };
}

const isStep = (id: string) => (request: { messages: { content: string }[] }) =>
  request.messages.some((message) => message.content.includes(`# Your step: ${id}`));

describe('batch replan (one replan per round of failures)', () => {
  it('replans two failed steps in one call while an independent slow step keeps running', async () => {
    const { cortex, model, events } = await setup(
      {
        plans: [plan([{ id: 'x' }, { id: 'y' }, { id: 'z' }, { id: 'w', dependsOn: ['z'] }])],
        steps: {
          x: failStep('x broke'),
          y: failStep('y broke'),
          z: writeStep('z.txt', 'Z'),
          w: writeStep('w.txt', 'W'),
          s1: writeStep('x.txt', 'X'),
          s2: writeStep('y.txt', 'Y'),
        },
        replans: [
          {
            action: 'redesign',
            steps: [{ description: 'x, done differently' }, { description: 'y, done differently' }],
            dependencies: {},
          },
        ],
        latencyMs: (request) => (isStep('z')(request) ? 150 : 0),
      },
      { replanWindowMs: 30 },
    );
    const result = await cortex.run('Do x, y and z, then w');
    expect(result.stopReason).toBe('completed');
    expect(model.asked.replanner).toBe(1);
    const requested = events.find((event) => event.type === 'replan-requested');
    expect(requested?.type === 'replan-requested' && [...requested.failed].sort()).toEqual(['x', 'y']);
    const order = events.map((event) =>
      event.type === 'replan-requested'
        ? 'replan'
        : event.type === 'step-finished' && event.stepId === 'z'
          ? 'z-finished'
          : '',
    );
    expect(order.indexOf('replan')).toBeLessThan(order.indexOf('z-finished'));
    expect(result.report.steps.find((step) => step.id === 'z')).toMatchObject({
      status: 'completed',
      runs: 1,
    });
    expect(
      result.report.steps
        .filter((step) => step.status === 'replaced')
        .map((step) => step.id)
        .sort(),
    ).toEqual(['x', 'y']);
    expect(events.filter((event) => event.type === 'step-started' && event.stepId === 'z')).toHaveLength(1);
  });

  it('a hallucinated claim fails verification and is replanned; completed siblings are kept', async () => {
    const { cortex, ws, model } = await setup({
      plans: [plan([{ id: 'real' }, { id: 'liar' }])],
      steps: {
        real: writeStep('real.txt', 'R'),
        liar: lyingStep('ghost.txt'),
        '*': writeStep('ghost.txt', 'G'),
      },
      replans: [{ action: 'redesign', steps: [{ description: 'really write ghost.txt' }], dependencies: {} }],
    });
    const result = await cortex.run('Write real.txt and ghost.txt');
    expect(result.stopReason).toBe('completed');
    expect(await ws.read('ghost.txt')).toBe('G');
    const liar = result.report.steps.find((step) => step.id === 'liar')!;
    expect(liar.status).toBe('replaced');
    expect(liar.findings.some((finding) => finding.status === 'fail')).toBe(true);
    expect(model.asked.steps.real).toBe(2);
  });
});

describe('hallucination propagation (low confidence carries downstream)', () => {
  const flaky: Protocol = {
    name: 'FLAKY',
    priority: 'P1',
    layer: 1,
    async run() {
      throw new Error('checker crashed');
    },
  };

  it('an unverified upstream step flags its downstream steps and the run', async () => {
    const { cortex, model } = await setup(
      {
        plans: [plan([{ id: 'a', protocols: ['FLAKY'] }, { id: 'b', dependsOn: ['a'] }, { id: 'c' }])],
        steps: { a: writeStep('a.txt', 'A'), b: writeStep('b.txt', 'B'), c: writeStep('c.txt', 'C') },
      },
      { verifier: { protocols: [flaky] }, acceptUnverified: 'warn' },
    );
    const result = await cortex.run('Write a, then b; and c');
    expect(result.stopReason).toBe('completed-with-warnings');
    const byId = Object.fromEntries(result.report.steps.map((step) => [step.id, step]));
    expect(byId.a).toMatchObject({ status: 'completed', verdict: 'unverified', unverified: true });
    expect(byId.b).toMatchObject({ status: 'completed', unverified: true });
    expect(byId.c).toMatchObject({ status: 'completed', unverified: false });
    const bPrompt = model.requests.find((request) => isStep('b')(request))!;
    expect(JSON.stringify(bPrompt.messages)).toContain('UNVERIFIED');
    const cPrompt = model.requests.find((request) => isStep('c')(request))!;
    expect(JSON.stringify(cPrompt.messages)).not.toContain('UNVERIFIED');
  });
  it('outputs of completed dependencies flow into the steps that need them; the flag carries on transitively', async () => {
    const { cortex, model } = await setup(
      {
        plans: [
          plan([
            { id: 'a', protocols: ['FLAKY'] },
            { id: 'b', dependsOn: ['a'] },
            { id: 'd', dependsOn: ['b'] },
            { id: 'c' },
          ]),
        ],
        steps: {
          a: writeStep('a.txt', 'A'),
          b: writeStep('b.txt', 'B'),
          c: writeStep('c.txt', 'C'),
          d: writeStep('d.txt', 'D'),
        },
      },
      { verifier: { protocols: [flaky] }, acceptUnverified: 'warn' },
    );
    const result = await cortex.run('Write a, then b, then d; and c');
    expect(result.stopReason).toBe('completed-with-warnings');
    const byId = Object.fromEntries(result.report.steps.map((step) => [step.id, step]));
    expect(byId.d).toMatchObject({ status: 'completed', unverified: true });
    expect(byId.c).toMatchObject({ status: 'completed', unverified: false });
    const prompt = (id: string) =>
      JSON.stringify(model.requests.find((request) => isStep(id)(request))!.messages);
    // b sees a's output, d sees b's (not a's: only direct dependencies), c sees none.
    expect(prompt('b')).toContain('### a: ');
    expect(prompt('b')).toContain('wrote a.txt');
    expect(prompt('d')).toContain('### b: ');
    expect(prompt('d')).toContain('wrote b.txt');
    expect(prompt('d')).toContain('UNVERIFIED');
    expect(prompt('d')).not.toContain('### a: ');
    expect(prompt('c')).not.toContain('Outputs of the completed steps');
  });
});

describe('events', () => {
  it('events() streams every event with runId and at, and resolves the result', async () => {
    const { cortex } = await setup({ steps: { task: writeStep('a.txt', 'A') } }, { planning: 'never' });
    const stream = cortex.events('Write a.txt');
    const seen: RunEvent[] = [];
    for await (const event of stream) seen.push(event);
    const result = await stream.result;
    expect(result.stopReason).toBe('completed');
    expect(seen[0]?.type).toBe('run-started');
    expect(seen.at(-1)?.type).toBe('run-finished');
    for (const event of seen) {
      expect(event.runId).toBe(stream.runId);
      expect(typeof event.at).toBe('number');
    }
    const types = new Set(seen.map((event) => event.type));
    for (const type of [
      'plan-drafted',
      'plan-created',
      'step-started',
      'tool-call-started',
      'model-call-finished',
      'step-verified',
      'step-finished',
      'usage-recorded',
      'goal-verified',
      'iteration-finished',
    ]) {
      expect(types, type).toContain(type);
    }
  });

  it('a throwing onEvent listener does not stop the run', async () => {
    const { cortex } = await setup(
      { steps: { task: writeStep('a.txt', 'A') } },
      {
        planning: 'never',
        onEvent: () => {
          throw new Error('broken UI');
        },
      },
    );
    expect((await cortex.run('Write a.txt')).stopReason).toBe('completed');
  });
});

describe('human approvals', () => {
  const guard = {
    async check(input: { tool: { name: string } }) {
      return input.tool.name === 'delete_file'
        ? { action: 'ask-human' as const, reason: 'deleting files needs a human' }
        : { action: 'allow' as const };
    },
  };
  const deleteStep = [
    { toolCalls: [{ name: 'delete_file', arguments: { path: 'old.txt' } }] },
    {
      toolCalls: [
        {
          name: 'mark_step',
          arguments: {
            status: 'success',
            notes: '[SUCCESS]: deleted old.txt',
            claims: { filesDeleted: ['old.txt'] },
          },
        },
      ],
    },
  ];

  it('asks onApproval for a guarded call, journals the request and runs the call when approved', async () => {
    const asked: string[] = [];
    const { cortex, ws, events } = await setup(
      { steps: { task: deleteStep } },
      {
        planning: 'never',
        executor: { guard },
        onApproval: async (request) => {
          asked.push(`${request.kind}:${request.tool}:${request.stepId}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { approved: true, note: 'ok by me' };
        },
      },
      { 'old.txt': 'bye' },
    );
    const result = await cortex.run('Delete old.txt');
    expect(result.stopReason).toBe('completed');
    expect(asked).toEqual(['tool-call:delete_file:task']);
    expect(await ws.exists('old.txt')).toBe(false);
    expect(result.report.approvals).toEqual([
      expect.objectContaining({ kind: 'tool-call', stepId: 'task', approved: true, note: 'ok by me' }),
    ]);
    const stored = await cortex.store!.read(result.runId);
    expect(stored.map((event) => event.type)).toContain('approval-requested');
    expect(events.findIndex((event) => event.type === 'approval-requested')).toBeLessThan(
      events.findIndex((event) => event.type === 'approval-resolved'),
    );
  });

  it('a human-review protocol asks onApproval; reject fails the P0 goal check', async () => {
    const review: Protocol = {
      name: 'SIGN_OFF',
      priority: 'P0',
      layer: 1,
      async run(ctx, signal) {
        const answer = await ctx.onHumanReview!(
          {
            request: ctx.request,
            reasons: ['release sign-off'],
            summary: 'wrote a.txt',
            changedFiles: [],
            risks: [],
            diff: '',
          },
          { signal },
        );
        return [
          {
            check: 'SIGN_OFF',
            priority: 'P0',
            status: answer.decision === 'approve' ? 'pass' : 'fail',
            message: answer.comment ?? answer.decision,
          },
        ];
      },
    };
    const decisions = [true, false];
    for (const approved of decisions) {
      const { cortex } = await setup(
        { steps: { task: writeStep('a.txt', 'A') }, answer: 'summary' },
        {
          planning: 'never',
          verifier: {
            protocols: [review],
            criteria: [{ id: 'SIGNED', priority: 'P0', protocol: 'SIGN_OFF' }],
          },
          onApproval: (request) => {
            expect(request).toMatchObject({
              kind: 'human-review',
              stepId: 'goal',
              reason: 'release sign-off',
            });
            expect(request.review?.summary).toBe('wrote a.txt');
            return { approved, note: approved ? 'ship it' : 'not yet' };
          },
        },
      );
      const result = await cortex.run('Write a.txt');
      expect(result.stopReason).toBe(approved ? 'completed' : 'failed');
      expect(result.report.approvals).toEqual([expect.objectContaining({ kind: 'human-review', approved })]);
    }
  });

  it('a pending approval survives the process: the run stops, resume asks again and goes on with the answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-approval-'));
    const ws = await createTempWorkspace({ files: { 'README.md': '# r\n', 'old.txt': 'bye' }, git: true });
    workspaces.push(ws);
    const controller = new AbortController();
    const asked: string[] = [];
    const first = createCortex({
      model: scenarioModel({ steps: { task: deleteStep } }),
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'never',
      executor: { guard },
      store: createJsonlRunStore({ dir }),
      // The human is away: the request is journaled, then the process stops waiting.
      onApproval: (request) => {
        asked.push(`first:${request.kind}:${request.tool}`);
        setTimeout(() => controller.abort(new Error('shutting down')), 5);
        return new Promise<never>(() => {});
      },
    });
    const stopped = await first.run('Delete old.txt', { runId: 'run-approval-1', signal: controller.signal });
    expect(stopped.stopReason).toBe('cancelled');
    expect(stopped.report.approvals).toEqual([
      expect.objectContaining({ kind: 'tool-call', stepId: 'task' }),
    ]);
    expect(stopped.report.approvals[0]).not.toHaveProperty('approved');
    expect(await ws.exists('old.txt')).toBe(true);
    const journal = await createJsonlRunStore({ dir }).read('run-approval-1');
    expect(journal.filter(isRunEventOf('approval-requested'))).toHaveLength(1);
    expect(journal.filter(isRunEventOf('approval-resolved'))).toHaveLength(0);

    const second = createCortex({
      model: scenarioModel({ steps: { task: deleteStep } }),
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      executor: { guard },
      store: createJsonlRunStore({ dir }),
      onApproval: (request) => {
        asked.push(`second:${request.kind}:${request.tool ?? ''}`);
        return { approved: true, note: 'back from lunch' };
      },
    });
    const resumed = await second.resume('run-approval-1');
    expect(resumed.stopReason).toBe('completed');
    expect(await ws.exists('old.txt')).toBe(false);
    expect(asked).toEqual(['first:tool-call:delete_file', 'second:tool-call:delete_file']);
    expect(resumed.report.approvals).toEqual([
      expect.objectContaining({ approvalId: 'approval-1', kind: 'tool-call' }),
      expect.objectContaining({
        approvalId: 'approval-2',
        kind: 'tool-call',
        approved: true,
        note: 'back from lunch',
      }),
    ]);
    expect(resumed.report.approvals[0]).not.toHaveProperty('approved');
  });

  it('a denial keeps the file; without a redesign the step ends blocked', async () => {
    const { cortex, ws } = await setup(
      { steps: { task: deleteStep }, replans: [{ action: 'give_up', reason: 'the human said no' }] },
      { planning: 'never', executor: { guard }, onApproval: () => ({ approved: false }) },
      { 'old.txt': 'bye' },
    );
    const result = await cortex.run('Delete old.txt');
    expect(result.stopReason).toBe('blocked');
    expect(await ws.exists('old.txt')).toBe(true);
    expect(result.report.approvals[0]).toMatchObject({ approved: false });
  });
});

describe('goal repair', () => {
  const failsOnce = () =>
    goalProtocol('TESTS', (call) =>
      call === 1
        ? [{ status: 'fail', message: '1 test failing' }]
        : [{ status: 'pass', message: 'all pass' }],
    );

  it('adds a failed placeholder with addSteps (steps-added), the replanner redesigns it, and the events replay', async () => {
    const { cortex, model, events } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A'), '*': writeStep('fix.txt', 'fixed') },
        replans: [{ action: 'redesign', steps: [{ description: 'Fix the failing test' }], dependencies: {} }],
      },
      {
        planning: 'never',
        verifier: {
          protocols: [failsOnce()],
          criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' }],
        },
      },
    );
    const result = await cortex.run('Write a.txt so the tests pass');
    expect(result.stopReason).toBe('completed');
    expect(events.some((event) => (event.type as string) === 'plan-restored')).toBe(false);

    const added = events.filter(isRunEventOf('steps-added'));
    expect(added).toHaveLength(1);
    expect(added[0]!.added).toEqual([
      expect.objectContaining({
        id: 'goal-repair-1',
        title: 'Repair the goal',
        dependsOn: ['task'],
        status: 'not_started',
        successCriteria: ['P1 TESTS: 1 test failing'],
      }),
    ]);
    expect(added[0]!.insertAt).toBe(1);
    // The placeholder never runs: it is marked failed with the goal findings, then replaced.
    const about = events.filter(
      (event) => isPlanEvent(event) && 'stepId' in event && event.stepId === 'goal-repair-1',
    );
    expect(about.map((event) => [event.type, 'status' in event ? event.status : undefined])).toEqual([
      ['step-marked', 'in_progress'],
      ['step-verified', undefined],
      ['step-marked', 'failed'],
    ]);
    expect(events.some((event) => event.type === 'step-started' && event.stepId === 'goal-repair-1')).toBe(
      false,
    );
    const applied = events.filter(isRunEventOf('replan-applied'));
    expect(applied).toEqual([
      expect.objectContaining({ failed: ['goal-repair-1'], removed: ['goal-repair-1'] }),
    ]);
    expect(result.report.replans).toEqual([
      expect.objectContaining({ reason: 'goal-repair', failed: ['goal-repair-1'], action: 'redesign' }),
    ]);

    // The replanner saw the goal findings and the completed step's tool history.
    const replannerPrompt = JSON.stringify(
      model.requests.find((request) => JSON.stringify(request.messages).includes('You are the replanner'))!
        .messages,
    );
    expect(replannerPrompt).toContain('1 test failing');
    expect(replannerPrompt).toContain('a.txt');

    const newId = applied[0]!.added[0]!.id;
    expect(result.report.steps.map((step) => [step.id, step.status, step.runs])).toEqual([
      ['goal-repair-1', 'replaced', 0],
      ['task', 'completed', 1],
      [newId, 'completed', 1],
    ]);
    expect(replayPlan(events).toJSON()).toStrictEqual(result.plan);
  });

  it('when the replanner gives up, the placeholder is blocked and the run stops blocked', async () => {
    const { cortex, events } = await setup(
      {
        steps: { task: writeStep('a.txt', 'A') },
        replans: [{ action: 'give_up', reason: 'the tests cannot pass' }],
      },
      {
        planning: 'never',
        verifier: {
          protocols: [goalProtocol('TESTS', () => [{ status: 'fail', message: 'still failing' }])],
          criteria: [{ id: 'TESTS_PASS', priority: 'P1', protocol: 'TESTS' }],
        },
      },
    );
    const result = await cortex.run('Make the tests pass');
    expect(result.stopReason).toBe('blocked');
    expect(result.reason).toContain('goal repair gave up');
    expect(result.plan!.steps.map((step) => [step.id, step.status])).toEqual([
      ['task', 'completed'],
      ['goal-repair-1', 'blocked'],
    ]);
    expect(replayPlan(events).toJSON()).toStrictEqual(result.plan);
  });
});

describe('bad input', () => {
  it('run rejects an empty request before starting', async () => {
    const cortex = createCortex({ model: scenarioModel({}), tools: [] });
    for (const request of ['', '   ', 42 as unknown as string]) {
      const error = await cortex.run(request).catch((caught: unknown) => caught);
      expect(CortexError.isInstance(error) && error.code).toBe('invalid-request');
    }
    await expect(cortex.run('x', { planning: 'sometimes' as never })).rejects.toMatchObject({
      code: 'invalid-options',
    });
  });

  it.each([
    ['model', { model: {} }],
    ['tools', { tools: 'all' }],
    ['concurrency', { concurrency: 0 }],
    ['maxIterations', { maxIterations: 1.5 }],
    ['budget', { budget: { maxTokens: -1 } }],
    ['deadlines', { deadlines: { runMs: 0 } }],
    ['planning', { planning: 'maybe' }],
    ['goal', { verifier: { goal: 'yes' } }],
    ['protocols', { verifier: { protocols: [{ name: 'X' }] } }],
    ['workspace', { workspace: '' }],
    ['replanWindowMs', { replanWindowMs: -1 }],
    ['store', { store: {} }],
    ['contracts', { verifier: { contracts: { profiles: { x: [{ tool: '' }] } } } }],
    [
      'tool named mark_step',
      {
        tools: [
          defineTool({ name: 'mark_step', description: 'clash', input: z.object({}), execute: () => 'x' }),
        ],
      },
    ],
  ])('createCortex rejects a bad %s', (_name, bad) => {
    const make = () =>
      createCortex({ model: scenarioModel({}), tools: [], ...(bad as object) } as CortexOptions);
    expect(make).toThrow(expect.objectContaining({ code: 'invalid-options' }));
  });
});
