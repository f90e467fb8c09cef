import { describe, expect, it, vi } from 'vitest';
import { exampleDag, tickingClock } from './__fixtures__/example-dag';
import { Plan } from './plan';
import { PlanError, type PlanErrorCode } from './plan-error';
import type { PlanEvent } from './plan-events';
import { type StepId, type StepStatus, stepStatusSchema } from './schema';
import { stepTransitions } from './step-transitions';

function expectPlanError<Code extends PlanErrorCode>(run: () => unknown, code: Code): PlanError<Code> {
  try {
    run();
  } catch (error) {
    if (!PlanError.isInstance(error)) throw error;
    expect(error.code).toBe(code);
    if (!error.hasCode(code)) throw error;
    return error;
  }
  throw new Error(`expected PlanError(${code}), nothing was thrown`);
}

function examplePlan(): Plan {
  return Plan.create(exampleDag, { id: 'plan-1', clock: tickingClock() });
}

/** Runs a step to completion. */
function complete(plan: Plan, ...ids: StepId[]): void {
  for (const id of ids) {
    plan.markStep(id, { status: 'in_progress' });
    plan.markStep(id, { status: 'completed', notes: '[SUCCESS]: done' });
  }
}

/** Completes everything upstream of `api` and starts `api` (step 5 of the example DAG). */
function startApi(plan: Plan): Plan {
  complete(plan, 'analyze', 'scaffold', 'config', 'models', 'db');
  plan.markStep('api', { status: 'in_progress' });
  return plan;
}

/** Every id comes after all of its dependencies within the list. */
function expectTopological(plan: Plan, ids: StepId[]): void {
  const position = new Map(ids.map((id, index) => [id, index]));
  for (const id of ids) {
    for (const dep of plan.step(id).dependsOn) {
      if (position.has(dep)) expect(position.get(dep)!).toBeLessThan(position.get(id)!);
    }
  }
}

describe('Plan.create', () => {
  it('builds the plan, emits plan-created and starts with the roots ready', () => {
    const plan = examplePlan();
    expect(plan.id).toBe('plan-1');
    expect(plan.title).toBe('REST API');
    expect(plan.goal).toBe('Build a REST API with tests');
    expect(plan.stepIds).toEqual(exampleDag.steps.map((step) => step.id));
    expect(plan.readySteps()).toEqual(['analyze']);
    expect(plan.events).toHaveLength(1);
    expect(plan.events[0]).toMatchObject({ type: 'plan-created', planId: 'plan-1', seq: 0, at: 1000 });
    expect(plan.step('api')).toMatchObject({
      status: 'not_started',
      notes: '',
      ledger: [],
      replanAttempts: 0,
    });
  });

  it('defaults the id to a UUID and the clock to Date.now', () => {
    const before = Date.now();
    const plan = Plan.create({ steps: [{ id: 'a', description: 'A' }] });
    expect(plan.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(plan.events[0]!.at).toBeGreaterThanOrEqual(before);
    expect(Plan.create({ id: 'from-input', steps: [] }).id).toBe('from-input');
  });

  it('rejects malformed input, duplicates, dangling ids and cycles', () => {
    expectPlanError(() => Plan.create({ steps: [{ id: '', description: 'x' }] }), 'invalid-plan');
    expectPlanError(() => Plan.create({ steps: 'nope' } as never), 'invalid-plan');
    expectPlanError(
      () =>
        Plan.create({
          steps: [
            { id: 'a', description: 'A' },
            { id: 'a', description: 'again' },
          ],
        }),
      'duplicate-step',
    );
    const dangling = expectPlanError(
      () => Plan.create({ steps: [{ id: 'a', description: 'A', dependsOn: ['ghost'] }] }),
      'dangling-dependency',
    );
    expect(dangling.details).toEqual({ stepId: 'a', dependency: 'ghost' });
    const cycle = expectPlanError(
      () =>
        Plan.create({
          steps: [
            { id: 'a', description: 'A', dependsOn: ['c'] },
            { id: 'b', description: 'B', dependsOn: ['a'] },
            { id: 'c', description: 'C', dependsOn: ['b'] },
            { id: 'd', description: 'D' },
          ],
        }),
      'cycle',
    );
    const path = cycle.details.cycle as string[];
    expect(path[0]).toBe(path.at(-1));
    expect(new Set(path)).toEqual(new Set(['a', 'b', 'c']));
    expectPlanError(() => Plan.create({ steps: [{ id: 'a', description: 'A', dependsOn: ['a'] }] }), 'cycle');
  });

  it('drops a dependency listed twice', () => {
    const plan = Plan.create({
      steps: [
        { id: 'a', description: 'A' },
        { id: 'b', description: 'B', dependsOn: ['a', 'a'] },
      ],
    });
    expect(plan.step('b').dependsOn).toEqual(['a']);
    complete(plan, 'a');
    expect(plan.readySteps()).toEqual(['b']);
  });
});

describe('queries', () => {
  it('step() and has()', () => {
    const plan = examplePlan();
    expect(plan.has('api')).toBe(true);
    expect(plan.has('nope')).toBe(false);
    expect(plan.step('api').title).toBe('Write API endpoints');
    expectPlanError(() => plan.step('nope'), 'unknown-step');
  });

  it('readStep() reads the live step without a copy', () => {
    const plan = examplePlan();
    const live = plan.readStep('api');
    expect(live).toEqual(plan.step('api'));
    expect(plan.readStep('api')).toBe(live); // no copy
    plan.markStep('analyze', { status: 'in_progress' });
    const call = plan.recordToolCall('analyze', { tool: 'read_file', args: { path: 'README.md' } });
    expect(plan.readStep('analyze').ledger.map((entry) => entry.callId)).toEqual([call.callId]);
    expect(plan.readStep('analyze').status).toBe('in_progress');
    expectPlanError(() => plan.readStep('nope'), 'unknown-step');
  });

  it('status() and idsWithStatus() read statuses without copying steps', () => {
    const plan = examplePlan();
    complete(plan, 'analyze', 'config');
    plan.markStep('scaffold', { status: 'in_progress' });
    expect(plan.status('analyze')).toBe('completed');
    expect(plan.status('scaffold')).toBe('in_progress');
    expect(plan.status('api')).toBe('not_started');
    expectPlanError(() => plan.status('nope'), 'unknown-step');
    expect(plan.idsWithStatus('completed')).toEqual(['analyze', 'config']);
    expect(plan.idsWithStatus('in_progress')).toEqual(['scaffold']);
    expect(plan.idsWithStatus('failed')).toEqual([]);
    for (const status of stepStatusSchema.options) {
      expect(plan.idsWithStatus(status)).toEqual(
        plan.steps.filter((step) => step.status === status).map((step) => step.id),
      );
    }
    expect(plan.idsWithStatus(['completed', 'in_progress'])).toEqual(['analyze', 'scaffold', 'config']);
    expect(plan.idsWithStatus(['failed', 'blocked'])).toEqual([]);
    expect(plan.idsWithStatus([])).toEqual([]);
    expectPlanError(() => plan.idsWithStatus('done' as StepStatus), 'invalid-argument');
    expectPlanError(() => plan.idsWithStatus(['completed', 'done' as StepStatus]), 'invalid-argument');
    plan.resetStep('scaffold', { reason: 'resume' });
    expect(plan.status('scaffold')).toBe('not_started');
  });

  it('returns copies: mutating them does not touch the plan', () => {
    const plan = examplePlan();
    const step = plan.step('api');
    step.status = 'completed';
    step.dependsOn.push('x');
    plan.steps[0]!.notes = 'hacked';
    expect(plan.step('api').status).toBe('not_started');
    expect(plan.step('api').dependsOn).toEqual(['models', 'db']);
    expect(plan.step('analyze').notes).toBe('');
  });

  it('downstreamOf: direct dependency', () => {
    const plan = examplePlan();
    expect(plan.downstreamOf('api')).toEqual(['write-tests', 'run-tests']);
    expect(plan.downstreamOf('run-tests')).toEqual([]);
  });

  it('downstreamOf: indirect dependency, topological order', () => {
    const plan = examplePlan();
    const down = plan.downstreamOf('scaffold');
    expect(new Set(down)).toEqual(new Set(['models', 'api', 'write-tests', 'run-tests']));
    expectTopological(plan, down);
    expect(down[0]).toBe('models');
  });

  it('downstreamOf: complex DAG, several inputs, inputs excluded', () => {
    const plan = examplePlan();
    const all = plan.downstreamOf('analyze');
    expect(new Set(all)).toEqual(new Set(plan.stepIds.filter((id) => id !== 'analyze')));
    expectTopological(plan, all);
    const fromTwo = plan.downstreamOf(['models', 'config']);
    expect(new Set(fromTwo)).toEqual(new Set(['db', 'api', 'write-tests', 'run-tests']));
    expectTopological(plan, fromTwo);
    // An input downstream of another input is still excluded.
    expect(plan.downstreamOf(['scaffold', 'models'])).not.toContain('models');
    expectPlanError(() => plan.downstreamOf('ghost'), 'unknown-step');
  });

  it('upstreamOf: transitive, dependencies first', () => {
    const plan = examplePlan();
    const up = plan.upstreamOf('api');
    expect(new Set(up)).toEqual(new Set(['analyze', 'scaffold', 'config', 'models', 'db']));
    expect(up[0]).toBe('analyze');
    expectTopological(plan, up);
    expect(plan.upstreamOf('analyze')).toEqual([]);
    expect(new Set(plan.upstreamOf(['write-tests', 'run-tests']))).toEqual(
      new Set(['analyze', 'scaffold', 'config', 'models', 'db', 'api']),
    );
  });

  it('readySteps follows completions, in display order, and counts/isSettled agree', () => {
    const plan = examplePlan();
    complete(plan, 'analyze');
    expect(plan.readySteps()).toEqual(['scaffold', 'config']);
    complete(plan, 'config');
    expect(plan.readySteps()).toEqual(['scaffold', 'db']);
    plan.markStep('scaffold', { status: 'in_progress' });
    expect(plan.readySteps()).toEqual(['db']);
    expect(plan.isSettled()).toBe(false);
    expect(plan.counts()).toEqual({
      not_started: 5,
      in_progress: 1,
      completed: 2,
      failed: 0,
      blocked: 0,
      skipped: 0,
    });
    complete(plan, 'db');
    plan.markStep('scaffold', { status: 'completed' });
    complete(plan, 'models', 'api', 'write-tests', 'run-tests');
    expect(plan.readySteps()).toEqual([]);
    expect(plan.isSettled()).toBe(true);
    expect(plan.counts().completed).toBe(8);
  });
});

describe('markStep', () => {
  it('allows only legal transitions', () => {
    const plan = examplePlan();
    expectPlanError(() => plan.markStep('analyze', { status: 'completed' }), 'illegal-transition');
    expectPlanError(() => plan.markStep('analyze', { status: 'failed' }), 'illegal-transition');
    complete(plan, 'analyze');
    expectPlanError(() => plan.markStep('analyze', { status: 'not_started' }), 'illegal-transition');
    plan.markStep('scaffold', { status: 'in_progress' });
    plan.markStep('scaffold', { status: 'failed', notes: '[FAIL]: disk full' });
    expectPlanError(() => plan.markStep('scaffold', { status: 'completed' }), 'illegal-transition');
    plan.markStep('scaffold', { status: 'not_started' });
    expect(plan.readySteps()).toContain('scaffold');
    plan.markStep('config', { status: 'skipped' });
    expectPlanError(() => plan.markStep('config', { status: 'in_progress' }), 'illegal-transition');
  });

  it('checks every pair of statuses: legal ones apply, every other one is a typed illegal-transition that changes nothing', () => {
    expect(stepTransitions).toEqual({
      not_started: ['in_progress', 'blocked', 'skipped'],
      in_progress: ['completed', 'failed', 'blocked', 'skipped', 'not_started'],
      failed: ['blocked', 'not_started'],
      completed: [],
      blocked: [],
      skipped: [],
    });
    // How to bring a lone step to each status through legal moves.
    const path: Record<StepStatus, StepStatus[]> = {
      not_started: [],
      in_progress: ['in_progress'],
      completed: ['in_progress', 'completed'],
      failed: ['in_progress', 'failed'],
      blocked: ['blocked'],
      skipped: ['skipped'],
    };
    let legal = 0;
    let illegal = 0;
    for (const from of stepStatusSchema.options) {
      for (const to of stepStatusSchema.options) {
        const plan = Plan.create({ steps: [{ id: 'a', description: 'A' }] });
        for (const status of path[from]) plan.markStep('a', { status });
        expect(plan.step('a').status).toBe(from);
        const before = plan.toJSON();
        const eventCount = plan.events.length;
        if (from === to) {
          // The same status is no transition: allowed everywhere, the event carries no status.
          plan.markStep('a', { status: to, notes: 'again' });
          expect(plan.events.at(-1)).not.toHaveProperty('status');
        } else if (stepTransitions[from].includes(to)) {
          legal++;
          expect(plan.markStep('a', { status: to }).status).toBe(to);
          expect(plan.events.at(-1)).toMatchObject({ type: 'step-marked', status: to, previousStatus: from });
        } else {
          illegal++;
          const error = expectPlanError(() => plan.markStep('a', { status: to }), 'illegal-transition');
          expect(error.details).toMatchObject({ stepId: 'a', from, to });
          expect(error.message).toContain(`from ${from} to ${to}`);
          expect(plan.toJSON()).toStrictEqual(before);
          expect(plan.events).toHaveLength(eventCount);
        }
      }
    }
    expect([legal, illegal]).toEqual([10, 20]);
  });

  it('refuses to start a step whose dependencies are not completed', () => {
    const plan = examplePlan();
    const error = expectPlanError(
      () => plan.markStep('api', { status: 'in_progress' }),
      'illegal-transition',
    );
    expect(error.details.waitingOn).toEqual(['models', 'db']);
  });

  it('stores notes, output, files and claims', () => {
    const plan = examplePlan();
    plan.markStep('analyze', { status: 'in_progress' });
    const step = plan.markStep('analyze', {
      notes: '[SUCCESS]: read it',
      output: 'needs a REST API',
      files: ['requirements.md'],
      claims: { filesWritten: ['notes.md'] },
    });
    expect(step).toMatchObject({
      status: 'in_progress',
      notes: '[SUCCESS]: read it',
      output: 'needs a REST API',
      files: ['requirements.md'],
      claims: { filesWritten: ['notes.md'], filesDeleted: [], symbolsAdded: [], commandsPassed: [] },
    });
    expect(plan.events.at(-1)).toMatchObject({ type: 'step-marked', stepId: 'analyze' });
    expect(plan.events.at(-1)).not.toHaveProperty('status');
  });

  it('rejects malformed options with invalid-argument', () => {
    const plan = examplePlan();
    expectPlanError(() => plan.markStep('analyze', { status: 'done' as never }), 'invalid-argument');
    expectPlanError(() => plan.markStep('analyze', { notes: 3 as never }), 'invalid-argument');
    expectPlanError(() => plan.markStep('analyze', { files: [1] as never }), 'invalid-argument');
    expectPlanError(
      () => plan.markStep('analyze', { claims: { filesWritten: 'x' } as never }),
      'invalid-argument',
    );
    expectPlanError(() => plan.markStep('analyze', null as never), 'invalid-argument');
    expectPlanError(() => plan.markStep('ghost', { status: 'in_progress' }), 'unknown-step');
  });

  it('blocked cascades to unfinished downstream steps, one event each', () => {
    const plan = examplePlan();
    complete(plan, 'analyze', 'scaffold');
    plan.markStep('config', { status: 'skipped' });
    const before = plan.events.length;
    plan.markStep('models', { status: 'blocked', notes: '[FAIL]: gave up' });
    const cascade = plan.events.slice(before);
    expect(cascade.map((event) => (event.type === 'step-marked' ? event.stepId : ''))).toEqual([
      'models',
      'api',
      'write-tests',
      'run-tests',
    ]);
    expect(cascade[1]).toMatchObject({
      status: 'blocked',
      previousStatus: 'not_started',
      notes: '[FAIL]: upstream step models is blocked',
    });
    expect(new Set(cascade.map((event) => event.at)).size).toBe(1);
    expect(plan.step('db').status).toBe('not_started');
    expect(plan.step('config').status).toBe('skipped');
    expect(plan.counts().blocked).toBe(4);
  });
});

describe('tool-call ledger', () => {
  it('add_tool_call / update_tool_result / finalize_step', () => {
    const plan = examplePlan();
    plan.markStep('analyze', { status: 'in_progress' });
    const call = plan.recordToolCall('analyze', {
      callId: 'call_1',
      tool: 'read_file',
      args: { path: 'requirements.md' },
    });
    expect(call).toEqual({
      callId: 'call_1',
      generatedId: false,
      tool: 'read_file',
      args: { path: 'requirements.md' },
      status: 'pending',
      calledAt: expect.any(Number),
    });
    plan.recordToolCall('analyze', { callId: 'call_2', tool: 'write_file', args: { path: 'x' } });
    const done = plan.recordToolResult('analyze', {
      callId: 'call_1',
      tool: 'read_file',
      status: 'success',
      result: 'needs a REST API',
    });
    expect(done).toMatchObject({ status: 'success', result: 'needs a REST API' });
    expect(done.respondedAt).toBeGreaterThan(done.calledAt);
    const pending = plan.finalizeStep('analyze');
    expect(pending.map((record) => record.callId)).toEqual(['call_2']);
    expect(plan.events.at(-1)).toMatchObject({ type: 'step-finalized', pendingCallIds: ['call_2'] });
    expect(plan.step('analyze').ledger.map((record) => record.status)).toEqual(['success', 'pending']);
  });

  it('generates auto-N ids and pairs id-less results FIFO by tool name', () => {
    const plan = examplePlan();
    const a = plan.recordToolCall('analyze', { tool: 'run_command', args: { command: 'a' } });
    const b = plan.recordToolCall('analyze', { tool: 'read_file', args: { path: 'b' } });
    const c = plan.recordToolCall('analyze', { tool: 'run_command', args: { command: 'c' } });
    expect([a.callId, b.callId, c.callId]).toEqual(['auto-1', 'auto-2', 'auto-3']);
    expect(a.generatedId).toBe(true);
    const first = plan.recordToolResult('analyze', { tool: 'run_command', status: 'success', result: 'A' });
    expect(first.callId).toBe('auto-1');
    const second = plan.recordToolResult('analyze', {
      tool: 'run_command',
      status: 'error',
      error: new Error('boom'),
    });
    expect(second).toMatchObject({ callId: 'auto-3', status: 'error', error: 'boom' });
    expectPlanError(
      () => plan.recordToolResult('analyze', { tool: 'run_command', status: 'success' }),
      'unknown-tool-call',
    );
    expect(plan.finalizeStep('analyze').map((record) => record.callId)).toEqual(['auto-2']);
  });

  it('does not pair id-less results with provider-id calls, and skips taken auto ids', () => {
    const plan = examplePlan();
    plan.recordToolCall('analyze', { callId: 'auto-1', tool: 'read_file' });
    expect(plan.recordToolCall('analyze', { tool: 'read_file' }).callId).toBe('auto-2');
    expect(plan.recordToolResult('analyze', { tool: 'read_file', status: 'success' }).callId).toBe('auto-2');
    expectPlanError(
      () => plan.recordToolResult('analyze', { tool: 'read_file', status: 'success' }),
      'unknown-tool-call',
    );
  });

  it('stores a call without arguments as {} so snapshots and journals round-trip', () => {
    const plan = examplePlan();
    expect(plan.recordToolCall('analyze', { tool: 'git_status' }).args).toEqual({});
    const json = JSON.parse(JSON.stringify(plan.toJSON()));
    expect(Plan.fromJSON(json).toJSON()).toStrictEqual(plan.toJSON());
    expect(Plan.replay(JSON.parse(JSON.stringify(plan.events))).toJSON()).toStrictEqual(plan.toJSON());
  });

  it('stores non-string results as JSON', () => {
    const plan = examplePlan();
    plan.recordToolCall('analyze', { callId: 'x', tool: 'list_dir', args: {} });
    const record = plan.recordToolResult('analyze', {
      callId: 'x',
      tool: 'list_dir',
      status: 'success',
      result: { entries: ['a', 'b'] },
    });
    expect(record.result).toBe('{"entries":["a","b"]}');
  });

  it('refuses unknown, answered, mismatched and duplicate calls', () => {
    const plan = examplePlan();
    expectPlanError(
      () => plan.recordToolResult('analyze', { callId: 'nope', tool: 'read_file', status: 'success' }),
      'unknown-tool-call',
    );
    plan.recordToolCall('analyze', { callId: 'c1', tool: 'read_file' });
    expectPlanError(
      () => plan.recordToolCall('analyze', { callId: 'c1', tool: 'read_file' }),
      'duplicate-tool-call',
    );
    expectPlanError(
      () => plan.recordToolResult('analyze', { callId: 'c1', tool: 'write_file', status: 'success' }),
      'unknown-tool-call',
    );
    plan.recordToolResult('analyze', { callId: 'c1', tool: 'read_file', status: 'success' });
    expectPlanError(
      () => plan.recordToolResult('analyze', { callId: 'c1', tool: 'read_file', status: 'success' }),
      'unknown-tool-call',
    );
    expectPlanError(() => plan.recordToolCall('analyze', { tool: '' }), 'invalid-argument');
    expectPlanError(
      () => plan.recordToolResult('analyze', { callId: 'c1', tool: 'read_file', status: 'ok' as never }),
      'invalid-argument',
    );
    expectPlanError(() => plan.recordToolCall('ghost', { tool: 'read_file' }), 'unknown-step');
  });

  it('refuses new calls on finished steps', () => {
    const plan = examplePlan();
    complete(plan, 'analyze');
    expectPlanError(() => plan.recordToolCall('analyze', { tool: 'read_file' }), 'illegal-transition');
  });

  it('recordVerification stores the verdict', () => {
    const plan = examplePlan();
    const record = plan.recordVerification('analyze', {
      verdict: 'failed',
      findings: [
        { check: 'pending-calls', priority: 'P0', status: 'fail', message: '1 call never answered' },
      ],
    });
    expect(record).toEqual({
      verdict: 'failed',
      unverified: false,
      findings: [
        { check: 'pending-calls', priority: 'P0', status: 'fail', message: '1 call never answered' },
      ],
    });
    expect(plan.step('analyze').verification).toEqual(record);
    expect(plan.events.at(-1)).toMatchObject({ type: 'step-verified', stepId: 'analyze' });
    expectPlanError(
      () => plan.recordVerification('analyze', { verdict: 'great' as never }),
      'invalid-argument',
    );
  });
});

describe('replaceSubgraph', () => {
  function failedAtApi(): Plan {
    const plan = startApi(examplePlan());
    plan.markStep('api', { status: 'failed', notes: '[FAIL]: write_file never answered' });
    return plan;
  }

  it('removes the failed step and its downstream, inserts the redesign, updates dependencies', () => {
    const plan = failedAtApi();
    const result = plan.replaceSubgraph(['api'], {
      steps: [
        { description: 'Create the API skeleton and routes', dependsOn: ['models', 'db'] },
        { description: 'Implement the endpoint logic', dependsOn: [0] },
        { id: 'tests', description: 'Write and run unit tests', dependsOn: [1] },
      ],
    });
    expect(result.removed).toEqual(['api', 'write-tests', 'run-tests']);
    expect(result.added.map((step) => step.id)).toEqual(['s1', 's2', 'tests']);
    expect(result.added.map((step) => step.dependsOn)).toEqual([['models', 'db'], ['s1'], ['s2']]);
    for (const step of result.added) {
      // `replaces` names the failed steps; the whole removed set is the event's `removed`.
      expect(step).toMatchObject({ status: 'not_started', replanAttempts: 1, replaces: ['api'] });
    }
    expect(plan.stepIds).toEqual(['analyze', 'scaffold', 'config', 'models', 'db', 's1', 's2', 'tests']);
    expect(plan.has('api')).toBe(false);
    expect(plan.readySteps()).toEqual(['s1']);
    expect(plan.downstreamOf('models')).toEqual(['s1', 's2', 'tests']);
    expect(plan.events.at(-1)).toMatchObject({
      type: 'replan-applied',
      failed: ['api'],
      removed: ['api', 'write-tests', 'run-tests'],
      insertAt: 5,
    });
  });

  it('preserves completed steps untouched', () => {
    const plan = failedAtApi();
    const before = plan.steps.filter((step) => step.status === 'completed');
    plan.replaceSubgraph('api', { steps: [{ description: 'Do it again', dependsOn: ['models'] }] });
    expect(plan.steps.filter((step) => step.status === 'completed')).toEqual(before);
  });

  it('inserts at the display position of the first removed step', () => {
    const plan = examplePlan();
    complete(plan, 'analyze');
    const result = plan.replaceSubgraph('scaffold', {
      steps: [{ description: 'New scaffold', dependsOn: ['analyze'] }],
    });
    expect(result.removed).toEqual(['scaffold', 'models', 'api', 'write-tests', 'run-tests']);
    expect(plan.stepIds).toEqual(['analyze', 's1', 'config', 'db']);
  });

  it('carries attempt counters across replans and never reuses generated ids', () => {
    const plan = failedAtApi();
    const first = plan.replaceSubgraph('api', {
      steps: [{ description: 'try 2', dependsOn: ['models', 'db'] }],
    });
    const id = first.added[0]!.id;
    plan.markStep(id, { status: 'in_progress' });
    plan.markStep(id, { status: 'failed' });
    const second = plan.replaceSubgraph(id, {
      steps: [{ id: 's1', description: 'try 3 asks for a taken id', dependsOn: ['models', 'db'] }],
    });
    expect(second.added[0]).toMatchObject({ id: 's2', replanAttempts: 2, replaces: ['s1'] });
    expect(plan.toJSON().idCounter).toBe(2);
  });

  it('lists in replaces only the failed steps given, even when their downstream is removed too', () => {
    const plan = failedAtApi();
    plan.markStep('write-tests', { status: 'blocked' });
    const result = plan.replaceSubgraph(['api', 'write-tests', 'api'], {
      steps: [
        { description: 'API again', dependsOn: ['models', 'db'] },
        { description: 'Tests again', dependsOn: [0] },
      ],
    });
    expect(result.removed).toEqual(['api', 'write-tests', 'run-tests']);
    for (const step of result.added) expect(step.replaces).toEqual(['api', 'write-tests']);
    // The arrays are per step: changing one copy changes nothing else.
    result.added[0]!.replaces.push('x');
    expect(plan.step(result.added[1]!.id).replaces).toEqual(['api', 'write-tests']);
    expect(plan.events.at(-1)).toMatchObject({ failed: ['api', 'write-tests'] });
    expect(Plan.replay(plan.events).toJSON()).toStrictEqual(plan.toJSON());
  });

  it('generates ids past draft ids and taken ids in one pass', () => {
    const plan = failedAtApi();
    const result = plan.replaceSubgraph('api', {
      steps: [
        { description: 'one', dependsOn: ['models'] },
        { id: 's2', description: 'asks s2', dependsOn: [0] },
        { description: 'three', dependsOn: ['s2'] },
        { id: 'api', description: 'asks a removed id', dependsOn: [2] },
      ],
    });
    expect(result.added.map((step) => step.id)).toEqual(['s1', 's2', 's3', 's4']);
    expect(result.added.map((step) => step.dependsOn)).toEqual([['models'], ['s1'], ['s2'], ['s3']]);
    expect(plan.toJSON().idCounter).toBe(4);
  });

  it('resolves string dependencies on other draft steps by their asked id', () => {
    const plan = failedAtApi();
    const result = plan.replaceSubgraph('api', {
      steps: [
        { id: 'routes', description: 'Routes', dependsOn: ['models'] },
        { id: 'handlers', description: 'Handlers', dependsOn: ['routes', 'db'] },
      ],
    });
    expect(result.added.map((step) => [step.id, step.dependsOn])).toEqual([
      ['routes', ['models']],
      ['handlers', ['routes', 'db']],
    ]);
  });

  it('rejects bad surgeries atomically with typed codes', () => {
    const plan = failedAtApi();
    const snapshot = plan.toJSON();
    const eventCount = plan.events.length;
    expectPlanError(
      () => plan.replaceSubgraph('models', { steps: [{ description: 'x' }] }),
      'completed-step-touched',
    );
    expectPlanError(() => plan.replaceSubgraph('api', { steps: [] }), 'empty-redesign');
    expectPlanError(() => plan.replaceSubgraph('ghost', { steps: [{ description: 'x' }] }), 'unknown-step');
    expectPlanError(() => plan.replaceSubgraph([], { steps: [{ description: 'x' }] }), 'invalid-argument');
    expectPlanError(() => plan.replaceSubgraph('api', { steps: [{ description: '' }] }), 'invalid-argument');
    expectPlanError(
      () =>
        plan.replaceSubgraph('api', {
          steps: [
            { description: 'a', dependsOn: [1] },
            { description: 'b', dependsOn: [0] },
          ],
        }),
      'cycle',
    );
    expectPlanError(
      () => plan.replaceSubgraph('api', { steps: [{ description: 'a', dependsOn: [0] }] }),
      'cycle',
    );
    expectPlanError(
      () => plan.replaceSubgraph('api', { steps: [{ description: 'a', dependsOn: [5] }] }),
      'dangling-dependency',
    );
    const removedDep = expectPlanError(
      () => plan.replaceSubgraph('api', { steps: [{ description: 'a', dependsOn: ['write-tests'] }] }),
      'dangling-dependency',
    );
    expect(removedDep.message).toContain('removes');
    expectPlanError(
      () => plan.replaceSubgraph('api', { steps: [{ description: 'a', dependsOn: ['ghost'] }] }),
      'dangling-dependency',
    );
    expectPlanError(
      () =>
        plan.replaceSubgraph('api', {
          steps: [
            { id: 'x', description: 'a' },
            { id: 'x', description: 'b' },
          ],
        }),
      'duplicate-step',
    );
    expect(plan.toJSON()).toStrictEqual(snapshot);
    expect(plan.events).toHaveLength(eventCount);
  });
});

describe('resetStep', () => {
  /** `api` ran: one answered call, one unanswered, notes, output, files, claims, a verdict. */
  function interruptedApi(): Plan {
    const plan = startApi(examplePlan());
    plan.recordToolCall('api', { callId: 'r', tool: 'read_file', args: { path: 'src/models.py' } });
    plan.recordToolResult('api', { callId: 'r', tool: 'read_file', status: 'success', result: 'class User' });
    plan.recordToolCall('api', { tool: 'write_file', args: { path: 'src/api.py' } });
    plan.markStep('api', {
      notes: '[SUCCESS]: wrote it',
      output: 'api written',
      files: ['src/api.py'],
      claims: { filesWritten: ['src/api.py'] },
    });
    plan.recordVerification('api', { verdict: 'retry' });
    return plan;
  }

  it('archives an interrupted attempt, starts clean and makes the step ready again', () => {
    const plan = interruptedApi();
    const before = plan.step('api');
    const step = plan.resetStep('api', { reason: 'resume: interrupted by a crash' });
    const event = plan.events.at(-1)!;
    expect(event).toMatchObject({
      type: 'step-reset',
      stepId: 'api',
      previousStatus: 'in_progress',
      reason: 'resume: interrupted by a crash',
    });
    expect(step).toStrictEqual(plan.step('api'));
    expect(step).toMatchObject({
      status: 'not_started',
      notes: '',
      files: [],
      ledger: [],
      replanAttempts: 0,
    });
    expect(step.output).toBeUndefined();
    expect(step.claims).toBeUndefined();
    expect(step.verification).toBeUndefined();
    expect(step.previousAttempts).toStrictEqual([
      {
        status: 'in_progress',
        reason: 'resume: interrupted by a crash',
        resetAt: event.at,
        notes: before.notes,
        output: before.output,
        files: before.files,
        claims: before.claims,
        ledger: before.ledger,
        verification: before.verification,
      },
    ]);
    expect(plan.readySteps()).toEqual(['api']);
    expect(plan.counts()).toMatchObject({ in_progress: 0, not_started: 3 });

    // The re-run is judged on its own calls: the archived pending call is gone from the ledger.
    plan.markStep('api', { status: 'in_progress' });
    expect(plan.recordToolCall('api', { tool: 'write_file', args: { path: 'src/api.py' } }).callId).toBe(
      'auto-1',
    );
    plan.recordToolResult('api', { tool: 'write_file', status: 'success', result: 'ok' });
    expect(plan.finalizeStep('api')).toEqual([]);
    expectPlanError(
      () => plan.recordToolResult('api', { callId: 'r', tool: 'read_file', status: 'success' }),
      'unknown-tool-call',
    );
    plan.markStep('api', { status: 'completed', notes: '[SUCCESS]: done again' });
    expect(plan.readySteps()).toEqual(['write-tests', 'run-tests']);
    expect(plan.step('api').previousAttempts).toHaveLength(1);

    expect(Plan.replay(plan.events).toJSON()).toStrictEqual(plan.toJSON());
    expect(Plan.replay(JSON.parse(JSON.stringify(plan.events))).toJSON()).toStrictEqual(plan.toJSON());
    const restored = Plan.fromJSON(JSON.parse(JSON.stringify(plan.toJSON())));
    expect(restored.toJSON()).toStrictEqual(plan.toJSON());
  });

  it('resets a failed step for a retry in place; attempts accumulate oldest first', () => {
    const plan = startApi(examplePlan());
    plan.markStep('api', { status: 'failed', notes: '[FAIL]: first' });
    plan.resetStep('api', { reason: 'retry 1' });
    plan.markStep('api', { status: 'in_progress' });
    plan.recordToolCall('api', { callId: 'c', tool: 'run_command' });
    plan.markStep('api', { status: 'failed', notes: '[FAIL]: second' });
    plan.resetStep('api', { reason: 'retry 2' });
    expect(
      plan.step('api').previousAttempts.map((attempt) => [attempt.status, attempt.reason, attempt.notes]),
    ).toEqual([
      ['failed', 'retry 1', '[FAIL]: first'],
      ['failed', 'retry 2', '[FAIL]: second'],
    ]);
    expect(plan.step('api').previousAttempts[1]!.ledger.map((call) => call.callId)).toEqual(['c']);
    expect(plan.formatToolHistory('api')).toBe(
      [
        '### Step api: Write API endpoints [not_started]',
        'Description: Write the API endpoints',
        'Depends on: models, db',
        'Earlier attempts: 2',
        '  - #1 failed, reset: retry 1; 0 tool calls',
        '  - #2 failed, reset: retry 2; 1 tool call (1 unanswered)',
        'Tool calls: none',
      ].join('\n'),
    );
    // A redesign of a reset step works as usual; the archive leaves with the step.
    plan.markStep('api', { status: 'in_progress' });
    plan.markStep('api', { status: 'failed' });
    const { added } = plan.replaceSubgraph('api', {
      steps: [{ description: 'again', dependsOn: ['models', 'db'] }],
    });
    expect(added[0]!.previousAttempts).toEqual([]);
    expect(Plan.replay(plan.events).toJSON()).toStrictEqual(plan.toJSON());
  });

  it('refuses other statuses, bad reasons and unknown steps; a refused reset changes nothing', () => {
    const plan = interruptedApi();
    plan.markStep('api', { status: 'completed' });
    plan.markStep('write-tests', { status: 'in_progress' });
    plan.markStep('write-tests', { status: 'skipped' });
    plan.markStep('run-tests', { status: 'blocked' });
    const other = Plan.create({ steps: [{ id: 'a', description: 'a' }] });
    const before = plan.toJSON();
    const count = plan.events.length;
    for (const id of ['api', 'write-tests', 'run-tests']) {
      const error = expectPlanError(() => plan.resetStep(id, { reason: 'again' }), 'illegal-transition');
      expect(error.details).toMatchObject({ stepId: id, to: 'not_started' });
    }
    expectPlanError(() => other.resetStep('a', { reason: 'not started yet' }), 'illegal-transition');
    plan.markStep('api', { notes: 'x' }); // a legal mutation in between, then back to refusals
    const after = plan.toJSON();
    const afterCount = plan.events.length;
    expectPlanError(() => plan.resetStep('ghost', { reason: 'x' }), 'unknown-step');
    expectPlanError(() => plan.resetStep('api', { reason: '' }), 'invalid-argument');
    expectPlanError(() => plan.resetStep('api', { reason: '   ' }), 'invalid-argument');
    expectPlanError(() => plan.resetStep('api', {} as never), 'invalid-argument');
    expectPlanError(() => plan.resetStep('api', null as never), 'invalid-argument');
    expect(plan.toJSON()).toStrictEqual(after);
    expect(plan.events).toHaveLength(afterCount);
    expect(afterCount).toBe(count + 1);
    expect(before.steps.find((step) => step.id === 'api')!.notes).not.toBe('x');
  });

  it('replay refuses a step-reset that does not fit the state', () => {
    const plan = startApi(examplePlan());
    plan.resetStep('api', { reason: 'again' });
    const events = [...plan.events];
    const reset = events.at(-1)!;
    const wrongStatus = expectPlanError(
      () => Plan.replay([...events.slice(0, -1), { ...reset, previousStatus: 'failed' }]),
      'invalid-event',
    );
    expect(wrongStatus.details.reason).toBe('illegal-transition');
    // Twice in a row: the second finds the step not_started.
    const twice = expectPlanError(
      () => Plan.replay([...events, { ...reset, seq: reset.seq + 1 }]),
      'invalid-event',
    );
    expect(twice.details.reason).toBe('illegal-transition');
    expectPlanError(() => Plan.replay([...events.slice(0, -1), { ...reset, reason: '' }]), 'invalid-event');
    expectPlanError(
      () => Plan.replay([...events.slice(0, -1), { ...reset, previousStatus: 'completed' }]),
      'invalid-event',
    );
  });

  it('reads snapshots written before previousAttempts existed', () => {
    const plan = interruptedApi();
    const json = JSON.parse(JSON.stringify(plan.toJSON()));
    for (const step of json.steps) delete step.previousAttempts;
    const restored = Plan.fromJSON(json);
    expect(restored.toJSON()).toStrictEqual(plan.toJSON());
    restored.resetStep('api', { reason: 'resume' });
    expect(restored.step('api').previousAttempts).toHaveLength(1);
  });
});

describe('addSteps', () => {
  it('appends new steps by default, resolving indexes, plan ids and asked ids', () => {
    const plan = examplePlan();
    const result = plan.addSteps({
      steps: [
        { id: 'docs', description: 'Write the docs', dependsOn: ['api'] },
        { description: 'Publish', dependsOn: [0, 'run-tests', 'docs'] },
        { id: 'announce', description: 'Announce', dependsOn: [1] },
      ],
    });
    expect(result.insertAt).toBe(8);
    expect(result.added.map((step) => [step.id, step.dependsOn])).toEqual([
      ['docs', ['api']],
      ['s1', ['docs', 'run-tests']],
      ['announce', ['s1']],
    ]);
    for (const step of result.added) {
      expect(step).toMatchObject({ status: 'not_started', replanAttempts: 0, replaces: [], ledger: [] });
    }
    expect(plan.stepIds.slice(8)).toEqual(['docs', 's1', 'announce']);
    expect(plan.downstreamOf('api')).toEqual(['write-tests', 'run-tests', 'docs', 's1', 'announce']);
    expect(plan.events.at(-1)).toMatchObject({ type: 'steps-added', insertAt: 8, added: result.added });
    expect(plan.toJSON().idCounter).toBe(1);
    expect(Plan.replay(JSON.parse(JSON.stringify(plan.events))).toJSON()).toStrictEqual(plan.toJSON());
  });

  it('inserts at insertAt; a new step whose dependencies are completed is ready at once', () => {
    const plan = examplePlan();
    complete(plan, 'analyze');
    const { added } = plan.addSteps(
      { steps: [{ id: 'lint', description: 'Lint', dependsOn: ['analyze'] }] },
      { insertAt: 1 },
    );
    expect(added[0]!.id).toBe('lint');
    expect(plan.stepIds.slice(0, 3)).toEqual(['analyze', 'lint', 'scaffold']);
    expect(plan.readySteps()).toEqual(['lint', 'scaffold', 'config']);
    plan.addSteps({ steps: [{ id: 'first', description: 'A root' }] }, { insertAt: 0 });
    expect(plan.readySteps()).toEqual(['first', 'lint', 'scaffold', 'config']);
    expect(plan.counts()).toMatchObject({ completed: 1, not_started: 9 });
    expect(Plan.replay(plan.events).toJSON()).toStrictEqual(plan.toJSON());
    expect(Plan.replay(plan.events).readySteps()).toEqual(plan.readySteps());
  });

  it('continues the generated-id counter after replans and never reuses an id', () => {
    const plan = startApi(examplePlan());
    plan.markStep('api', { status: 'failed' });
    plan.replaceSubgraph('api', { steps: [{ description: 'again', dependsOn: ['models', 'db'] }] });
    const { added } = plan.addSteps({
      steps: [{ description: 'more', dependsOn: ['s1'] }, { description: 'x' }],
    });
    expect(added.map((step) => step.id)).toEqual(['s2', 's3']);
    expect(plan.toJSON().idCounter).toBe(3);
    // A removed step's id is free again for an explicit id.
    expect(plan.addSteps({ steps: [{ id: 'api', description: 'the id is free' }] }).added[0]!.id).toBe('api');
  });

  it('rejects bad additions atomically with typed codes', () => {
    const plan = startApi(examplePlan());
    const before = plan.toJSON();
    const count = plan.events.length;
    const refusals: Array<[() => unknown, PlanErrorCode]> = [
      [() => plan.addSteps({ steps: [] }), 'invalid-argument'],
      [() => plan.addSteps(null as never), 'invalid-argument'],
      [() => plan.addSteps({ steps: [{ description: '' }] }), 'invalid-argument'],
      [() => plan.addSteps({ steps: [{ description: 'x', dependsOn: [-1] }] }), 'invalid-argument'],
      [() => plan.addSteps({ steps: [{ description: 'x' }] }, { insertAt: -1 }), 'invalid-argument'],
      [() => plan.addSteps({ steps: [{ description: 'x' }] }, { insertAt: 9 }), 'invalid-argument'],
      [() => plan.addSteps({ steps: [{ description: 'x' }] }, { insertAt: 1.5 }), 'invalid-argument'],
      [() => plan.addSteps({ steps: [{ description: 'x' }] }, null as never), 'invalid-argument'],
      [
        () =>
          plan.addSteps({
            steps: [
              { description: 'a', dependsOn: [1] },
              { description: 'b', dependsOn: [0] },
            ],
          }),
        'cycle',
      ],
      [() => plan.addSteps({ steps: [{ id: 'self', description: 'a', dependsOn: ['self'] }] }), 'cycle'],
      [() => plan.addSteps({ steps: [{ description: 'a', dependsOn: [3] }] }), 'dangling-dependency'],
      [() => plan.addSteps({ steps: [{ description: 'a', dependsOn: ['ghost'] }] }), 'dangling-dependency'],
      [
        () =>
          plan.addSteps({
            steps: [
              { id: 'x', description: 'a' },
              { id: 'x', description: 'b' },
            ],
          }),
        'duplicate-step',
      ],
      [() => plan.addSteps({ steps: [{ id: 'api', description: 'taken' }] }), 'duplicate-step'],
    ];
    for (const [attempt, code] of refusals) {
      expectPlanError(attempt, code);
      expect(plan.toJSON()).toStrictEqual(before);
      expect(plan.events).toHaveLength(count);
    }
  });

  it('replay refuses a steps-added event that does not fit the state', () => {
    const plan = examplePlan();
    plan.addSteps({ steps: [{ id: 'docs', description: 'Docs', dependsOn: ['api'] }] });
    const events = [...plan.events];
    const added = events.at(-1) as Extract<PlanEvent, { type: 'steps-added' }>;
    const forge = (patch: Record<string, unknown>, step: Record<string, unknown> = {}) => [
      ...events.slice(0, -1),
      { ...added, ...patch, added: [{ ...added.added[0]!, ...step }] },
    ];
    const reasons: Array<[unknown[], string]> = [
      [forge({}, { id: 'api' }), 'duplicate-step'],
      [forge({}, { status: 'completed' }), 'invalid-argument'],
      [forge({}, { dependsOn: ['ghost'] }), 'dangling-dependency'],
      [forge({}, { dependsOn: ['docs'] }), 'cycle'],
      [forge({ insertAt: 9 }), 'invalid-argument'],
      [
        forge(
          {},
          {
            ledger: [
              { callId: 'c', generatedId: false, tool: 't', args: {}, status: 'pending', calledAt: 1 },
            ],
          },
        ),
        'invalid-argument',
      ],
    ];
    for (const [log, reason] of reasons) {
      expect(expectPlanError(() => Plan.replay(log), 'invalid-event').details.reason).toBe(reason);
    }
    expectPlanError(() => Plan.replay([...events.slice(0, -1), { ...added, added: [] }]), 'invalid-event');
  });
});

describe('formatToolHistory', () => {
  it('renders the replanner format with truncation markers', () => {
    const plan = examplePlan();
    plan.recordToolCall('analyze', { callId: 'r', tool: 'read_file', args: { path: 'requirements.md' } });
    startApi(plan);
    plan.recordToolCall('api', {
      callId: 'w',
      tool: 'write_file',
      args: { path: 'src/api.py', content: 'x'.repeat(300) },
    });
    plan.recordToolCall('api', { callId: 'r1', tool: 'read_file', args: { path: 'a.txt' } });
    plan.recordToolResult('api', {
      callId: 'r1',
      tool: 'read_file',
      status: 'success',
      result: `contents${'y'.repeat(3000)}`,
    });
    plan.recordToolCall('api', { callId: 'c', tool: 'run_command', args: { command: 'pytest' } });
    plan.recordToolResult('api', { callId: 'c', tool: 'run_command', status: 'error', error: 'exit 1' });
    plan.markStep('api', { status: 'failed', notes: '[FAIL]: write_file never answered' });
    const text = plan.formatToolHistory(['api', 'write-tests'], { maxResultChars: 20 });
    expect(text).toBe(
      [
        '### Step api: Write API endpoints [failed]',
        'Description: Write the API endpoints',
        'Depends on: models, db',
        'Notes: [FAIL]: write_file never answered',
        'Tool calls:',
        `- write_file(path="src/api.py", content="${'x'.repeat(200)}…[truncated 100 chars]") → status: pending ❌`,
        `- read_file(path="a.txt") → "contents${'y'.repeat(12)}…[truncated 2988 chars]"`,
        '- run_command(command="pytest") → error: "exit 1" ❌',
        '',
        '### Step write-tests: Write the tests [not_started]',
        'Depends on: api',
        'Tool calls: none',
      ].join('\n'),
    );
    expect(plan.formatToolHistory('analyze')).toContain(
      '- read_file(path="requirements.md") → status: pending ❌',
    );
    expectPlanError(() => plan.formatToolHistory(['ghost']), 'unknown-step');
  });
});

describe('formatToolHistory: every part of a step', () => {
  it('renders output, files, failing findings and errors, truncating each long value with a marker', () => {
    const plan = examplePlan();
    plan.markStep('analyze', { status: 'in_progress' });
    plan.recordToolCall('analyze', { callId: 'a', tool: 'fetch', args: ['positional', 42] });
    plan.recordToolResult('analyze', { callId: 'a', tool: 'fetch', status: 'success', result: 'ok' });
    plan.recordToolCall('analyze', { callId: 'b', tool: 'run_command', args: { argv: ['npm', 'test'] } });
    plan.recordToolResult('analyze', {
      callId: 'b',
      tool: 'run_command',
      status: 'error',
      error: `E${'r'.repeat(50)}`,
    });
    plan.markStep('analyze', {
      status: 'completed',
      notes: '  [SUCCESS]: read it  ',
      output: `O${'u'.repeat(50)}`,
      files: ['requirements.md', 'notes.md'],
    });
    plan.recordVerification('analyze', {
      verdict: 'success-with-warnings',
      findings: [
        { check: 'pending-calls', priority: 'P0', status: 'pass', message: 'hidden: passed' },
        { check: 'lint', priority: 'P2', status: 'skip', message: 'hidden: skipped' },
        { check: 'tool-errors', priority: 'P1', status: 'warn', message: 'run_command failed once' },
      ],
    });
    expect(plan.formatToolHistory('analyze', { maxResultChars: 10, maxArgChars: 5 })).toBe(
      [
        '### Step analyze: Analyze the requirements [completed]',
        'Notes: [SUCCESS]: read it',
        `Output: Ouuuuuuuuu…[truncated 41 chars]`,
        'Files: requirements.md, notes.md',
        'Verification: success-with-warnings',
        '  - [P1] tool-errors (warn): run_command failed once',
        'Tool calls:',
        '- fetch(["pos…[truncated 12 chars]) → "ok"',
        '- run_command(argv=["npm…[truncated 9 chars]) → error: "Errrrrrrrr…[truncated 41 chars]" ❌',
      ].join('\n'),
    );
  });
});

describe('snapshots', () => {
  it('toJSON / fromJSON round-trips and continues the event sequence', () => {
    const plan = examplePlan();
    complete(plan, 'analyze');
    plan.recordToolCall('scaffold', { tool: 'mkdir', args: { path: 'src' } });
    const json = JSON.parse(JSON.stringify(plan.toJSON()));
    expect(json.schemaVersion).toBe(1);
    const restored = Plan.fromJSON(json, { clock: tickingClock(5000) });
    expect(restored.toJSON()).toStrictEqual(plan.toJSON());
    expect(restored.readySteps()).toEqual(plan.readySteps());
    expect(restored.events).toEqual([]);
    restored.markStep('scaffold', { status: 'in_progress' });
    expect(restored.events[0]!.seq).toBe(plan.events.length);
    expect(restored.recordToolResult('scaffold', { tool: 'mkdir', status: 'success' }).callId).toBe('auto-1');
  });

  it('readSnapshot is toJSON without the copies: same content, live steps', () => {
    const plan = examplePlan();
    complete(plan, 'analyze');
    plan.recordToolCall('scaffold', { tool: 'mkdir', args: { path: 'src' } });
    const live = plan.readSnapshot();
    expect(live).toStrictEqual(plan.toJSON());
    expect(Object.keys(live.steps[0]!)).toEqual(Object.keys(plan.toJSON().steps[0]!));
    expect(live.steps[1]).toBe(plan.readStep('scaffold'));
    expect(JSON.stringify(live)).toBe(JSON.stringify(plan.toJSON()));
  });

  it('rejects invalid snapshots with invalid-snapshot', () => {
    const plan = examplePlan();
    const json = plan.toJSON();
    const zodError = expectPlanError(() => Plan.fromJSON({ ...json, schemaVersion: 2 }), 'invalid-snapshot');
    expect(zodError.details.issues).toBeInstanceOf(Array);
    expectPlanError(() => Plan.fromJSON('nope'), 'invalid-snapshot');
    const cyclic = structuredClone(json);
    cyclic.steps[0]!.dependsOn = ['run-tests'];
    expect(expectPlanError(() => Plan.fromJSON(cyclic), 'invalid-snapshot').details.reason).toBe('cycle');
    const dangling = structuredClone(json);
    dangling.steps[1]!.dependsOn = ['ghost'];
    expect(expectPlanError(() => Plan.fromJSON(dangling), 'invalid-snapshot').details.reason).toBe(
      'dangling-dependency',
    );
    const inconsistent = structuredClone(json);
    inconsistent.steps[5]!.status = 'completed';
    expect(expectPlanError(() => Plan.fromJSON(inconsistent), 'invalid-snapshot').details.reason).toBe(
      'illegal-transition',
    );
  });
});

describe('events and replay', () => {
  function busyPlan(): Plan {
    const plan = startApi(examplePlan());
    plan.recordToolCall('api', { tool: 'write_file', args: { path: 'src/api.py' } });
    plan.finalizeStep('api');
    plan.recordVerification('api', { verdict: 'failed' });
    plan.markStep('api', { status: 'failed', notes: '[FAIL]: pending call' });
    plan.replaceSubgraph('api', {
      steps: [
        { description: 'again', dependsOn: ['models', 'db'] },
        { description: 'test', dependsOn: [0] },
      ],
    });
    plan.markStep('s1', { status: 'in_progress' });
    plan.markStep('s1', { status: 'blocked', notes: '[FAIL]: gave up' });
    return plan;
  }

  it('events carry planId, gap-free seq and the injected clock', () => {
    const plan = busyPlan();
    plan.events.forEach((event, index) => {
      expect(event.planId).toBe('plan-1');
      expect(event.seq).toBe(index);
    });
    expect(plan.events.at(-1)).toMatchObject({ type: 'step-marked', stepId: 's2', status: 'blocked' });
  });

  it('Plan.replay(plan.events) equals the live plan, also through JSON', () => {
    const plan = busyPlan();
    expect(Plan.replay(plan.events).toJSON()).toStrictEqual(plan.toJSON());
    const wire = JSON.parse(JSON.stringify(plan.events)) as unknown[];
    const replayed = Plan.replay(wire);
    expect(replayed.toJSON()).toStrictEqual(plan.toJSON());
    expect(replayed.readySteps()).toEqual(plan.readySteps());
    expect(replayed.events).toHaveLength(plan.events.length);
  });

  it('replays the tail of a log on top of a snapshot', () => {
    const plan = examplePlan();
    complete(plan, 'analyze');
    const snapshot = plan.toJSON();
    const from = plan.events.length;
    complete(plan, 'scaffold');
    plan.recordToolCall('config', { tool: 'read_file' });
    const resumed = Plan.replay(plan.events.slice(from), { from: snapshot });
    expect(resumed.toJSON()).toStrictEqual(plan.toJSON());
  });

  it('rejects broken logs with invalid-event', () => {
    const plan = busyPlan();
    const events = [...plan.events];
    expectPlanError(() => Plan.replay([]), 'invalid-event');
    expectPlanError(() => Plan.replay(events.slice(1)), 'invalid-event');
    expectPlanError(() => Plan.replay([events[0], events[2]]), 'invalid-event');
    expectPlanError(() => Plan.replay([events[0], { ...events[1]!, planId: 'other' }]), 'invalid-event');
    expectPlanError(() => Plan.replay([events[0], { type: 'step-exploded' }]), 'invalid-event');
    const illegal = expectPlanError(
      () => Plan.replay([events[0], { ...events[1], status: 'completed', previousStatus: undefined }]),
      'invalid-event',
    );
    expect(illegal.details.reason).toBe('illegal-transition');
    expect(PlanError.isInstance(illegal.cause)).toBe(true);
  });

  it('subscribe delivers each event after it is applied; unsubscribe stops it', () => {
    const plan = examplePlan();
    const seen: Array<[PlanEvent['type'], number]> = [];
    const stop = plan.subscribe((event, live) => seen.push([event.type, live.events.length]));
    complete(plan, 'analyze');
    expect(seen).toEqual([
      ['step-marked', 2],
      ['step-marked', 3],
    ]);
    stop();
    plan.markStep('scaffold', { status: 'in_progress' });
    expect(seen).toHaveLength(2);
  });

  it('a throwing listener neither undoes the mutation nor stops other listeners', async () => {
    const plan = examplePlan();
    const other = vi.fn();
    plan.subscribe(() => {
      throw new Error('listener bug');
    });
    plan.subscribe(other);
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on('uncaughtException', onError);
    try {
      plan.markStep('analyze', { status: 'in_progress' });
      await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(plan.step('analyze').status).toBe('in_progress');
    expect(other).toHaveBeenCalledTimes(1);
    expect(errors).toHaveLength(1);
  });

  it('a refused mutation leaves toJSON and the log unchanged', () => {
    const plan = busyPlan();
    const before = plan.toJSON();
    const count = plan.events.length;
    const attempts: Array<() => unknown> = [
      () => plan.markStep('s2', { status: 'in_progress', notes: 'should not stick' }),
      () => plan.markStep('analyze', { status: 'failed' }),
      () => plan.markStep('analyze', { notes: 'x', claims: { filesWritten: 5 } as never }),
      () => plan.recordToolCall('analyze', { tool: 'x' }),
      () => plan.recordToolResult('s2', { tool: 'x', status: 'success' }),
      () => plan.replaceSubgraph('analyze', { steps: [{ description: 'x' }] }),
      () => plan.recordVerification('s2', { verdict: 'nope' as never }),
      () => plan.resetStep('s2', { reason: 'not started' }),
      () => plan.resetStep('s1', { reason: '' }),
      () => plan.addSteps({ steps: [{ id: 's2', description: 'taken' }] }),
      () => plan.addSteps({ steps: [{ description: 'x', dependsOn: ['api'] }] }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(PlanError);
      expect(plan.toJSON()).toStrictEqual(before);
      expect(plan.events).toHaveLength(count);
    }
  });
});
