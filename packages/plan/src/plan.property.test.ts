import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tickingClock } from './__fixtures__/example-dag';
import { findCycle } from './graph';
import { Plan } from './plan';
import { PlanError } from './plan-error';
import { type Step, type StepId, type StepStatus, type SubgraphDraft, stepStatusSchema } from './schema';

const RUNS = 150;

/** A random DAG: step i may depend on any earlier step; display order is a random permutation. */
const dagArbitrary = fc
  .integer({ min: 1, max: 12 })
  .chain((size) =>
    fc.record({
      deps: fc.tuple(
        ...Array.from({ length: size }, (_, index) =>
          fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, index - 1) }), {
            maxLength: index === 0 ? 0 : 3,
          }),
        ),
      ),
      order: fc.shuffledSubarray(
        Array.from({ length: size }, (_, index) => index),
        { minLength: size, maxLength: size },
      ),
    }),
  )
  .map(({ deps, order }) => ({
    steps: order.map((index) => ({
      id: `t${index}`,
      description: `task ${index}`,
      dependsOn: deps[index]!.map((dep) => `t${dep}`),
    })),
  }));

const statusArbitrary = fc.constantFrom<StepStatus>(...stepStatusSchema.options);

const opArbitrary = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), pick: fc.nat(), choice: fc.nat() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('mark' as const), pick: fc.nat(), status: statusArbitrary }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      pick: fc.nat(),
      tool: fc.constantFrom('read_file', 'write_file'),
      withId: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      pick: fc.nat(),
      tool: fc.constantFrom('read_file', 'write_file'),
      callPick: fc.option(fc.nat(), { nil: undefined }),
      ok: fc.boolean(),
      result: fc.oneof(fc.string(), fc.dictionary(fc.string(), fc.integer())),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('finalize' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('verify' as const),
      pick: fc.nat(),
      verdict: fc.constantFrom('success', 'retry', 'failed'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      picks: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }),
      anyStep: fc.boolean(),
      steps: fc.array(
        fc.record({
          id: fc.option(fc.constantFrom('x', 'y', 't0', 's1'), { nil: undefined, freq: 2 }),
          deps: fc.array(fc.oneof(fc.nat({ max: 2 }), fc.record({ preserved: fc.nat() })), { maxLength: 2 }),
        }),
        { minLength: 0, maxLength: 4 },
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('reset' as const),
      pick: fc.nat(),
      // Mostly a step that can be reset (in_progress or failed), sometimes any step (refused).
      anyStep: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      reason: fc.constantFrom('resume', 'retry in place', 'resume', ''),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      // -1 is refused; otherwise taken modulo size + 2, so size + 1 (past the end) is refused too.
      insertAt: fc.option(fc.integer({ min: -1, max: 1000 }), { nil: undefined, freq: 2 }),
      /** Sometimes no steps at all (refused). */
      empty: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
      steps: fc.array(
        fc.record({
          id: fc.option(fc.constantFrom('x', 'y', 't0', 's1', 's3'), { nil: undefined, freq: 4 }),
          // Mostly earlier new steps and existing steps; sometimes a raw index (a forward one
          // may close a cycle, one past the end dangles: both refused).
          deps: fc.array(
            fc.oneof(
              { weight: 3, arbitrary: fc.record({ earlier: fc.nat() }) },
              { weight: 3, arbitrary: fc.record({ existing: fc.nat() }) },
              { weight: 1, arbitrary: fc.nat({ max: 3 }) },
            ),
            { maxLength: 3 },
          ),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
);

type Op = typeof opArbitrary extends fc.Arbitrary<infer T> ? T : never;

const NEXT: Record<StepStatus, StepStatus[]> = {
  not_started: ['in_progress', 'in_progress', 'in_progress', 'blocked', 'skipped'],
  in_progress: ['completed', 'completed', 'completed', 'failed', 'blocked', 'skipped', 'not_started'],
  failed: ['not_started', 'blocked'],
  completed: ['completed'],
  blocked: ['blocked'],
  skipped: ['skipped'],
};

function pickFrom<T>(list: readonly T[], n: number): T | undefined {
  return list.length === 0 ? undefined : list[n % list.length];
}

function runOp(plan: Plan, op: Op): void {
  const ids = plan.stepIds;
  const id = 'pick' in op ? pickFrom(ids, op.pick) : undefined;
  switch (op.kind) {
    case 'advance': {
      if (id === undefined) return;
      // Move a step that can move (ready or running), so runs reach completed steps often.
      const ready = new Set(plan.readySteps());
      const active = plan.steps
        .filter((step) => ready.has(step.id) || step.status === 'in_progress')
        .map((step) => step.id);
      const target = pickFrom(active, op.pick) ?? id;
      const status = plan.step(target).status;
      plan.markStep(target, {
        status: NEXT[status][op.choice % NEXT[status].length]!,
        notes: `op ${op.choice}`,
      });
      return;
    }
    case 'mark':
      if (id !== undefined) plan.markStep(id, { status: op.status });
      return;
    case 'call':
      if (id !== undefined)
        plan.recordToolCall(id, {
          tool: op.tool,
          args: { n: op.pick },
          ...(op.withId ? { callId: `c${op.pick}` } : {}),
        });
      return;
    case 'result': {
      // Mostly answer a step that has pending calls, sometimes any step (then it is refused).
      const waiting = plan.steps.filter((step) => step.ledger.some((call) => call.status === 'pending'));
      const stepId = op.callPick === undefined ? id : (pickFrom(waiting, op.pick)?.id ?? id);
      if (stepId === undefined) return;
      const pending = plan.step(stepId).ledger.filter((call) => call.status === 'pending');
      const call = op.callPick === undefined ? undefined : pickFrom(pending, op.callPick);
      plan.recordToolResult(stepId, {
        tool: call?.tool ?? op.tool,
        ...(call ? { callId: call.callId } : {}),
        status: op.ok ? 'success' : 'error',
        ...(op.ok ? { result: op.result } : { error: 'failed' }),
      });
      return;
    }
    case 'finalize':
      if (id !== undefined) plan.finalizeStep(id);
      return;
    case 'verify':
      if (id !== undefined) plan.recordVerification(id, { verdict: op.verdict });
      return;
    case 'replace': {
      const candidates = op.anyStep
        ? ids
        : plan.steps.filter((step) => step.status !== 'completed').map((step) => step.id);
      const chosen = op.picks
        .map((pick) => pickFrom(candidates, pick))
        .filter((x): x is StepId => x !== undefined);
      if (chosen.length === 0) return;
      const doomed = new Set([...chosen, ...plan.downstreamOf(chosen)]);
      const preserved = ids.filter((stepId) => !doomed.has(stepId));
      const draft: SubgraphDraft = {
        steps: op.steps.map((step, index) => ({
          ...(step.id === undefined ? {} : { id: step.id }),
          description: `redesign ${index}`,
          dependsOn: step.deps
            .map((dep) => (typeof dep === 'number' ? dep : pickFrom(preserved, dep.preserved)))
            .filter((dep): dep is number | string => dep !== undefined),
        })),
      };
      plan.replaceSubgraph(chosen, draft);
      return;
    }
    case 'reset': {
      const resettable = plan.steps
        .filter((step) => step.status === 'in_progress' || step.status === 'failed')
        .map((step) => step.id);
      const target = op.anyStep ? id : (pickFrom(resettable, op.pick) ?? id);
      if (target !== undefined) plan.resetStep(target, { reason: op.reason });
      return;
    }
    case 'add': {
      const draft: SubgraphDraft = {
        steps: (op.empty ? [] : op.steps).map((step, index) => ({
          ...(step.id === undefined ? {} : { id: step.id }),
          description: `added ${index}`,
          dependsOn: step.deps
            .map((dep) => {
              if (typeof dep === 'number') return dep;
              if ('existing' in dep) return pickFrom(ids, dep.existing);
              return index === 0 ? undefined : dep.earlier % index;
            })
            .filter((dep): dep is number | string => dep !== undefined),
        })),
      };
      const insertAt =
        op.insertAt === undefined || op.insertAt < 0 ? op.insertAt : op.insertAt % (ids.length + 2);
      plan.addSteps(draft, insertAt === undefined ? {} : { insertAt });
      return;
    }
  }
}

function checkInvariants(plan: Plan): void {
  const steps = plan.steps;
  const byId = new Map(steps.map((step) => [step.id, step]));
  expect(byId.size).toBe(steps.length);
  // Acyclic, no dangling dependency.
  expect(findCycle(steps)).toBeUndefined();
  for (const step of steps) for (const dep of step.dependsOn) expect(byId.has(dep)).toBe(true);
  // readySteps equals a from-scratch recomputation.
  const ready = steps
    .filter(
      (step) =>
        step.status === 'not_started' && step.dependsOn.every((dep) => byId.get(dep)!.status === 'completed'),
    )
    .map((step) => step.id);
  expect(plan.readySteps()).toEqual(ready);
  // A started step's dependencies are completed.
  for (const step of steps) {
    if (step.status === 'in_progress' || step.status === 'completed' || step.status === 'failed') {
      for (const dep of step.dependsOn) expect(byId.get(dep)!.status).toBe('completed');
    }
  }
  // counts / isSettled agree with the steps.
  const counts = plan.counts();
  for (const status of Object.keys(counts) as StepStatus[]) {
    expect(counts[status]).toBe(steps.filter((step) => step.status === status).length);
  }
  expect(plan.isSettled()).toBe(ready.length === 0 && counts.in_progress === 0);
  // Gap-free log.
  expect(plan.events.map((event) => event.seq)).toEqual(plan.events.map((_, index) => index));
}

function completedSteps(plan: Plan): Map<StepId, Step> {
  return new Map(plan.steps.filter((step) => step.status === 'completed').map((step) => [step.id, step]));
}

describe('Plan properties', () => {
  it('random DAGs × random operations keep every invariant; refused ops change nothing', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.array(opArbitrary, { minLength: 5, maxLength: 40 }), (input, ops) => {
        const plan = Plan.create(input, { id: 'prop', clock: tickingClock() });
        checkInvariants(plan);
        for (const op of ops) {
          const before = plan.toJSON();
          const eventCount = plan.events.length;
          const completedBefore = completedSteps(plan);
          const stepsBefore = new Map(before.steps.map((step) => [step.id, step]));
          try {
            runOp(plan, op);
          } catch (error) {
            if (!PlanError.isInstance(error)) throw error;
            expect(plan.toJSON()).toStrictEqual(before);
            expect(plan.events).toHaveLength(eventCount);
            continue;
          }
          // No operation removes a completed step or takes its status back.
          const after = completedSteps(plan);
          for (const id of completedBefore.keys()) expect(after.has(id)).toBe(true);
          if (op.kind === 'replace' || op.kind === 'add' || op.kind === 'reset') {
            // Surgery, additions and resets do not alter a completed step at all.
            for (const [id, step] of completedBefore) expect(after.get(id)).toStrictEqual(step);
          }
          const stepsAfter = plan.steps;
          if (op.kind === 'add') {
            // Existing steps are untouched; new steps are fresh, and nothing old depends on them.
            const added = stepsAfter.filter((step) => !stepsBefore.has(step.id));
            expect(added.length).toBeGreaterThan(0);
            expect(stepsAfter.filter((step) => stepsBefore.has(step.id))).toStrictEqual(before.steps);
            for (const step of added) {
              expect(step).toMatchObject({
                status: 'not_started',
                ledger: [],
                previousAttempts: [],
                replanAttempts: 0,
              });
            }
          }
          if (op.kind === 'reset') {
            // Exactly one step changed: back to not_started, its attempt archived, nothing recorded.
            const changed = stepsAfter.filter((step) => !isDeepStrictEqual(step, stepsBefore.get(step.id)));
            expect(changed).toHaveLength(1);
            const [step] = changed;
            const old = stepsBefore.get(step!.id)!;
            expect(step).toMatchObject({ status: 'not_started', ledger: [], notes: '', files: [] });
            expect(step!.previousAttempts).toHaveLength(old.previousAttempts.length + 1);
            expect(step!.previousAttempts.at(-1)).toMatchObject({ status: old.status, ledger: old.ledger });
          }
          // Archived attempts are never lost while a step lives.
          for (const step of stepsAfter) {
            const old = stepsBefore.get(step.id);
            if (old)
              expect(step.previousAttempts.slice(0, old.previousAttempts.length)).toStrictEqual(
                old.previousAttempts,
              );
          }
          checkInvariants(plan);
          // Replay equals the live state after every operation, not just at the end.
          const replayed = Plan.replay(plan.events);
          expect(replayed.toJSON()).toStrictEqual(plan.toJSON());
          expect(replayed.readySteps()).toEqual(plan.readySteps());
        }
        expect(Plan.replay(plan.events).toJSON()).toStrictEqual(plan.toJSON());
        expect(Plan.replay(JSON.parse(JSON.stringify(plan.events))).toJSON()).toStrictEqual(plan.toJSON());
        const json = JSON.parse(JSON.stringify(plan.toJSON()));
        expect(Plan.fromJSON(json).toJSON()).toStrictEqual(plan.toJSON());
        expect(Plan.fromJSON(json).readySteps()).toEqual(plan.readySteps());
      }),
      { numRuns: RUNS },
    );
  });

  it('surgery on a partly completed plan removes exactly the subgraph and leaves completed steps as they were', () => {
    const draftArbitrary = fc.array(
      fc.record({
        earlier: fc.array(fc.nat(), { maxLength: 2 }),
        preserved: fc.array(fc.nat(), { maxLength: 2 }),
      }),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(
        dagArbitrary,
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        draftArbitrary,
        (input, progress, pick, failFirst, drafts) => {
          const plan = Plan.create(input, { id: 'prop', clock: tickingClock() });
          // Complete a random number of steps, the way a scheduler would.
          for (let left = progress % (plan.size + 1); left > 0; left--) {
            const next = plan.readySteps()[0];
            if (next === undefined) break;
            plan.markStep(next, { status: 'in_progress' });
            plan.markStep(next, { status: 'completed', notes: `[SUCCESS]: ${next}` });
          }
          const open = plan.steps.filter((step) => step.status !== 'completed').map((step) => step.id);
          fc.pre(open.length > 0);
          const target = open[pick % open.length]!;
          if (failFirst && plan.readySteps().includes(target)) {
            plan.markStep(target, { status: 'in_progress' });
            plan.markStep(target, { status: 'failed', notes: '[FAIL]: verification failed' });
          }
          const doomed = new Set([target, ...plan.downstreamOf(target)]);
          const preserved = plan.stepIds.filter((id) => !doomed.has(id));
          const draft: SubgraphDraft = {
            steps: drafts.map((step, index) => ({
              description: `redesign ${index}`,
              dependsOn: [
                // Relative links only to earlier draft steps (acyclic), plus preserved steps.
                ...(index === 0 ? [] : step.earlier.map((n) => n % index)),
                ...(preserved.length === 0
                  ? []
                  : step.preserved.map((n) => preserved[n % preserved.length]!)),
              ],
            })),
          };
          const completedBefore = completedSteps(plan);
          const result = plan.replaceSubgraph(target, draft);
          expect(new Set(result.removed)).toEqual(doomed);
          expect(result.added).toHaveLength(drafts.length);
          for (const step of result.added) expect(step.replaces).toEqual([target]);
          const after = completedSteps(plan);
          expect(after.size).toBe(completedBefore.size);
          for (const [id, step] of completedBefore) expect(after.get(id)).toStrictEqual(step);
          checkInvariants(plan);
          expect(Plan.replay(plan.events).toJSON()).toStrictEqual(plan.toJSON());
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('downstreamOf / upstreamOf are the transitive closure, in topological order, inputs excluded', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), (input, picks) => {
        const plan = Plan.create(input);
        const ids = plan.stepIds;
        const inputs = [...new Set(picks.map((pick) => ids[pick % ids.length]!))];
        const deps = new Map(plan.steps.map((step) => [step.id, step.dependsOn]));
        const closure = (next: (id: StepId) => StepId[]) => {
          const seen = new Set<StepId>();
          const stack = [...inputs];
          while (stack.length > 0) {
            for (const to of next(stack.pop()!)) {
              if (!seen.has(to)) {
                seen.add(to);
                stack.push(to);
              }
            }
          }
          for (const id of inputs) seen.delete(id);
          return seen;
        };
        const dependents = (id: StepId) => ids.filter((other) => deps.get(other)!.includes(id));
        const down = plan.downstreamOf(inputs);
        const up = plan.upstreamOf(inputs);
        expect(new Set(down)).toEqual(closure(dependents));
        expect(down).toHaveLength(new Set(down).size);
        expect(new Set(up)).toEqual(closure((id) => deps.get(id)!));
        for (const list of [down, up]) {
          const position = new Map(list.map((id, index) => [id, index]));
          for (const id of list) {
            for (const dep of deps.get(id)!) {
              if (position.has(dep)) expect(position.get(dep)!).toBeLessThan(position.get(id)!);
            }
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('draining any DAG through readySteps completes every step', () => {
    fc.assert(
      fc.property(dagArbitrary, (input) => {
        const plan = Plan.create(input);
        for (let ready = plan.readySteps(); ready.length > 0; ready = plan.readySteps()) {
          for (const id of ready) {
            plan.markStep(id, { status: 'in_progress' });
            plan.markStep(id, { status: 'completed' });
          }
        }
        expect(plan.counts().completed).toBe(input.steps.length);
        expect(plan.isSettled()).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
