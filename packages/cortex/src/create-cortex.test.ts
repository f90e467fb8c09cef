import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { scenarioModel, writeStep } from './__fixtures__/scenario-model';
import { createCortex } from './create-cortex';
import type { RunEvent } from './run-events';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});
async function workspace(files: Record<string, string> = {}) {
  const ws = await createTempWorkspace({ files, git: true });
  workspaces.push(ws);
  return ws;
}

describe('createCortex: a whole run', () => {
  it('plans, runs, verifies and completes', async () => {
    const ws = await workspace({ 'README.md': '# x\n' });
    const model = scenarioModel({
      plans: [
        {
          title: 'two files',
          successCriteria: [],
          protocols: [],
          steps: [
            {
              id: 'a',
              description: 'write a.txt',
              dependsOn: [],
              requiredTools: ['write_file'],
              successCriteria: [],
              protocols: [],
            },
            {
              id: 'b',
              description: 'write b.txt',
              dependsOn: [],
              requiredTools: [],
              successCriteria: [],
              protocols: [],
            },
            {
              id: 'c',
              description: 'write c.txt',
              dependsOn: ['a', 'b'],
              requiredTools: [],
              successCriteria: [],
              protocols: [],
            },
          ],
        },
      ],
      steps: { a: writeStep('a.txt', 'A'), b: writeStep('b.txt', 'B'), c: writeStep('c.txt', 'C') },
      answer: 'Wrote a, b and c.',
    });
    const events: RunEvent[] = [];
    const cortex = createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
      onEvent: (event) => events.push(event),
    });
    const result = await cortex.run('Write a.txt, b.txt, then c.txt');
    expect(result.report.error).toBeUndefined();
    expect(result.stopReason).toBe('completed');
    expect(result.answer).toBe('Wrote a, b and c.');
    expect(await ws.read('c.txt')).toBe('C');
    expect(result.report.steps.map((step) => [step.id, step.status, step.runs])).toEqual([
      ['a', 'completed', 1],
      ['b', 'completed', 1],
      ['c', 'completed', 1],
    ]);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    expect(events.at(0)?.type).toBe('run-started');
    expect(events.at(-1)?.type).toBe('run-finished');
    expect(new Set(events.map((event) => event.runId))).toEqual(new Set([result.runId]));
  });
});
