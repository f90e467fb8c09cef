import { ScriptedModel, textTurn, toolCallTurn } from '@closedloop/model/testing';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace } from '@closedloop/tools/testing';
import { createToolCallGuard } from '@closedloop/verifier';
import { describe, expect, it } from 'vitest';
import { inProgressPlan } from './__fixtures__/step-plan';
import { executeStep } from './execute-step';

describe('executeStep with the verifier’s createToolCallGuard', () => {
  it('self-verification NO denies the destructive call; the model regenerates and YES lets it run', async () => {
    await using ws = await createTempWorkspace({ files: { 'old.log': 'x', 'keep.txt': 'precious' } });
    const guardModel = new ScriptedModel({
      turns: [
        textTurn('NO. The user asked to delete old.log, not keep.txt.'),
        textTurn('YES, old.log matches.'),
      ],
    });
    const guard = createToolCallGuard({ model: guardModel, workspace: ws.root });
    const { plan, stepId } = inProgressPlan({
      steps: [{ id: 'clean', description: 'Delete old.log.' }],
    });
    const model = new ScriptedModel({
      turns: [
        toolCallTurn('delete_file', { path: 'keep.txt' }),
        toolCallTurn('delete_file', { path: 'old.log' }),
        toolCallTurn('mark_step', {
          status: 'success',
          notes: 'deleted old.log',
          claims: { filesDeleted: ['old.log'] },
        }),
      ],
    });
    const result = await executeStep(plan, stepId, {
      model,
      tools: workspaceTools({ root: ws.root }),
      guard,
    });
    expect(result.stopReason).toBe('marked');
    expect(await ws.exists('keep.txt')).toBe(true);
    expect(await ws.exists('old.log')).toBe(false);
    const denied = result.messages.find((message) => message.role === 'tool' && message.isError);
    expect(denied?.content).toContain('denied');
    expect(guardModel.requests[0]!.messages.at(-1)!.content).toContain('Delete old.log.');
    expect(plan.step(stepId).ledger.map((call) => `${call.tool}:${call.status}`)).toEqual([
      'delete_file:error',
      'delete_file:success',
      'mark_step:success',
    ]);
  });
});
