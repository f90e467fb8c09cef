import type { TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { plannerOutput, playScenario } from './__fixtures__/play-scenario';
import { failStep, type ScenarioOptions, writeStep } from './__fixtures__/scenario-model';

// The replan budget, counted at its edge: a run never starts one more replanner model call than
// `replanner.maxAttempts` redesigns of a lineage, nor one more goal repair than
// `maxIterations - 1`, however many answers the model would still give.

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

async function play(
  scenario: ScenarioOptions,
  request: string,
  limits: { maxAttempts?: number; maxIterations?: number },
) {
  const played = await playScenario({
    scenario,
    request,
    workspaces,
    cortex: {
      ...(limits.maxAttempts !== undefined ? { replanner: { maxAttempts: limits.maxAttempts } } : {}),
      ...(limits.maxIterations !== undefined ? { maxIterations: limits.maxIterations } : {}),
    },
  });
  const requested = played.events.flatMap((event) => (event.type === 'replan-requested' ? [event] : []));
  return { ...played, requested };
}

const plan = plannerOutput;

/** More redesigns than any budget here allows, each a new attempt at the same work. */
const redesigns = Array.from({ length: 6 }, (_, index) => ({
  action: 'redesign' as const,
  steps: [{ description: `Write src/a.js exporting \`a\` (attempt ${index + 2})` }],
  dependencies: {},
}));

const request = 'Write src/a.js exporting `a`, then check that README.md still describes the module.';

describe('the replan budget', { timeout: 60_000 }, () => {
  it.each([1, 2, 3])('asks the replanner model %i time(s) for a step that fails every time', async (max) => {
    const { result, model, requested } = await play(
      {
        plans: [plan([{ id: 'a', description: 'Write src/a.js exporting `a`' }])],
        steps: { '*': failStep('cannot write it') },
        replans: redesigns,
      },
      request,
      { maxAttempts: max },
    );
    expect(result.stopReason).not.toMatch(/^completed/);
    expect(model.asked.replanner).toBe(max);
    // The last failure reaches the replanner only to be blocked without a model call.
    expect(requested.filter((event) => event.reason === 'step-failed')).toHaveLength(max + 1);
  });

  it('asks for no redesign at all with a budget of 0', async () => {
    const { model } = await play(
      {
        plans: [plan([{ id: 'a', description: 'Write src/a.js exporting `a`' }])],
        steps: { '*': failStep('cannot write it') },
        replans: redesigns,
      },
      request,
      { maxAttempts: 0 },
    );
    expect(model.asked.replanner).toBe(0);
  });

  it.each([1, 2])(
    'repairs a goal that keeps failing maxIterations - 1 times (maxIterations %i)',
    async (maxIterations) => {
      let round = 0;
      const { result, requested } = await play(
        {
          plans: [plan([{ id: 'a', description: 'Create src/a.js' }])],
          // Each step rewrites src/a.js and never creates docs/a.md: the goal check keeps failing.
          steps: {
            '*': (turn) =>
              writeStep('src/a.js', `export const a = ${turn === 0 ? ++round : round};\n`)[turn]!,
          },
          replans: Array.from({ length: 6 }, (_, index) => ({
            action: 'redesign' as const,
            steps: [{ description: `Update src/a.js as docs/a.md will describe it (repair ${index + 1})` }],
            dependencies: {},
          })),
        },
        'Create src/a.js and docs/a.md, then tell me what the module exports.',
        { maxIterations },
      );
      expect(result.stopReason, result.reason).toBe('max-iterations');
      expect(requested.filter((event) => event.reason === 'goal-repair')).toHaveLength(maxIterations - 1);
    },
  );
});
