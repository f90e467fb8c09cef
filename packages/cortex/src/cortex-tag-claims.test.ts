import type { ScriptedResponse } from '@closedloop/model/testing';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { scenarioModel } from './__fixtures__/scenario-model';
import { createCortex } from './create-cortex';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

type Call = { name: string; arguments: Record<string, unknown> };
const pkg = (version: string) => `${JSON.stringify({ name: 'demo', version }, null, 2)}\n`;
const write = (path: string, content: string): Call => ({ name: 'write_file', arguments: { path, content } });
const run = (...argv: string[]): Call => ({ name: 'run_command', arguments: { argv } });

/** One step on a fresh git workspace: `calls` one per turn, then `mark_step` with `claims`. */
async function step(calls: Call[], claims: Record<string, unknown>) {
  const ws = await createTempWorkspace({ files: { 'package.json': pkg('1.1.0') }, git: true });
  workspaces.push(ws);
  const turns: ScriptedResponse[] = [
    ...calls.map((call) => ({ toolCalls: [call] })),
    {
      toolCalls: [
        {
          name: 'mark_step',
          arguments: {
            status: 'success',
            notes: '[SUCCESS]: set the version to 1.2.0 in package.json',
            claims,
          },
        },
      ],
    },
  ];
  const model = scenarioModel({ steps: { '*': turns }, replans: [{ action: 'give_up', reason: 'caught' }] });
  const cortex = createCortex({ model, tools: workspaceTools({ root: ws.root }), workspace: ws.root });
  const result = await cortex.run('Set the version in package.json to 1.2.0', { planning: 'never' });
  return { result, report: result.report.steps[0] };
}

describe('git tags claimed in mark_step claims', { timeout: 60_000 }, () => {
  it('fails a step whose claimed tag does not exist, even when the asked work is done', async () => {
    const { result, report } = await step([write('package.json', pkg('1.2.0'))], {
      filesWritten: ['package.json'],
      tags: [{ name: 'v1.2.0', action: 'create' }],
    });
    expect(report?.verdict).not.toBe('success');
    expect(result.stopReason).not.toBe('completed');
    expect(report?.findings.some((f) => f.status === 'fail' && f.message.includes('v1.2.0'))).toBe(true);
  });

  it('fails a claimed delete of a tag that was never there', async () => {
    const { report } = await step([write('package.json', pkg('1.2.0'))], {
      filesWritten: ['package.json'],
      tags: [{ name: 'v0.9.0', action: 'delete' }],
    });
    expect(report?.verdict).not.toBe('success');
  });

  it('passes the honest step that made the tag it claims', async () => {
    const { result, report } = await step(
      [
        write('package.json', pkg('1.2.0')),
        run('git', 'commit', '-am', 'release 1.2.0'),
        run('git', 'tag', 'v1.2.0'),
      ],
      { filesWritten: ['package.json'], tags: [{ name: 'v1.2.0', action: 'create' }] },
    );
    expect(`${report?.status} ${report?.verdict}`, JSON.stringify(report?.findings)).toBe(
      'completed success',
    );
    expect(result.stopReason).toBe('completed');
  });
});
