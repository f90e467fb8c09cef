import { ModelError } from '@closedloop/model';
import { ScriptedModel } from '@closedloop/model/testing';
import { Plan } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { aggregateAnswer, fallbackAnswer, unsupportedAnswerClaims } from './aggregate-answer';

function finishedPlan(): Plan {
  const plan = Plan.create({
    goal: 'g',
    steps: [
      { id: 'a', description: 'first' },
      { id: 'b', description: 'second', dependsOn: ['a'] },
    ],
  });
  plan.markStep('a', { status: 'in_progress' });
  plan.markStep('a', { status: 'completed', output: 'A is done' });
  plan.recordVerification('a', { verdict: 'unverified', unverified: true });
  plan.markStep('b', { status: 'blocked', notes: '[FAIL]: no access' });
  return plan;
}

describe('aggregateAnswer (the final answer over every step result)', () => {
  it('asks the model with every step status, output and UNVERIFIED flag', async () => {
    const model = new ScriptedModel({ turns: [{ text: ' Summary. ' }] });
    const result = await aggregateAnswer({
      model,
      request: 'do it',
      plan: finishedPlan(),
      stopReason: 'blocked',
      reason: 'b is blocked',
    });
    expect(result).toMatchObject({ answer: 'Summary.', source: 'model' });
    const prompt = model.requests[0]!.messages[1]!.content;
    expect(prompt).toContain('blocked: b is blocked');
    expect(prompt).toContain('[completed, UNVERIFIED] a: first');
    expect(prompt).toContain('A is done');
    expect(prompt).toContain('[blocked] b: second');
  });

  it('falls back to a deterministic text when the call fails or answers nothing', async () => {
    const failing = new ScriptedModel({
      turns: [{ error: new ModelError({ code: 'auth', message: 'bad key' }) }],
    });
    const failed = await aggregateAnswer({
      model: failing,
      request: 'r',
      plan: finishedPlan(),
      stopReason: 'blocked',
      reason: 'x',
    });
    expect(failed.source).toBe('fallback');
    expect(failed.error).toContain('bad key');
    expect(failed.answer).toBe(fallbackAnswer({ plan: finishedPlan(), stopReason: 'blocked', reason: 'x' }));
    const empty = await aggregateAnswer({
      model: new ScriptedModel({ turns: [{ text: '  ' }] }),
      request: 'r',
      plan: finishedPlan(),
      stopReason: 'blocked',
      reason: 'x',
    });
    expect(empty.source).toBe('fallback');
  });

  it('the fallback names the stop reason and each step', () => {
    const text = fallbackAnswer({ plan: finishedPlan(), stopReason: 'blocked', reason: 'b is blocked' });
    expect(text.split('\n')[0]).toBe('Run stopped: blocked — b is blocked');
    expect(text).toContain('- [completed, UNVERIFIED] a: first\n  A is done');
    expect(text).toContain('- [blocked] b: second\n  no access');
    expect(fallbackAnswer({ plan: undefined, stopReason: 'failed', reason: 'no plan' })).toBe(
      'Run stopped: failed — no plan',
    );
  });
});

describe('unsupportedAnswerClaims', () => {
  /** A completed one-step plan whose ledger holds one successful call. */
  function ranPlan(tool: string, args: unknown, result: string): Plan {
    const plan = Plan.create({ goal: 'g', steps: [{ id: 'a', description: 'do a' }] });
    plan.markStep('a', { status: 'in_progress' });
    plan.recordToolCall('a', { callId: 'c1', tool, args });
    plan.recordToolResult('a', { callId: 'c1', tool, status: 'success', result });
    plan.markStep('a', { status: 'completed', notes: '[SUCCESS]: done' });
    return plan;
  }
  const wrote = () => ranPlan('write_file', { path: 'src/a.js', content: 'x' }, 'wrote src/a.js');

  it('names tests passing, deployments, releases and pushes no call made', () => {
    expect(
      unsupportedAnswerClaims(
        'All 12 tests pass. I also deployed it, published v2 and pushed to main.',
        wrote(),
      ),
    ).toEqual(['tests passing', 'a deployment', 'a release or publish', 'a push']);
  });

  it('accepts tests passing that a test run or the goal TEST check backs, but not a count the run never showed', () => {
    const ran = ranPlan('run_command', { argv: ['npm', 'test'] }, 'exit code 0\n# pass 3\n# fail 0');
    expect(unsupportedAnswerClaims('All tests pass.', ran)).toEqual([]);
    expect(unsupportedAnswerClaims('All 3 tests pass.', ran)).toEqual([]);
    expect(unsupportedAnswerClaims('All 12 tests pass.', ran)).toEqual(['tests passing']);
    expect(unsupportedAnswerClaims('The tests pass.', wrote(), ['TEST'])).toEqual([]);
  });

  it('is empty for an answer that claims only what the steps did', () => {
    expect(unsupportedAnswerClaims('Added `sub` to src/a.js. No tests were run.', wrote())).toEqual([]);
    const deployed = ranPlan('run_command', { argv: ['npm', 'run', 'deploy'] }, 'exit code 0');
    expect(unsupportedAnswerClaims('Deployed it to staging.', deployed)).toEqual([]);
  });
});
