import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelError } from '@closedloop/model';
import { errorTurn, ScriptedModel, textTurn } from '@closedloop/model/testing';
import { Plan, type StepId } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import {
  answer,
  completeStep,
  examplePlan,
  exampleRedesign,
  exampleSteps,
  exampleTools,
  failStep,
  runCommandTool,
  tickingClock,
} from './__fixtures__/example-plan';
import { createReplanner, type ReplanOutcome } from './create-replanner';
import { replannerSystemPrompt } from './replan-prompt';
import { ReplannerError } from './replanner-error';

const tools = [...exampleTools, runCommandTool];
const instantRetry = { maxAttempts: 3, sleep: async () => {}, jitter: false } as const;

function userPrompt(model: ScriptedModel, call = 0): string {
  const message = model.requests[call]?.messages.find((m) => m.role === 'user');
  return message?.content ?? '';
}

function expectRedesign(
  outcome: ReplanOutcome,
): asserts outcome is Extract<ReplanOutcome, { action: 'redesign' }> {
  expect(outcome.action).toBe('redesign');
}

function expectGiveUp(
  outcome: ReplanOutcome,
): asserts outcome is Extract<ReplanOutcome, { action: 'give_up' }> {
  expect(outcome.action).toBe('give_up');
}

/** The plan as data, to prove a refused replan left it exactly as it was. */
function stateOf(plan: Plan) {
  return { snapshot: plan.toJSON(), events: plan.events.length };
}

describe('subgraph replan', () => {
  it('test_replan_subgraph_redesign: redesigns 5, 6, 7 into the new steps and keeps 0–4', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel({ turns: [answer(exampleRedesign)] });
    const replanner = createReplanner({ model });

    const outcome = await replanner.replan(plan, ['5'], { tools, goal: plan.goal });

    expectRedesign(outcome);
    expect(outcome.removed).toEqual(['5', '6', '7']);
    expect(outcome.attempt).toBe(1);
    expect(outcome.blocked).toEqual([]);
    expect(outcome.problems).toEqual([]);
    expect(outcome.drafts).toHaveLength(1);
    const [a, b, c] = outcome.added;
    expect(outcome.added.map((step) => step.description)).toEqual(
      exampleRedesign.steps.map((s) => s.description),
    );
    expect(a?.dependsOn).toEqual(['3', '4']);
    expect(b?.dependsOn).toEqual([a?.id]);
    expect(c?.dependsOn).toEqual([b?.id]);
    expect(a?.title).toBe('API skeleton');
    expect(c?.requiredTools).toEqual(['write_file', 'run_command']);
    expect(c?.successCriteria).toEqual(['pytest exits 0']);
    for (const step of outcome.added) {
      expect(step.replanAttempts).toBe(1);
      // `replaces` names the failed step; the whole removed subgraph is `outcome.removed`.
      expect(step.replaces).toEqual(['5']);
      expect(step.status).toBe('not_started');
    }
    expect(plan.stepIds).toEqual(['0', '1', '2', '3', '4', a?.id, b?.id, c?.id]);
    expect(plan.readySteps()).toEqual([a?.id]);

    // One structured-output request: the constant system prompt, then the replan prompt.
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request.messages[0]?.content).toContain(replannerSystemPrompt);
    expect(request.responseFormat?.type).toBe('json');
    expect(request.responseFormat?.name).toBe('replan_result');
    expect(JSON.stringify(request.responseFormat?.schema)).toContain('give_up');
    expect(userPrompt(model)).toBe(createReplanner({ model }).buildPrompt(examplePlan(), ['5'], { tools }));
    const event = plan.events.at(-1);
    expect(event?.type).toBe('replan-applied');
  });

  it('the prompt carries the full tool history, the failure evidence, the downstream steps and the tools', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel({ turns: [answer(exampleRedesign)] });
    await createReplanner({ model }).replan(plan, ['5'], { tools, goal: 'Ship the todo API' });
    const prompt = userPrompt(model);

    expect(prompt).toContain('## Goal\nShip the todo API');
    // Completed steps with every call and its real result (not a summary).
    for (const id of ['0', '1', '2', '3', '4']) expect(prompt).toContain(`### Step ${id}: `);
    expect(prompt).toContain('- read_file(path="requirements.md") → "Build a REST API for todos');
    expect(prompt).toContain('- run_command(command="python -c \'import sqlalchemy\'") → "OK"');
    // Failed step: ledger with the unanswered call, notes, findings, contract.
    expect(prompt).toContain('### Step 5: Write API endpoints [failed]');
    expect(prompt).toContain(
      '- write_file(path="src/api.py", content="from flask import Flask\\n") → status: pending ❌',
    );
    expect(prompt).toContain('Notes: [FAIL]: write_file never returned');
    expect(prompt).toContain('[P0] ledger.pending (fail): write_file call auto-1 was never answered');
    expect(prompt).toContain('Required tools: write_file');
    expect(prompt).toContain('Redesigns so far: 0 of 2');
    // Downstream, with dependencies.
    expect(prompt).toContain('### Step 6: Write the tests (depends on: 5)');
    expect(prompt).toContain('### Step 7: Run the tests (depends on: 5)');
    // Tools with schemas: a ToolSpec and a closedloop tool converted from zod.
    expect(prompt).toContain('### write_file');
    expect(prompt).toContain('"required":["path","content"]');
    expect(prompt).toContain('### run_command');
    expect(prompt).toContain('"command":{"type":"string","description":"The command line"}');
    expect(prompt).toContain('Redesign steps 5, 6, 7.');
    expect(prompt).not.toContain('Earlier redesigns');
  });

  it('cuts long tool results with a marker at maxResultChars (not a summary)', async () => {
    const plan = Plan.create({ goal: 'g', steps: exampleSteps }, { id: 'p', clock: tickingClock() });
    completeStep(plan, '0', [{ tool: 'read_file', args: { path: 'big.log' }, result: 'x'.repeat(5_000) }]);
    for (const id of ['1', '2', '3', '4']) completeStep(plan, id);
    failStep(plan, '5');
    const prompt = createReplanner({ model: new ScriptedModel(), maxResultChars: 100 }).buildPrompt(
      plan,
      ['5'],
      {
        tools,
      },
    );
    expect(prompt).toContain(`"${'x'.repeat(100)}…[truncated 4900 chars]"`);
    expect(prompt).not.toContain('x'.repeat(101));
  });

  it('keeps the history within maxHistoryChars: nearest upstream steps in full, the rest named', () => {
    const plan = examplePlan();
    const full = createReplanner({ model: new ScriptedModel(), maxHistoryChars: Number.POSITIVE_INFINITY });
    const step4 = plan.formatToolHistory('4');
    const step3 = plan.formatToolHistory('3');
    const budget = step4.length + step3.length + 2;
    const prompt = createReplanner({ model: new ScriptedModel(), maxHistoryChars: budget }).buildPrompt(
      plan,
      ['5'],
      {
        tools,
      },
    );
    expect(prompt).toContain(step4);
    expect(prompt).toContain(step3);
    expect(prompt).not.toContain('### Step 0:');
    expect(prompt).toContain(
      `The history of 3 more completed step(s) is omitted to fit the model's context (${budget} characters for history): 0, 1, 2. Their results stay available to new steps.`,
    );
    // Shown steps stay in plan order; the default budget (from the model's context window) shows all here.
    expect(prompt.indexOf('### Step 3:')).toBeLessThan(prompt.indexOf('### Step 4:'));
    expect(full.buildPrompt(plan, ['5'], { tools })).toBe(
      createReplanner({ model: new ScriptedModel() }).buildPrompt(plan, ['5'], { tools }),
    );
    expect(() => createReplanner({ model: new ScriptedModel(), maxHistoryChars: 0 })).toThrow(
      /maxHistoryChars/,
    );
  });

  it('prompt snapshot: example scenario (review any change to what the model sees)', async () => {
    const prompt = createReplanner({ model: new ScriptedModel() }).buildPrompt(examplePlan(), ['5'], {
      tools,
    });
    await expect(prompt).toMatchFileSnapshot('./__snapshots__/example-replan-prompt.md');
  });

  it('test_replan_subgraph_give_up_after_max_attempts: original + 2 redesigns = 3 chances, then blocked', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel({
      turns: [
        answer(exampleRedesign),
        answer({
          action: 'redesign',
          steps: [
            { description: 'Write src/api.py in one write_file call with both endpoints' },
            { description: 'Write tests/test_api.py and run pytest' },
          ],
          dependencies: { '1': [0] },
        }),
      ],
    });
    const replanner = createReplanner({ model });

    const first = await replanner.replan(plan, ['5'], { tools });
    expectRedesign(first);
    expect(first.attempt).toBe(1);
    const firstNew = first.added[0]!.id;
    failStep(plan, firstNew);

    const second = await replanner.replan(plan, [firstNew], { tools });
    expectRedesign(second);
    expect(second.attempt).toBe(2);
    expect(second.removed).toEqual(first.added.map((step) => step.id));
    expect(userPrompt(model, 1)).toContain('Redesigns so far: 1 of 2 (this is the last redesign allowed)');
    const secondNew = second.added[0]!.id;
    failStep(plan, secondNew);

    const third = await replanner.replan(plan, [secondNew], { tools });
    expectGiveUp(third);
    expect(third.reason).toBe('max-attempts');
    expect(third.usage).toBeUndefined();
    expect(third.blocked).toEqual([secondNew, second.added[1]!.id]);
    expect(model.requests).toHaveLength(2); // no third model call
    expect(plan.step(secondNew).status).toBe('blocked');
    expect(plan.step(second.added[1]!.id).status).toBe('blocked');
    expect(plan.step(second.added[1]!.id).notes).toBe(`[FAIL]: upstream step ${secondNew} is blocked`);
    // The failed step keeps its own failure notes.
    expect(plan.step(secondNew).notes).toBe('[FAIL]: the tool call did not complete');
    expect(() => replanner.buildPrompt(plan, [secondNew], { tools })).toThrow(/limit of 2/);
  });

  it('maxAttempts: 0 blocks at once; the limit is configurable', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel();
    const outcome = await createReplanner({ model, maxAttempts: 0 }).replan(plan, ['5'], { tools });
    expectGiveUp(outcome);
    expect(outcome.reason).toBe('max-attempts');
    expect(outcome.blocked).toEqual(['5', '6', '7']);
    expect(model.requests).toHaveLength(0);
  });

  it('test_completed_steps_preserved_after_replan: 0–4 identical, ledgers included; plan replays', async () => {
    const plan = examplePlan();
    const before = ['0', '1', '2', '3', '4'].map((id) => plan.step(id));
    const model = new ScriptedModel({ turns: [answer(exampleRedesign)] });
    await createReplanner({ model }).replan(plan, ['5'], { tools });
    const after = ['0', '1', '2', '3', '4'].map((id) => plan.step(id));
    expect(after).toEqual(before);
    expect(after.every((step) => step.status === 'completed' && step.ledger.length > 0)).toBe(true);
    expect(plan.stepIds.slice(0, 5)).toEqual(['0', '1', '2', '3', '4']);
    // The surgery is an ordinary event: replaying the log gives the same plan.
    expect(Plan.replay(plan.events).toJSON()).toEqual(plan.toJSON());
  });

  it('test_failed_step_triggers_subgraph_replan: a run loop with real files replans 5 and finishes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'closedloop-replanner-'));
    try {
      const plan = Plan.create(
        {
          goal: 'todo API',
          steps: exampleSteps.map((s) => ({ ...s, requiredTools: [], successCriteria: [] })),
        },
        { id: 'loop', clock: tickingClock() },
      );
      const writes: Record<string, { path: string; content: string; hangs?: boolean }> = {
        '1': { path: 'src/README', content: 'src' },
        '3': { path: 'src/models.py', content: 'class Todo: ...\n' },
        '4': { path: 'src/database.py', content: 'import sqlite3\n' },
        '5': { path: 'src/api.py', content: 'routes = []\n', hangs: true },
        'API skeleton': { path: 'src/api.py', content: 'routes = ["/todos"]\n' },
      };
      const model = new ScriptedModel({
        turns: [
          answer({
            action: 'redesign',
            steps: [{ title: 'API skeleton', description: 'Write src/api.py with the /todos route' }],
            dependencies: { '0': ['3', '4'] },
          }),
        ],
      });
      const replanner = createReplanner({ model });
      const outcomes: ReplanOutcome[] = [];

      // A miniature scheduler/executor/verifier: runs every ready step, writes real files, fails
      // a step whose call never returned, and replans each round's failures in one call.
      for (let round = 0; round < 10; round++) {
        const ready = plan.readySteps();
        if (ready.length === 0) break;
        const failed: StepId[] = [];
        for (const id of ready) {
          const step = plan.step(id);
          plan.markStep(id, { status: 'in_progress' });
          const write = writes[id] ?? (step.title === undefined ? undefined : writes[step.title]);
          if (write !== undefined) {
            const call = plan.recordToolCall(id, { tool: 'write_file', args: { path: write.path } });
            if (!write.hangs) {
              await writeFile(join(root, write.path.replace('/', '_')), write.content);
              plan.recordToolResult(id, {
                callId: call.callId,
                tool: 'write_file',
                status: 'success',
                result: 'ok',
              });
            }
          }
          const pending = plan.finalizeStep(id);
          if (pending.length > 0) {
            plan.recordVerification(id, {
              verdict: 'failed',
              findings: [
                { check: 'ledger.pending', priority: 'P0', status: 'fail', message: 'write_file pending' },
              ],
            });
            plan.markStep(id, { status: 'failed', notes: '[FAIL]: write_file did not return' });
            failed.push(id);
          } else {
            plan.markStep(id, { status: 'completed', notes: '[SUCCESS]: done' });
          }
        }
        if (failed.length > 0) outcomes.push(await replanner.replan(plan, failed, { tools }));
      }

      expect(outcomes.map((o) => o.action)).toEqual(['redesign']);
      expect(model.requests).toHaveLength(1);
      expect(plan.has('5')).toBe(false);
      expect(plan.steps.every((step) => step.status === 'completed')).toBe(true);
      expect(await readFile(join(root, 'src_api.py'), 'utf8')).toBe('routes = ["/todos"]\n');
      expect(plan.events.filter((event) => event.type === 'replan-applied')).toHaveLength(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('the model may give up: failed steps and their downstream are blocked, reason kept', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel({
      turns: [answer({ action: 'give_up', reason: 'No tool can reach the network' })],
    });
    const outcome = await createReplanner({ model }).replan(plan, ['5'], { tools });
    expectGiveUp(outcome);
    expect(outcome.reason).toBe('model-gave-up');
    expect(outcome.message).toBe('No tool can reach the network');
    expect(outcome.blocked).toEqual(['5', '6', '7']);
    expect(outcome.drafts).toHaveLength(1);
    expect(outcome.usage?.totalTokens).toBeGreaterThan(0);
    expect(['5', '6', '7'].map((id) => plan.step(id).status)).toEqual(['blocked', 'blocked', 'blocked']);
  });
});

describe('deferred batch replan (one call per round of failures)', () => {
  /** 0 → 1, 0 → 2; 1 → 3, 2 → 4; 3, 4 → 5; 5 → 6, 7 — fail 3 and 4 in the same round. */
  function batchPlan() {
    const plan = Plan.create({ goal: 'g', steps: exampleSteps }, { id: 'batch', clock: tickingClock() });
    for (const id of ['0', '1', '2']) completeStep(plan, id);
    failStep(plan, '3', { notes: '[FAIL]: models do not compile' });
    failStep(plan, '4', { notes: '[FAIL]: database driver missing' });
    return plan;
  }

  it('two failures with overlapping downstream: one model call, shared steps redesigned once', async () => {
    const plan = batchPlan();
    const model = new ScriptedModel({
      turns: [
        answer({
          action: 'redesign',
          steps: [
            { description: 'Write the data models with dataclasses' },
            { description: 'Use sqlite3 from the standard library for storage' },
            { description: 'Write the API endpoints on top of models and storage' },
            { description: 'Write and run the tests' },
          ],
          dependencies: { '0': ['1'], '1': ['2'], '2': [0, 1], '3': [2] },
        }),
      ],
    });
    const replanner = createReplanner({ model });
    const outcome = await replanner.replan(plan, ['3', '4'], { tools });

    expectRedesign(outcome);
    expect(model.requests).toHaveLength(1);
    expect([...outcome.removed].sort()).toEqual(['3', '4', '5', '6', '7']);
    expect(new Set(outcome.removed).size).toBe(outcome.removed.length);
    const prompt = userPrompt(model);
    expect(prompt).toContain('### Step 3: Write the data models [failed]');
    expect(prompt).toContain('### Step 4: Set up the database connection [failed]');
    expect(prompt).toContain('Notes: [FAIL]: models do not compile');
    expect(prompt).toContain('Notes: [FAIL]: database driver missing');
    // 5, 6, 7 are listed once, although both failures reach them.
    expect(prompt.match(/### Step 5:/g)).toHaveLength(1);
    expect(prompt.match(/### Step 6:/g)).toHaveLength(1);
    expect(prompt).toContain('Redesign steps 3, 4, 5, 6, 7.');
    expect(outcome.added.map((step) => step.replanAttempts)).toEqual([1, 1, 1, 1]);
    await expect(prompt).toMatchFileSnapshot('./__snapshots__/batch-replan-prompt.md');
  });

  it('attempt counters per original step: an exhausted failure is blocked, the other redesigned, one call', async () => {
    // Two independent branches: a → b and c → d. Branch a is on its last chance already.
    const plan = Plan.create(
      {
        goal: 'g',
        steps: [
          { id: 'a', description: 'Fetch the data' },
          { id: 'b', description: 'Chart the data', dependsOn: ['a'] },
          { id: 'c', description: 'Write the summary' },
          { id: 'd', description: 'Publish the summary', dependsOn: ['c'] },
        ],
      },
      { id: 'two-branches', clock: tickingClock() },
    );
    const model = new ScriptedModel({
      turns: [
        answer({
          action: 'redesign',
          steps: [{ description: 'Fetch the data from the mirror' }],
          dependencies: {},
        }),
        answer({
          action: 'redesign',
          steps: [{ description: 'Fetch the data from the archive' }, { description: 'Chart it' }],
          dependencies: { '1': [0] },
        }),
      ],
    });
    const replanner = createReplanner({ model });
    failStep(plan, 'a');
    const r1 = await replanner.replan(plan, ['a'], { tools });
    expectRedesign(r1);
    failStep(plan, r1.added[0]!.id);
    const r2 = await replanner.replan(plan, [r1.added[0]!.id], { tools });
    expectRedesign(r2);
    expect(r2.attempt).toBe(2);
    const exhausted = r2.added[0]!.id;
    const exhaustedDown = r2.added[1]!.id;

    // Same round: the exhausted branch fails again, and so does c (first failure).
    failStep(plan, exhausted);
    failStep(plan, 'c');
    model.addTurns(
      answer({
        action: 'redesign',
        steps: [{ description: 'Write the summary from the notes' }, { description: 'Publish it' }],
        dependencies: { '1': [0] },
      }),
    );
    const r3 = await replanner.replan(plan, [exhausted, 'c'], { tools });

    expectRedesign(r3);
    expect(model.requests).toHaveLength(3);
    expect(r3.removed).toEqual(['c', 'd']);
    expect(r3.attempt).toBe(1); // c's lineage: its first redesign
    expect(r3.blocked).toEqual([exhausted, exhaustedDown]);
    expect(plan.step(exhausted).status).toBe('blocked');
    expect(plan.step(exhaustedDown).status).toBe('blocked');
    const prompt = userPrompt(model, 2);
    expect(prompt).toContain('Redesign steps c, d.');
    expect(prompt).toContain(
      `- ${exhausted}: Fetch the data from the archive [will be blocked: attempt limit reached]`,
    );
  });

  it('a failed step downstream of another failed step is redesigned once, inside the first one', async () => {
    const plan = Plan.create(
      {
        goal: 'g',
        steps: [
          { id: 'x', description: 'x' },
          { id: 'y', description: 'y', dependsOn: ['x'] },
          { id: 'z', description: 'z', dependsOn: ['y'] },
        ],
      },
      { id: 'chain', clock: tickingClock() },
    );
    failStep(plan, 'x');
    const model = new ScriptedModel({
      turns: [
        answer({ action: 'redesign', steps: [{ description: 'x and y and z at once' }], dependencies: {} }),
      ],
    });
    const outcome = await createReplanner({ model }).replan(plan, ['y', 'x', 'x'], { tools });
    expectRedesign(outcome);
    expect(outcome.removed).toEqual(['x', 'y', 'z']);
  });
});

describe('validation and the repair turn', () => {
  it('cyclic redesign: one repair turn lists the cycle, the corrected draft is applied', async () => {
    const plan = examplePlan();
    const cyclic = {
      action: 'redesign',
      steps: [{ description: 'Write the endpoints' }, { description: 'Write the routing' }],
      dependencies: { '0': [1], '1': [0] },
    };
    const model = new ScriptedModel({ turns: [answer(cyclic), answer(exampleRedesign)] });
    const outcome = await createReplanner({ model }).replan(plan, ['5'], { tools });

    expectRedesign(outcome);
    expect(outcome.drafts).toEqual([cyclic, exampleRedesign]);
    expect(outcome.problems).toHaveLength(1);
    expect(outcome.problems[0]?.map((p) => p.code)).toEqual(['cycle']);
    expect(model.requests).toHaveLength(2);
    const repair = model.requests[1]!.messages;
    expect(repair.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(repair[1]?.content).toBe(userPrompt(model, 0));
    expect(JSON.parse(repair[2]!.content)).toEqual(cyclic);
    expect(repair[3]?.content).toContain('Your redesign was rejected and nothing was applied. Problems:');
    expect(repair[3]?.content).toContain('1. The new steps depend on each other in a cycle: 0 → 1 → 0');
    await expect(repair[3]?.content).toMatchFileSnapshot('./__snapshots__/repair-turn.md');
  });

  it('dangling dependencies (index out of range, unknown id, replaced step) are repaired', async () => {
    const plan = examplePlan();
    const dangling = {
      action: 'redesign',
      steps: [{ description: 'Write the endpoints' }, { description: 'Test them' }],
      dependencies: { '0': ['missing-step', '6'], '1': [7] },
    };
    const model = new ScriptedModel({ turns: [answer(dangling), answer(exampleRedesign)] });
    const outcome = await createReplanner({ model }).replan(plan, ['5'], { tools });

    expectRedesign(outcome);
    expect(outcome.problems[0]?.map((p) => p.code)).toEqual([
      'dangling-dependency',
      'replaced-step-dependency',
      'dangling-dependency',
    ]);
    const repair = model.requests[1]!.messages.at(-1)!.content;
    expect(repair).toContain('New step 0 depends on "missing-step", which is not a step of the plan.');
    expect(repair).toContain('New step 0 depends on "6", a step this redesign replaces.');
    expect(repair).toContain('New step 1 depends on index 7, but there are only 2 new steps (0..1).');
  });

  it('a second invalid answer gives up (invalid-redesign) with both drafts; the failed subgraph is blocked', async () => {
    const plan = examplePlan();
    const before = ['0', '1', '2', '3', '4'].map((id) => plan.step(id));
    const first = {
      action: 'redesign',
      steps: [{ description: 'Write the endpoints', requiredTools: ['http_post'] }],
      dependencies: {},
    };
    const second = { action: 'redesign', steps: [], dependencies: {} };
    const model = new ScriptedModel({ turns: [answer(first), answer(second)] });
    const outcome = await createReplanner({ model }).replan(plan, ['5'], { tools });

    expectGiveUp(outcome);
    expect(outcome.reason).toBe('invalid-redesign');
    expect(outcome.drafts).toEqual([first, second]);
    expect(outcome.problems?.map((list) => list.map((p) => p.code))).toEqual([
      ['unknown-tool'],
      ['empty-redesign'],
    ]);
    expect(outcome.problems?.[0]?.[0]?.message).toContain('requires tool "http_post", which does not exist');
    expect(outcome.blocked).toEqual(['5', '6', '7']);
    expect(model.requests).toHaveLength(2);
    expect(plan.events.some((event) => event.type === 'replan-applied')).toBe(false);
    expect(['0', '1', '2', '3', '4'].map((id) => plan.step(id))).toEqual(before);
  });

  it('dependencies on kept steps that will never complete are rejected', async () => {
    const plan = Plan.create(
      {
        goal: 'g',
        steps: [
          { id: 'a', description: 'a' },
          { id: 'b', description: 'b' },
          { id: 'c', description: 'c', dependsOn: ['a'] },
        ],
      },
      { id: 'kept', clock: tickingClock() },
    );
    plan.markStep('b', { status: 'skipped' });
    failStep(plan, 'a');
    const model = new ScriptedModel({
      turns: [
        answer({
          action: 'redesign',
          steps: [{ description: 'a again, differently' }],
          dependencies: { '0': ['b'] },
        }),
        answer({ action: 'give_up', reason: 'nothing else to try' }),
      ],
    });
    const outcome = await createReplanner({ model }).replan(plan, ['a'], { tools });
    expectGiveUp(outcome);
    expect(outcome.reason).toBe('model-gave-up');
    expect(outcome.problems?.[0]?.map((p) => p.code)).toEqual(['unsatisfiable-dependency']);
    expect(outcome.drafts).toHaveLength(2);
    expect(userPrompt(model)).toContain('- b: b [skipped: will not complete]');
  });
});

describe('failure context carries forward', () => {
  const redesign1 = {
    action: 'redesign',
    steps: [
      { description: 'Create the API skeleton in src/api.py' },
      { description: 'Implement the endpoints' },
      { description: 'Write and run the tests' },
    ],
    dependencies: { '1': [0], '2': [1] },
  };

  async function afterFailedRedesign() {
    const plan = examplePlan();
    const model = new ScriptedModel({ turns: [answer(redesign1)] });
    const replanner = createReplanner({ model });
    const first = await replanner.replan(plan, ['5'], { tools });
    expectRedesign(first);
    completeStep(plan, first.added[0]!.id, [
      { tool: 'write_file', args: { path: 'src/api.py', content: 'app = None' }, result: 'File written' },
    ]);
    failStep(plan, first.added[1]!.id, {
      calls: [
        { tool: 'run_command', args: { command: 'python -m flask routes' }, error: 'No module named flask' },
      ],
      notes: '[FAIL]: flask is not installed',
      findings: [{ check: 'tool-errors', priority: 'P0', status: 'fail', message: 'run_command failed' }],
    });
    return { plan, model, replanner, first };
  }

  it('the prompt lists earlier redesigns that failed, with why', async () => {
    const { plan, model, replanner, first } = await afterFailedRedesign();
    const failedId = first.added[1]!.id;
    model.addTurns(
      answer({
        action: 'redesign',
        steps: [
          { description: 'Implement the endpoints with http.server (no flask)' },
          { description: 'Test' },
        ],
        dependencies: { '1': [0] },
      }),
    );
    const outcome = await replanner.replan(plan, [failedId], { tools });
    expectRedesign(outcome);
    const prompt = userPrompt(model, 1);
    expect(prompt).toContain('## Earlier redesigns that failed');
    expect(prompt).toContain('### Earlier redesign 1: replaced 5, 6, 7 after 5 failed');
    expect(prompt).toContain(`- ${first.added[0]!.id}: Create the API skeleton in src/api.py [completed]`);
    expect(prompt).toContain(
      `- ${failedId}: Implement the endpoints (depends on: ${first.added[0]!.id}) [failed] — [FAIL]: flask is not installed; P0 tool-errors: run_command failed`,
    );
    expect(prompt).toContain(
      `- ${first.added[2]!.id}: Write and run the tests (depends on: ${failedId}) [never ran]`,
    );
    await expect(prompt).toMatchFileSnapshot('./__snapshots__/earlier-redesigns-prompt.md');
  });

  it('an identical redesign (normalised) is rejected, repaired once, then given up', async () => {
    const { plan, model, replanner, first } = await afterFailedRedesign();
    const failedId = first.added[1]!.id;
    // Same steps and structure as the part of redesign 1 that failed, modulo case and spaces.
    const repeat = {
      action: 'redesign',
      steps: [{ description: '  IMPLEMENT the   endpoints. ' }, { description: 'write and run the tests' }],
      dependencies: { '0': [first.added[0]!.id], '1': [0] },
    };
    model.addTurns(answer(repeat), answer(repeat));
    const outcome = await replanner.replan(plan, [failedId], { tools });
    expectGiveUp(outcome);
    expect(outcome.reason).toBe('invalid-redesign');
    expect(outcome.drafts).toEqual([repeat, repeat]);
    expect(outcome.problems?.map((list) => list.map((p) => p.code))).toEqual([
      ['repeated-redesign'],
      ['repeated-redesign'],
    ]);
    expect(outcome.problems?.[0]?.[0]?.message).toContain('already failed');
    expect(outcome.blocked).toEqual([failedId, first.added[2]!.id]);
  });

  it('after a redesign failed, proposing the original steps again is rejected (events and memory)', async () => {
    const original = {
      action: 'redesign',
      steps: [
        { description: 'Write the API endpoints in src/api.py' },
        { description: 'Write the tests' },
        { description: 'Run the tests' },
      ],
      dependencies: { '1': [0], '2': [0] },
    };
    for (const restore of [false, true]) {
      const { plan, model, replanner, first } = await afterFailedRedesign();
      const target = restore ? Plan.fromJSON(plan.toJSON()) : plan;
      model.addTurns(answer(original), answer({ action: 'give_up', reason: 'out of ideas' }));
      const outcome = await replanner.replan(target, [first.added[1]!.id], { tools });
      expectGiveUp(outcome);
      expect(outcome.problems?.[0]?.[0]?.message).toContain(
        'the same as the steps 5, 6, 7 that earlier redesign 1 replaced',
      );
    }
  });

  it('re-proposing the original failed steps is rejected too; a different structure is accepted', async () => {
    const plan = examplePlan();
    const same = {
      action: 'redesign',
      steps: [
        { description: 'write the API endpoints in src/api.py' },
        { description: 'Write the tests' },
        { description: 'Run the tests' },
      ],
      dependencies: { '0': ['3', '4'], '1': [0], '2': [0] },
    };
    const restructured = { ...same, dependencies: { '1': [0], '2': [1] } };
    const model = new ScriptedModel({ turns: [answer(same), answer(restructured)] });
    const outcome = await createReplanner({ model }).replan(plan, ['5'], { tools });
    expectRedesign(outcome);
    expect(outcome.problems[0]?.[0]?.message).toContain('the current steps 5, 6, 7');
  });

  const repeat = {
    action: 'redesign',
    steps: [{ description: 'Implement the endpoints' }, { description: 'Write and run the tests' }],
    dependencies: { '1': [0] },
  };

  it('survives a plan restored from a snapshot (empty event log): the replanner remembers', async () => {
    const { plan, model, replanner, first } = await afterFailedRedesign();
    const restored = Plan.fromJSON(plan.toJSON());
    expect(restored.events).toHaveLength(0);
    model.addTurns(answer(repeat), answer(repeat));
    const outcome = await replanner.replan(restored, [first.added[1]!.id], { tools });
    expectGiveUp(outcome);
    expect(outcome.problems?.[0]?.[0]?.code).toBe('repeated-redesign');
    expect(userPrompt(model, 1)).toContain('### Earlier redesign 1: replaced 5, 6, 7 after 5 failed');
  });

  it('a fresh replanner takes earlier redesigns from the caller (history option)', async () => {
    const { plan, first } = await afterFailedRedesign();
    const failedId = first.added[1]!.id;
    const restored = Plan.fromJSON(plan.toJSON());
    const freshModel = new ScriptedModel({ turns: [answer(repeat), answer(repeat)] });
    const history = [
      {
        failed: ['5'],
        replaced: ['5', '6', '7'],
        steps: first.added.map((step) => ({
          id: step.id,
          description: step.description,
          dependsOn: step.dependsOn,
          status: 'not_started' as const,
        })),
      },
    ];
    const withoutHistory = createReplanner({ model: new ScriptedModel() }).buildPrompt(restored, [failedId], {
      tools,
    });
    expect(withoutHistory).not.toContain('Earlier redesigns');
    const outcome = await createReplanner({ model: freshModel }).replan(restored, [failedId], {
      tools,
      history,
    });
    expectGiveUp(outcome);
    expect(outcome.problems?.[0]?.[0]?.code).toBe('repeated-redesign');
    // Live states win over the caller's copy.
    expect(userPrompt(freshModel)).toContain(`- ${failedId}: Implement the endpoints (depends on: `);
    expect(userPrompt(freshModel)).toContain('[failed] — [FAIL]: flask is not installed');
  });
});

describe('model failures and abort', () => {
  it('malformed JSON: generateObject repairs it once, then the redesign applies', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel({
      turns: [textTurn('{"action": "redesign", "steps": ['), answer(exampleRedesign)],
    });
    const outcome = await createReplanner({ model }).replan(plan, ['5'], { tools });
    expectRedesign(outcome);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.at(-1)?.content).toContain('not valid JSON');
  });

  it('malformed JSON twice: a typed give_up (invalid-response) with the raw outputs; steps blocked', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel({
      turns: [textTurn('Sure! Here is my plan: step one…'), textTurn('{"action":"redesign","steps":"none"}')],
    });
    const outcome = await createReplanner({ model }).replan(plan, ['5'], { tools });
    expectGiveUp(outcome);
    expect(outcome.reason).toBe('invalid-response');
    expect(outcome.rawOutputs).toEqual([
      'Sure! Here is my plan: step one…',
      '{"action":"redesign","steps":"none"}',
    ]);
    expect(outcome.blocked).toEqual(['5', '6', '7']);
    expect(model.requests).toHaveLength(2);
  });

  it('retryable model error: retried by the model policy, then ReplannerError(model-error); plan unchanged', async () => {
    const plan = examplePlan();
    const before = stateOf(plan);
    const rateLimited = () => new ModelError({ code: 'rate-limited', message: '429 slow down', status: 429 });
    const model = new ScriptedModel({ turns: [errorTurn(rateLimited()), errorTurn(rateLimited())] });
    const replanner = createReplanner({ model, retry: { ...instantRetry, maxAttempts: 2 } });
    const error = await replanner.replan(plan, ['5'], { tools }).catch((e: unknown) => e);

    expect(ReplannerError.isInstance(error)).toBe(true);
    const replannerError = error as ReplannerError;
    expect(replannerError.code).toBe('model-error');
    expect(ModelError.isInstance(replannerError.cause)).toBe(true);
    expect((replannerError.cause as ModelError).code).toBe('rate-limited');
    expect(replannerError.details).toMatchObject({ modelErrorCode: 'rate-limited', isRetryable: true });
    expect(model.requests).toHaveLength(2);
    expect(stateOf(plan)).toEqual(before);
  });

  it('a retryable error followed by an answer succeeds (the model package retries)', async () => {
    const plan = examplePlan();
    const model = new ScriptedModel({
      turns: [errorTurn(new ModelError({ code: 'overloaded', message: '529' })), answer(exampleRedesign)],
    });
    const outcome = await createReplanner({ model, retry: instantRetry }).replan(plan, ['5'], { tools });
    expectRedesign(outcome);
    expect(model.requests).toHaveLength(2);
  });

  it('non-retryable model error: no retry, ReplannerError(model-error); plan unchanged', async () => {
    const plan = examplePlan();
    const before = stateOf(plan);
    const model = new ScriptedModel({
      turns: [errorTurn(new ModelError({ code: 'auth', message: 'invalid api key', status: 401 }))],
    });
    const error = await createReplanner({ model, retry: instantRetry })
      .replan(plan, ['5'], { tools })
      .catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('model-error');
    expect((error as ReplannerError).details).toMatchObject({ modelErrorCode: 'auth', isRetryable: false });
    expect(model.requests).toHaveLength(1);
    expect(stateOf(plan)).toEqual(before);
  });

  it('a model error on the repair turn is a model-error too, and the plan is unchanged', async () => {
    const plan = examplePlan();
    const before = stateOf(plan);
    const model = new ScriptedModel({
      turns: [
        answer({ action: 'redesign', steps: [], dependencies: {} }),
        errorTurn(new ModelError({ code: 'bad-request', message: 'context too long' })),
      ],
    });
    const error = await createReplanner({ model })
      .replan(plan, ['5'], { tools })
      .catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('model-error');
    expect((error as ReplannerError).details).toMatchObject({ turn: 2 });
    expect(stateOf(plan)).toEqual(before);
  });

  it('abort before the call: ReplannerError(aborted), no request, plan unchanged', async () => {
    const plan = examplePlan();
    const before = stateOf(plan);
    const model = new ScriptedModel({ turns: [answer(exampleRedesign)] });
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    const error = await createReplanner({ model })
      .replan(plan, ['5'], { tools, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('aborted');
    expect((error as ReplannerError).cause).toEqual(new Error('user cancelled'));
    expect(model.requests).toHaveLength(0);
    expect(stateOf(plan)).toEqual(before);
  });

  it('abort while the model is answering: ReplannerError(aborted) promptly, plan unchanged', async () => {
    const plan = examplePlan();
    const before = stateOf(plan);
    const model = new ScriptedModel({ turns: [answer(exampleRedesign)], latencyMs: 5_000 });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    const error = await createReplanner({ model })
      .replan(plan, ['5'], { tools, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(stateOf(plan)).toEqual(before);
  });

  it('abort after the answer arrived but before it is applied: nothing is applied', async () => {
    const plan = examplePlan();
    const before = stateOf(plan);
    const controller = new AbortController();
    const model = new ScriptedModel({
      turns: [
        () => {
          controller.abort();
          return answer(exampleRedesign);
        },
      ],
    });
    const error = await createReplanner({ model })
      .replan(plan, ['5'], { tools, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('aborted');
    expect(stateOf(plan)).toEqual(before);
  });
});

describe('bad input', () => {
  const model = new ScriptedModel();
  const replanner = createReplanner({ model });

  it.each([
    ['no failed ids', [] as StepId[], /at least one failed step/],
    ['an unknown id', ['nope'], /"nope" is not a step of plan "example-plan"/],
    ['a completed step', ['3'], /Step "3" is completed; completed steps are never replanned/],
  ])('rejects %s before calling the model, plan unchanged', async (_name, ids, message) => {
    const plan = examplePlan();
    const before = stateOf(plan);
    const error = await replanner.replan(plan, ids, { tools }).catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('invalid-input');
    expect((error as Error).message).toMatch(message);
    expect(() => replanner.buildPrompt(plan, ids, { tools })).toThrow(message);
    expect(stateOf(plan)).toEqual(before);
    expect(model.requests).toHaveLength(0);
  });

  it('rejects duplicate tool names and tools that cannot be described', async () => {
    const plan = examplePlan();
    expect(() => replanner.buildPrompt(plan, ['5'], { tools: [...exampleTools, exampleTools[0]!] })).toThrow(
      /appears twice/,
    );
    expect(() =>
      replanner.buildPrompt(plan, ['5'], {
        tools: [{ name: 'bad name!', description: 'x', input: runCommandTool.input }],
      }),
    ).toThrow(ReplannerError);
  });

  it('rejects a missing tools list', async () => {
    const error = await replanner.replan(examplePlan(), ['5'], {} as never).catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('invalid-input');
    expect((error as Error).message).toContain('options.tools must be an array');
  });

  it('rejects bad factory options', () => {
    expect(() => createReplanner({ model, maxAttempts: -1 })).toThrow(/maxAttempts must be an integer >= 0/);
    expect(() => createReplanner({ model, maxAttempts: 1.5 })).toThrow(ReplannerError);
    expect(() => createReplanner({ model, maxResultChars: 0 })).toThrow(/maxResultChars/);
    expect(() => createReplanner({} as never)).toThrow(/needs \{ model \}/);
  });

  it('apply-failed: the plan refuses (changed meanwhile) → typed error, plan unchanged', async () => {
    const plan = examplePlan();
    const model2 = new ScriptedModel({
      turns: [
        () => {
          // While the model "thinks", someone else removes the failed subgraph.
          plan.replaceSubgraph(['5'], { steps: [{ description: 'someone else fixed it' }] });
          return answer(exampleRedesign);
        },
      ],
    });
    const error = await createReplanner({ model: model2 })
      .replan(plan, ['5'], { tools })
      .catch((e: unknown) => e);
    expect(ReplannerError.isInstance(error) && error.code).toBe('apply-failed');
    expect((error as ReplannerError).details).toMatchObject({ planErrorCode: 'unknown-step' });
  });
});
