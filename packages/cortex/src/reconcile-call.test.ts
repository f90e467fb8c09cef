import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createToolRegistry, workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotBeforeDispatch } from './dispatch-snapshot';
import { reconcileUncertainCall } from './reconcile-call';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({ files: { 'log.txt': '# log\n' } });
});
afterEach(async () => {
  await ws.cleanup();
});

/** An interrupted `run_command` of `script`, dispatched now, judged after `meanwhile` ran. */
async function interrupted(script: string, meanwhile: () => Promise<void>) {
  const tools = workspaceTools({ root: ws.root, commands: { allow: ['sh'] } });
  const runCommand = tools.find((tool) => tool.name === 'run_command')!;
  const args = { argv: ['sh', '-c', script] };
  const before = snapshotBeforeDispatch({ workspace: ws.root, tool: runCommand, input: args });
  await meanwhile();
  const asked: string[] = [];
  const settled = await reconcileUncertainCall({
    stepId: 's',
    call: { callId: 'c1', tool: 'run_command', args, status: 'pending' } as never,
    before,
    registry: createToolRegistry(tools),
    workspace: ws.root,
    policy: 'ask',
    ask: async (question) => {
      asked.push(question.reason ?? '');
      return { approved: true };
    },
  });
  return { settled, asked, before };
}

describe('an interrupted shell that writes a literal to one file is judged by that file', () => {
  const file = (name: string) => readFile(path.join(ws.root, name), 'utf8').catch(() => null);

  it('killed after it created the file and before it wrote (an empty file): the write is finished, once, without a question', async () => {
    const { settled, asked, before } = await interrupted('echo s >> cmd.log', () =>
      writeFile(path.join(ws.root, 'cmd.log'), ''),
    );
    expect(before).toMatchObject({ kind: 'file', path: 'cmd.log', state: { type: 'missing' } });
    expect(settled).toMatchObject({ outcome: 'applied', action: 'record', status: 'success' });
    expect(asked).toEqual([]);
    expect(await file('cmd.log')).toBe('s\n');
  });

  it('its effect already there: recorded as done, not run again', async () => {
    const { settled, asked } = await interrupted("echo '- e' >> log.txt", () =>
      writeFile(path.join(ws.root, 'log.txt'), '# log\n- e\n'),
    );
    expect(settled).toMatchObject({ outcome: 'applied', action: 'record', status: 'success' });
    expect(asked).toEqual([]);
    expect(await file('log.txt')).toBe('# log\n- e\n');
  });

  it('the file as it was: run again', async () => {
    const { settled } = await interrupted("echo '- e' >> log.txt", async () => {});
    expect(settled).toMatchObject({ outcome: 'not-applied', action: 'rerun' });
    expect(await file('log.txt')).toBe('# log\n');
  });

  it('the file changed some other way: an error the model sees, nothing run again or accepted', async () => {
    const { settled } = await interrupted("echo '- e' >> log.txt", () =>
      writeFile(path.join(ws.root, 'log.txt'), 'someone else\n'),
    );
    expect(settled).toMatchObject({ outcome: 'conflicting', action: 'record', status: 'error' });
  });

  it('any other command that changed the workspace is still a question for the human (accept it as done)', async () => {
    const { settled, asked, before } = await interrupted('echo $0 >> cmd.log', () =>
      writeFile(path.join(ws.root, 'cmd.log'), ''),
    );
    expect(before).toMatchObject({ kind: 'workspace' });
    expect(asked).toEqual([expect.stringContaining('Approve to accept it as done')]);
    expect(settled).toMatchObject({ outcome: 'accepted' });
  });
});
