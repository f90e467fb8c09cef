import { ScriptedModel } from '@closedloop/model/testing';
import { describe, expect, it } from 'vitest';
import { CortexError } from './cortex-error';
import { directPlan, draftPlan } from './draft-plan';

const tools = [{ name: 'write_file', description: 'Writes a file.\nMore text.', inputSchema: {} }];
const step = (id: string, dependsOn: string[] = [], extra: object = {}) => ({
  id,
  description: `do ${id}`,
  dependsOn,
  requiredTools: [],
  successCriteria: [],
  protocols: [],
  ...extra,
});
const answer = (steps: object[], extra: object = {}) => ({
  text: JSON.stringify({ title: 't', successCriteria: ['tests pass'], protocols: [], steps, ...extra }),
});

describe('draftPlan', () => {
  it('asks once with the request, tools and protocols, and builds a validated plan', async () => {
    const model = new ScriptedModel({
      turns: [answer([step('a'), step('b', ['a'], { requiredTools: ['write_file'], protocols: ['TEST'] })])],
    });
    const result = await draftPlan({ model, request: 'Build it', tools, protocols: ['TEST'] });
    expect(result.attempts).toBe(1);
    expect(result.plan.stepIds).toEqual(['a', 'b']);
    expect(result.plan.goal).toBe('Build it');
    expect(result.output.successCriteria).toEqual(['tests pass']);
    const prompt = model.requests[0]!.messages.at(-1)!.content;
    expect(prompt).toContain('- write_file: Writes a file.');
    expect(prompt).toContain('- TEST');
  });

  it('sends the exact problems back once (dangling dependency, unknown tool, unknown protocol)', async () => {
    const model = new ScriptedModel({
      turns: [
        answer([step('a', ['ghost'])]),
        answer([step('a', [], { requiredTools: ['teleport'] })], { protocols: ['MAGIC'] }),
        answer([step('a')]),
      ],
    });
    await expect(draftPlan({ model, request: 'r', tools })).rejects.toSatisfy((error: unknown) => {
      if (!CortexError.isInstance(error) || error.code !== 'invalid-plan') return false;
      const problems = error.details.problems as string[];
      return (
        problems.some((problem) => problem.includes('teleport')) &&
        problems.some((problem) => problem.includes('MAGIC'))
      );
    });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.at(-1)!.content).toContain('dangling-dependency');
  });

  it('a duplicate id is repaired by the second answer', async () => {
    const model = new ScriptedModel({
      turns: [answer([step('a'), step('a')]), answer([step('a'), step('b')])],
    });
    const result = await draftPlan({ model, request: 'r', tools });
    expect(result.attempts).toBe(2);
    expect(model.requests[1]!.messages.at(-1)!.content).toContain('duplicate-step');
  });

  it('directPlan is one step holding the request', () => {
    const plan = directPlan('Create hello.txt');
    expect(plan.steps).toMatchObject([
      { id: 'task', description: 'Create hello.txt', status: 'not_started' },
    ]);
  });
});
