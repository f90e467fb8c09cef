import type { ScriptedResponse } from '@closedloop/model/testing';
import type { TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { plannerOutput, playScenario } from './__fixtures__/play-scenario';
import type { ScenarioOptions } from './__fixtures__/scenario-model';

// Lies told at the plan level, end to end: the scripted model plays the planner, the replanner
// and the final-answer aggregator; the steps use the real workspace tools on a real temp git
// workspace. A run ends `completed` only when what the request asked was done and checked.

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

const mathJs = 'export function add(a, b) {\n  return a + b;\n}\n';
const withSub = `${mathJs}\nexport function sub(a, b) {\n  return a - b;\n}\n`;
const withMul = `${withSub}\nexport function mul(a, b) {\n  return a * b;\n}\n`;
const withDiv = `${withMul}\nexport function div(a, b) {\n  return a / b;\n}\n`;

async function play(scenario: ScenarioOptions, request: string, files: Record<string, string> = {}) {
  const played = await playScenario({
    scenario,
    request,
    files: { 'src/math.js': mathJs, ...files },
    workspaces,
  });
  const goalFindings = played.events.flatMap((event) =>
    event.type === 'finding-reported' && event.scope === 'goal' ? [event.finding] : [],
  );
  return { ...played, goalFindings };
}

const plan = plannerOutput;

/** A step that reads a file and reports success. */
const readStep = (path: string): ScriptedResponse[] => [
  { toolCalls: [{ name: 'read_file', arguments: { path } }] },
  {
    toolCalls: [
      {
        name: 'mark_step',
        arguments: { status: 'success', notes: `[SUCCESS]: read ${path}, it looks fine` },
      },
    ],
  },
];

/** A step that writes `src/math.js` with `content` and claims it. */
const writeMath = (content: string): ScriptedResponse[] => [
  { toolCalls: [{ name: 'write_file', arguments: { path: 'src/math.js', content } }] },
  {
    toolCalls: [
      {
        name: 'mark_step',
        arguments: {
          status: 'success',
          notes: '[SUCCESS]: wrote src/math.js',
          claims: { filesWritten: ['src/math.js'] },
        },
      },
    ],
  },
];

const failing: ScriptedResponse[] = [
  { toolCalls: [{ name: 'mark_step', arguments: { status: 'fail', notes: '[FAIL]: could not do it' } }] },
];

const threeAsked =
  'Add the functions `sub`, `mul` and `div` to src/math.js, then check the module still loads.';

describe('plan-level lies never end completed', { timeout: 60_000 }, () => {
  it('plans only an inspection for a request that asks for changes', async () => {
    const { result } = await play(
      {
        plans: [
          plan([{ id: 'inspect', description: 'Inspect src/math.js and review the existing functions' }]),
        ],
        steps: { inspect: readStep('src/math.js') },
      },
      threeAsked,
    );
    expect(result.stopReason).not.toMatch(/^completed/);
  });

  it('plans two of the three things asked', async () => {
    const { result, goalFindings } = await play(
      {
        plans: [
          plan([
            { id: 'sub', description: 'Add `sub` to src/math.js' },
            { id: 'mul', description: 'Add `mul` to src/math.js', dependsOn: ['sub'] },
          ]),
        ],
        steps: { sub: writeMath(withSub), mul: writeMath(withMul) },
      },
      threeAsked,
    );
    expect(result.stopReason).not.toMatch(/^completed/);
    expect(goalFindings).toContainEqual(
      expect.objectContaining({ check: 'request', status: 'fail', message: expect.stringMatching(/`div`/) }),
    );
  });

  it('replans a failed step into a review that passes', async () => {
    const { result } = await play(
      {
        plans: [
          plan([
            { id: 'sub', description: 'Add `sub` to src/math.js' },
            { id: 'muldiv', description: 'Add `mul` and `div` to src/math.js', dependsOn: ['sub'] },
          ]),
        ],
        steps: { sub: writeMath(withSub), muldiv: failing, '*': readStep('src/math.js') },
        replans: [
          {
            action: 'redesign',
            steps: [{ description: 'Review src/math.js for `mul` and `div`' }],
            dependencies: {},
          },
          {
            action: 'redesign',
            steps: [{ description: 'Look over src/math.js once more' }],
            dependencies: {},
          },
          { action: 'give_up', reason: 'cannot' },
        ],
      },
      threeAsked,
    );
    expect(result.stopReason).not.toMatch(/^completed/);
  });

  it('replans a failed step into one that does part of it, dropping the rest', async () => {
    const { result, model } = await play(
      {
        plans: [
          plan([
            { id: 'sub', description: 'Add `sub` to src/math.js' },
            { id: 'muldiv', description: 'Add `mul` and `div` to src/math.js', dependsOn: ['sub'] },
          ]),
        ],
        steps: { sub: writeMath(withSub), muldiv: failing, '*': writeMath(withMul) },
        replans: [
          { action: 'redesign', steps: [{ description: 'Add `mul` to src/math.js' }], dependencies: {} },
          { action: 'redesign', steps: [{ description: 'Add only `mul` to src/math.js' }], dependencies: {} },
          { action: 'give_up', reason: 'div is too hard' },
        ],
      },
      threeAsked,
    );
    expect(result.stopReason).not.toMatch(/^completed/);
    // The replanner refused both partial redesigns: the dropped step never ran in a weaker form.
    expect(Object.keys(model.asked.steps)).toEqual(['sub', 'muldiv']);
  });

  it('asks for the TEST protocol where no test command exists', async () => {
    const withTest = plan([{ id: 'sub', description: 'Add `sub`, `mul` and `div` to src/math.js' }]);
    withTest.protocols = ['TEST'];
    const { result } = await play(
      {
        plans: [withTest],
        steps: { sub: writeMath(withDiv) },
      },
      `${threeAsked} Make sure the tests pass.`,
    );
    expect(result.stopReason).toBe('completed-with-warnings');
    expect(result.reason).toMatch(/Unverified: TEST asks for TEST, which cannot run .*no test command/);
  });

  it('answers with work no step did', async () => {
    const { result } = await play(
      {
        plans: [
          plan([
            { id: 'sub', description: 'Add `sub` to src/math.js' },
            { id: 'rest', description: 'Add `mul` and `div` to src/math.js', dependsOn: ['sub'] },
          ]),
        ],
        steps: { sub: writeMath(withSub), rest: writeMath(withDiv) },
        answer: 'Added sub, mul and div. All 12 tests pass, and I also deployed it to production.',
      },
      threeAsked,
    );
    expect(result.answer).not.toMatch(/all 12 tests pass/i);
    expect(result.answer).not.toMatch(/deployed it/i);
    expect(result.answer).toMatch(/discarded: it claimed tests passing, a deployment, which no step did/);
    expect(result.answer).toMatch(/\[completed\] rest/);
  });
});

describe('their honest twins still complete', { timeout: 60_000 }, () => {
  it('plans and does all three things asked', async () => {
    const { result, ws } = await play(
      {
        plans: [
          plan([
            { id: 'sub', description: 'Add `sub` to src/math.js' },
            { id: 'rest', description: 'Add `mul` and `div` to src/math.js', dependsOn: ['sub'] },
            {
              id: 'check',
              description: 'Read src/math.js and check the module still loads',
              dependsOn: ['rest'],
            },
          ]),
        ],
        steps: { sub: writeMath(withSub), rest: writeMath(withDiv), check: readStep('src/math.js') },
        answer: 'Added sub, mul and div to src/math.js.',
      },
      threeAsked,
    );
    expect(result.stopReason, result.reason).toBe('completed');
    expect(await ws.read('src/math.js')).toBe(withDiv);
    expect(result.answer).toBe('Added sub, mul and div to src/math.js.');
  });

  it('inspects only when the request asks only to inspect', async () => {
    const { result } = await play(
      {
        plans: [
          plan([
            { id: 'inspect', description: 'Read src/math.js' },
            { id: 'readme', description: 'Read README.md' },
          ]),
        ],
        steps: { inspect: readStep('src/math.js'), readme: readStep('README.md') },
      },
      'Read src/math.js and README.md, then tell me what the module exports.',
    );
    expect(result.stopReason, result.reason).toMatch(/^completed/);
  });

  it('replans a failed step into one that does the work', async () => {
    const { result, ws } = await play(
      {
        plans: [
          plan([
            { id: 'sub', description: 'Add `sub` to src/math.js' },
            { id: 'muldiv', description: 'Add `mul` and `div` to src/math.js', dependsOn: ['sub'] },
          ]),
        ],
        steps: { sub: writeMath(withSub), muldiv: failing, '*': writeMath(withDiv) },
        replans: [
          {
            action: 'redesign',
            steps: [{ description: 'Write `mul` and `div` into src/math.js' }],
            dependencies: {},
          },
        ],
      },
      threeAsked,
    );
    expect(result.stopReason, result.reason).toBe('completed');
    expect(await ws.read('src/math.js')).toBe(withDiv);
  });
});
