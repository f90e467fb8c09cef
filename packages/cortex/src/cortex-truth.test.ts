import { createServer } from 'node:net';
import { ModelError } from '@closedloop/model';
import { ScriptedModel } from '@closedloop/model/testing';
import { anthropic } from '@closedloop/provider-anthropic';
import { createOpenAI, openai } from '@closedloop/provider-openai';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import type { Protocol } from '@closedloop/verifier';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScenarioOptions, scenarioModel, writeStep } from './__fixtures__/scenario-model';
import { type CortexOptions, createCortex } from './create-cortex';
import type { PlannerOutput } from './draft-plan';
import type { RunEvent } from './run-events';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

async function workspace(files: Record<string, string> = {}) {
  const ws = await createTempWorkspace({ files: { 'README.md': '# demo\n', ...files }, git: true });
  workspaces.push(ws);
  return ws;
}

async function setup(
  scenario: ScenarioOptions,
  options: Partial<CortexOptions> = {},
  files: Record<string, string> = {},
) {
  const ws = await workspace(files);
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

/** A TCP port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const withoutKeys = async <T>(run: () => Promise<T>): Promise<T> => {
  const saved = { openai: process.env.OPENAI_API_KEY, anthropic: process.env.ANTHROPIC_API_KEY };
  delete process.env.OPENAI_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  try {
    return await run();
  } finally {
    if (saved.openai !== undefined) process.env.OPENAI_API_KEY = saved.openai;
    if (saved.anthropic !== undefined) process.env.ANTHROPIC_API_KEY = saved.anthropic;
  }
};

describe('machinery failures are never completed', { timeout: 60_000 }, () => {
  it.each([
    ['openai', () => openai('gpt-4.1')],
    ['anthropic', () => anthropic('claude-sonnet-4-5')],
  ])('the README example with %s and no API key stops model-unavailable', async (_name, model) => {
    const ws = await workspace();
    const result = await withoutKeys(() =>
      createCortex({ model: model(), tools: workspaceTools({ root: ws.root }), workspace: ws.root }).run(
        'Add an isPrime function with tests',
      ),
    );
    expect(result.stopReason).toBe('model-unavailable');
    expect(result.reason).toMatch(/no API key/);
    expect(result.report.ledger.calls).toBe(0);
  });

  it('an OpenAI-compatible baseURL where nothing listens stops model-unavailable with the provider message', async () => {
    const ws = await workspace();
    const port = await closedPort();
    const model = createOpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test' })('gpt-4.1');
    const result = await createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
    }).run('Add an isPrime function with tests');
    expect(result.stopReason).toBe('model-unavailable');
    expect(result.reason).toMatch(/network/);
    expect(result.answerSource).toBe('fallback');
  });

  it('a model that only talks ("I created src/is-prime.js … all 4 tests pass") never completes', async () => {
    const talk = {
      text: 'I created src/is-prime.js with isPrime(n) and test/is-prime.test.js; all 4 tests pass.',
    };
    const { cortex, ws } = await setup({
      steps: { '*': () => talk },
      replans: [{ action: 'give_up', reason: 'nothing happens' }],
    });
    const result = await cortex.run('Create src/is-prime.js exporting isPrime(n)', { planning: 'never' });
    expect(result.stopReason).not.toMatch(/^completed/);
    expect(result.stopReason).toBe('blocked');
    expect(await ws.exists('src/is-prime.js')).toBe(false);
    const step = result.report.steps.find((candidate) => candidate.id === 'task');
    expect(step?.findings).toContainEqual(
      expect.objectContaining({ check: 'execution', priority: 'P0', status: 'fail' }),
    );
  });

  it('a model that answers only "[FAIL]: I could not do this step." in text never completes', async () => {
    const { cortex } = await setup({
      steps: { '*': () => ({ text: '[FAIL]: I could not do this step.' }) },
      replans: [{ action: 'give_up', reason: 'it cannot' }],
    });
    const result = await cortex.run('Create src/is-prime.js exporting isPrime(n)', { planning: 'never' });
    expect(result.stopReason).toBe('blocked');
    expect(result.report.steps[0]?.findings).toContainEqual(
      expect.objectContaining({ check: 'notes', priority: 'P0', status: 'fail' }),
    );
  });

  it('a model that goes down mid-run stops the run model-unavailable; completed work stays completed', async () => {
    const down = new ModelError({
      code: 'network',
      message: 'connect ECONNREFUSED 127.0.0.1:1',
      isRetryable: false,
      provider: 'scripted',
    });
    const plan: PlannerOutput = {
      title: 'two steps',
      successCriteria: [],
      protocols: [],
      steps: [
        {
          id: 'a',
          description: 'Create a.txt',
          dependsOn: [],
          requiredTools: [],
          successCriteria: [],
          protocols: [],
        },
        {
          id: 'b',
          description: 'Create b.txt',
          dependsOn: ['a'],
          requiredTools: [],
          successCriteria: [],
          protocols: [],
        },
      ],
    };
    const { cortex } = await setup({
      plans: [plan],
      steps: { a: writeStep('a.txt', 'A'), b: () => ({ error: down }) },
    });
    const result = await cortex.run('Create a.txt, then b.txt', { planning: 'always' });
    expect(result.stopReason).toBe('model-unavailable');
    expect(result.reason).toContain('ECONNREFUSED');
    // b was running when the run stopped: it stays in_progress, for a resume once the model is back.
    expect(result.report.steps.map((step) => [step.id, step.status])).toEqual([
      ['a', 'completed'],
      ['b', 'in_progress'],
    ]);
    expect(result.report.steps[1]?.findings).toContainEqual(
      expect.objectContaining({ check: 'execution', status: 'fail' }),
    );
  });

  it('other model errors fail the step (replanned), never complete it', async () => {
    const broken = new ModelError({ code: 'invalid-response', message: 'garbage', isRetryable: false });
    const { cortex } = await setup({
      steps: { task: () => ({ error: broken }), '*': writeStep('a.txt', 'A') },
      replans: [
        { action: 'redesign', steps: [{ description: 'Write a.txt with write_file' }], dependencies: {} },
      ],
    });
    const result = await cortex.run('Create a.txt', { planning: 'never' });
    expect(result.stopReason).toBe('completed');
    const task = result.report.steps.find((step) => step.id === 'task');
    expect(task).toMatchObject({ status: 'replaced' });
    expect(task?.findings).toContainEqual(expect.objectContaining({ check: 'execution', status: 'fail' }));
  });
});

describe('unverified is not completed', { timeout: 60_000 }, () => {
  const flaky: Protocol = {
    name: 'FLAKY',
    priority: 'P1',
    layer: 1,
    async run() {
      throw new Error('checker crashed');
    },
  };
  const planWith = (protocols: string[]): PlannerOutput => ({
    title: 't',
    successCriteria: [],
    protocols: [],
    steps: [
      {
        id: 'a',
        description: 'Create a.txt',
        dependsOn: [],
        requiredTools: [],
        successCriteria: [],
        protocols,
      },
    ],
  });

  it('by default an unverified step is retried once with the reasons, then replanned; the report says why', async () => {
    const { cortex, model, events } = await setup(
      {
        plans: [planWith(['FLAKY'])],
        steps: { a: (turn) => writeStep('a.txt', 'A')[turn % 2]! },
        replans: [{ action: 'give_up', reason: 'cannot be checked' }],
      },
      { verifier: { protocols: [flaky] }, planning: 'always' },
    );
    const result = await cortex.run('Create a.txt');
    expect(result.stopReason).toBe('blocked');
    expect(result.reason).toMatch(/unverified after 2 attempt\(s\)/);
    expect(events.filter((event) => event.type === 'step-retried')).toEqual([
      expect.objectContaining({ stepId: 'a', attempt: 2, reason: expect.stringMatching(/FLAKY/) }),
    ]);
    const retry = model.requests
      .filter((request) => JSON.stringify(request.messages).includes('# Your step: a'))
      .at(-1);
    expect(retry?.messages[0]?.content).toContain('A previous attempt of this step could not be verified');
    expect(result.report.unverified).toEqual([
      expect.objectContaining({
        stepId: 'a',
        reason: expect.stringMatching(/FLAKY: The FLAKY protocol crashed|FLAKY/),
      }),
    ]);
    expect(result.report.steps[0]).toMatchObject({ status: 'blocked', verdict: 'unverified' });
  });

  it("acceptUnverified: 'warn' completes it flagged, and the run says which step and why", async () => {
    const { cortex } = await setup(
      { plans: [planWith(['FLAKY'])], steps: { a: writeStep('a.txt', 'A') } },
      { verifier: { protocols: [flaky] }, planning: 'always', acceptUnverified: 'warn' },
    );
    const result = await cortex.run('Create a.txt');
    expect(result.stopReason).toBe('completed-with-warnings');
    expect(result.reason).toMatch(/^1 step output\(s\) unverified: a \(/);
    expect(result.report.unverified).toEqual([expect.objectContaining({ stepId: 'a', status: 'completed' })]);
  });

  it('rejects a bad acceptUnverified', () => {
    expect(() =>
      createCortex({ model: new ScriptedModel(), tools: [], acceptUnverified: 'yes' as never }),
    ).toThrow(/acceptUnverified must be 'retry' or 'warn'/);
  });
});

describe('destructive calls are verified by default', { timeout: 60_000 }, () => {
  const overwrite = [
    { toolCalls: [{ name: 'write_file', arguments: { path: 'README.md', content: '# new\n' } }] },
    {
      toolCalls: [
        {
          name: 'mark_step',
          arguments: {
            status: 'success',
            notes: '[SUCCESS]: updated README.md',
            claims: { filesWritten: ['README.md'] },
          },
        },
      ],
    },
  ];

  it('a default cortex asks the guard about an overwrite, and a NO denies it', async () => {
    const { cortex, model } = await setup({
      steps: { task: overwrite },
      guard: 'NO: the user did not ask to change the README.',
      replans: [{ action: 'give_up', reason: 'denied' }],
    });
    const result = await cortex.run('Update README.md', { planning: 'never' });
    expect(model.asked.guard).toBe(1);
    expect(result.stopReason).toBe('blocked');
    expect(result.plan?.steps[0]?.ledger[0]).toMatchObject({ tool: 'write_file', status: 'error' });
    expect(result.report.usage.byPurpose.verifier?.calls).toBeGreaterThanOrEqual(1);
  });

  it('guard: false turns it off explicitly', async () => {
    const { cortex, model } = await setup({ steps: { task: overwrite } }, { executor: { guard: false } });
    const result = await cortex.run('Update README.md', { planning: 'never' });
    expect(model.asked.guard).toBe(0);
    expect(result.stopReason).toBe('completed');
  });
});

describe('confidence end to end', { timeout: 60_000 }, () => {
  it('asks for logprobs, bands the step, propagates the minimum and flags it downstream', async () => {
    const ws = await workspace();
    const plan: PlannerOutput = {
      title: 't',
      successCriteria: [],
      protocols: [],
      steps: [
        {
          id: 'a',
          description: 'Create a.txt',
          dependsOn: [],
          requiredTools: [],
          successCriteria: [],
          protocols: [],
        },
        {
          id: 'b',
          description: 'Create b.txt',
          dependsOn: ['a'],
          requiredTools: [],
          successCriteria: [],
          protocols: [],
        },
      ],
    };
    const base = scenarioModel({
      plans: [plan],
      steps: { a: writeStep('a.txt', 'A'), b: writeStep('b.txt', 'B') },
    });
    const model = new ScriptedModel({
      capabilities: { logprobs: true, structuredOutput: false },
      matchers: [
        {
          match: () => true,
          respond: async (request, context) => {
            const answer = await base.doGenerate(request);
            const stepA = JSON.stringify(request.messages).includes('# Your step: a');
            return {
              ...answer,
              confidence: stepA ? 0.55 : 0.95,
              toolCalls: answer.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })),
              response: { id: `r${context.callIndex}`, modelId: 'm' },
            };
          },
        },
      ],
    });
    const result = await createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
      acceptUnverified: 'warn',
    }).run('Create a.txt, then b.txt');
    expect(model.requests.some((request) => request.logprobs === true)).toBe(true);
    const byId = Object.fromEntries(result.report.steps.map((step) => [step.id, step]));
    expect(byId.a).toMatchObject({ confidence: 0.55, confidenceBand: 'unverified', unverified: true });
    expect(byId.b).toMatchObject({ confidence: 0.55, confidenceBand: 'unverified', unverified: true });
    expect(result.report.confidence).toEqual({ value: 0.55, band: 'unverified' });
    expect(result.stopReason).toBe('completed-with-warnings');
    const bPrompt = model.requests.find((request) =>
      JSON.stringify(request.messages).includes('# Your step: b'),
    );
    expect(JSON.stringify(bPrompt?.messages)).toContain('UNVERIFIED (confidence 0.55)');
  });
});

describe('factored claim extraction', { timeout: 60_000 }, () => {
  it("verifier.claimExtraction: 'model' checks the claims a separate call lists", async () => {
    const claims = JSON.stringify({
      claims: [{ kind: 'file-created', file: 'docs/api.md', quote: 'the API page is in place' }],
    });
    const { cortex } = await setup(
      {
        steps: {
          task: writeStep('a.txt', 'A').map((turn, index) =>
            index === 1
              ? {
                  toolCalls: [
                    {
                      name: 'mark_step',
                      arguments: {
                        status: 'success',
                        notes: '[SUCCESS]: wrote a.txt; the API page is in place',
                      },
                    },
                  ],
                }
              : turn,
          ),
        },
        claims,
        replans: [{ action: 'give_up', reason: 'no' }],
      },
      { verifier: { claimExtraction: 'model' } },
    );
    const result = await cortex.run('Write a.txt', { planning: 'never' });
    expect(result.stopReason).toBe('blocked');
    expect(result.report.steps[0]?.findings).toContainEqual(
      expect.objectContaining({
        check: 'claims',
        status: 'fail',
        message: expect.stringMatching(/docs\/api\.md does not exist/),
      }),
    );
    const deterministic = await (
      await setup({
        steps: {
          task: writeStep('a.txt', 'A').map((turn, index) =>
            index === 1
              ? {
                  toolCalls: [
                    {
                      name: 'mark_step',
                      arguments: {
                        status: 'success',
                        notes: '[SUCCESS]: wrote a.txt; the API page is in place',
                      },
                    },
                  ],
                }
              : turn,
          ),
        },
      })
    ).cortex.run('Write a.txt', { planning: 'never' });
    expect(deterministic.stopReason).toBe('completed');
  });
});
