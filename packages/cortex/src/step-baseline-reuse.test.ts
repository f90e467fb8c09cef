import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import type { Protocol } from '@closedloop/verifier';
import { afterEach, describe, expect, it } from 'vitest';
import { scenarioModel, writeStep } from './__fixtures__/scenario-model';
import { createCortex } from './create-cortex';
import type { PlannerOutput } from './draft-plan';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

/**
 * A step's baseline may be the previous step's final walk of the workspace (taken moments ago),
 * but only when nothing of this process ran since: here a protocol of step `a` — code of its own —
 * writes `report.txt` after that walk, and step `b` claims it. Judged against a stale baseline, the
 * file would look created during `b` (by its own command) — a false success.
 */
describe("a step's baseline is the workspace as the step found it", { timeout: 60_000 }, () => {
  const reporter: Protocol = {
    name: 'REPORTER',
    priority: 'P1',
    layer: 1,
    async run(ctx) {
      writeFileSync(path.join(ctx.workspace, 'report.txt'), 'report\n');
      return [{ check: 'REPORTER', priority: 'P1', status: 'pass', message: 'report written' }];
    },
  };
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
        protocols: ['REPORTER'],
      },
      {
        id: 'b',
        description: 'Create report.txt',
        dependsOn: ['a'],
        requiredTools: [],
        successCriteria: [],
        protocols: [],
      },
    ],
  };

  it('a file a check of the previous step wrote is not the next step’s work', async () => {
    const ws = await createTempWorkspace();
    workspaces.push(ws);
    const model = scenarioModel({
      plans: [plan],
      steps: {
        a: writeStep('a.txt', 'A'),
        // Runs a command that writes nothing, then claims the file step a's check wrote.
        b: [
          { toolCalls: [{ name: 'run_command', arguments: { argv: ['ls'] } }] },
          {
            toolCalls: [
              {
                name: 'mark_step',
                arguments: {
                  status: 'success',
                  notes: '[SUCCESS]: wrote report.txt',
                  claims: { filesWritten: ['report.txt'] },
                },
              },
            ],
          },
        ],
      },
      replans: [{ action: 'give_up', reason: 'b did not write it' }],
    });
    const result = await createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
      verifier: { protocols: [reporter] },
    }).run('Create a.txt, then report.txt');
    expect(await ws.exists('report.txt')).toBe(true);
    const a = result.report.steps.find((step) => step.id === 'a');
    const b = result.report.steps.find((step) => step.id === 'b');
    expect(a).toMatchObject({ status: 'completed' });
    expect(b?.status).not.toBe('completed');
    expect(result.stopReason).not.toMatch(/^completed/);
  });

  it("another run's walk is never this run's baseline: what happened between runs is not the step's work", async () => {
    const ws = await createTempWorkspace();
    workspaces.push(ws);
    const cortexOf = (steps: Parameters<typeof scenarioModel>[0]['steps']) =>
      createCortex({
        model: scenarioModel({ steps, replans: [{ action: 'give_up', reason: 'not written by the step' }] }),
        tools: workspaceTools({ root: ws.root }),
        workspace: ws.root,
      });
    const first = await cortexOf({ '*': writeStep('a.txt', 'A') }).run('Create a.txt', { planning: 'never' });
    expect(first.stopReason).toBe('completed');
    // Someone else writes b.txt between the runs; the next run's step claims it after a no-op command.
    writeFileSync(path.join(ws.root, 'b.txt'), 'B\n');
    const second = await cortexOf({
      '*': [
        { toolCalls: [{ name: 'run_command', arguments: { argv: ['ls'] } }] },
        {
          toolCalls: [
            {
              name: 'mark_step',
              arguments: {
                status: 'success',
                notes: '[SUCCESS]: wrote b.txt',
                claims: { filesWritten: ['b.txt'] },
              },
            },
          ],
        },
      ],
    }).run('Create b.txt', { planning: 'never' });
    expect(second.stopReason).not.toMatch(/^completed/);
  });
});
