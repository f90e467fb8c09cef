import { Plan, PlanError, type StepId } from '@closedloop/plan';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeStep, examplePlan, failStep, tickingClock } from './__fixtures__/example-plan';
import { designSignature, normalizeDescription } from './design-signature';
import { type ReplanRedesign, replanResultSchema } from './replan-result';
import {
  asksForChange,
  failedDesign,
  type RedesignValidationContext,
  validateRedesign,
  weakenedWork,
} from './validate-redesign';

function context(plan: Plan, overrides: Partial<RedesignValidationContext> = {}): RedesignValidationContext {
  return {
    plan,
    removed: new Set(['5', '6', '7']),
    blockedAfter: new Set(),
    toolNames: new Set(['read_file', 'write_file']),
    failedDesigns: [],
    ...overrides,
  };
}

const redesign = (value: unknown): ReplanRedesign => {
  const parsed = replanResultSchema.parse(value);
  if (parsed.action !== 'redesign') throw new Error('not a redesign');
  return parsed;
};

describe('validateRedesign', () => {
  it('accepts the example redesign (indexes and kept completed ids)', () => {
    const plan = examplePlan();
    const problems = validateRedesign(
      redesign({
        action: 'redesign',
        steps: [{ description: 'a', requiredTools: ['write_file'] }, { description: 'b' }],
        dependencies: { '0': ['3', '4'], '1': [0] },
      }),
      context(plan),
    );
    expect(problems).toEqual([]);
  });

  it('reports every problem with the offending value', () => {
    const plan = examplePlan();
    const problems = validateRedesign(
      redesign({
        action: 'redesign',
        steps: [{ description: '  ' }, { description: 'b', requiredTools: ['deploy'] }, { description: 'c' }],
        dependencies: { '0': [0], '1': [2, -1, 1.5], '2': [1], '3': ['0'], x: [0], '4': ['3'] },
      }),
      context(plan),
    );
    expect(problems.map((p) => p.code)).toEqual([
      'empty-description',
      'unknown-tool',
      'cycle',
      'dangling-dependency',
      'dangling-dependency',
      'completed-step-touched',
      'completed-step-touched',
      'invalid-dependency-key',
      'cycle',
    ]);
    const messages = problems.map((p) => p.message).join('\n');
    expect(messages).toContain('New step 0 has an empty description.');
    expect(messages).toContain(
      'requires tool "deploy", which does not exist. Available tools: read_file, write_file.',
    );
    expect(messages).toContain('New step 0 depends on itself.');
    expect(messages).toContain('depends on index -1');
    expect(messages).toContain('depends on index 1.5');
    expect(messages).toContain('dependencies key "3" is a completed step');
    expect(messages).toContain('dependencies key "x" is not the index of a new step; keys must be "0".."2".');
    expect(messages).toContain('cycle: 1 → 2 → 1');
  });

  it('rejects an empty redesign with a pointer to give_up', () => {
    const problems = validateRedesign(redesign({ action: 'redesign', steps: [] }), context(examplePlan()));
    expect(problems).toEqual([{ code: 'empty-redesign', message: expect.stringContaining('give_up') }]);
  });

  it('rejects dependencies on steps that will be blocked at the attempt limit', () => {
    const plan = examplePlan();
    const problems = validateRedesign(
      redesign({ action: 'redesign', steps: [{ description: 'a' }], dependencies: { '0': ['4'] } }),
      context(plan, { blockedAfter: new Set(['4']) }),
    );
    expect(problems.map((p) => p.code)).toEqual(['unsatisfiable-dependency']);
    expect(problems[0]?.message).toContain('blocked: attempt limit reached');
  });

  it('finds a long cycle and names it', () => {
    const problems = validateRedesign(
      redesign({
        action: 'redesign',
        steps: ['a', 'b', 'c', 'd'].map((description) => ({ description })),
        dependencies: { '0': [3], '1': [0], '2': [1], '3': [2] },
      }),
      context(examplePlan()),
    );
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('0 → 3 → 2 → 1 → 0')]);
  });

  it('flags a repeat of a failed design regardless of order, case, spacing and completed dependencies', () => {
    const plan = examplePlan();
    const failed = failedDesign(
      'the current steps 5, 6',
      [
        { id: '5', description: 'Write the API.', dependsOn: ['3', '4'] },
        { id: '6', description: 'Write tests', dependsOn: ['5'] },
      ],
      { isCompleted: (id) => plan.step(id).status === 'completed' },
    );
    const problems = validateRedesign(
      redesign({
        action: 'redesign',
        steps: [{ description: 'write   TESTS' }, { description: ' write the api ' }],
        dependencies: { '0': [1] },
      }),
      context(plan, { failedDesigns: [failed] }),
    );
    expect(problems.map((p) => p.code)).toEqual(['repeated-redesign']);
    expect(problems[0]?.message).toContain('the same as the current steps 5, 6');
  });

  it('compares signatures only when every normalised description matches', () => {
    const plan = examplePlan();
    const signatureCalls: string[] = [];
    const design = (label: string, descriptions: string[], signature: string) => ({
      label,
      size: 2,
      descriptions: () => new Set(descriptions),
      signature: () => {
        signatureCalls.push(label);
        return signature;
      },
    });
    const answer = redesign({
      action: 'redesign',
      steps: [{ description: 'Write the API.' }, { description: 'Write TESTS' }],
      dependencies: { '1': [0] },
    });
    const other = design('other', ['write the api', 'deploy'], 'never compared');
    const same = design(
      'same',
      ['write tests', 'write the api'],
      'write tests <- [> write the api]\nwrite the api <- []',
    );
    expect(validateRedesign(answer, context(plan, { failedDesigns: [other] }))).toEqual([]);
    expect(signatureCalls).toEqual([]);
    const problems = validateRedesign(answer, context(plan, { failedDesigns: [other, same] }));
    expect(problems.map((p) => p.code)).toEqual(['repeated-redesign']);
    expect(problems[0]?.message).toContain('the same as same');
    expect(signatureCalls).toEqual(['same']);
  });
});

describe('designSignature', () => {
  const isCompleted = () => false;
  it('differs when the dependency structure differs', () => {
    const chain = designSignature(
      [
        { description: 'a', dependsOn: [] },
        { description: 'b', dependsOn: [0] },
      ],
      { isCompleted },
    );
    const parallel = designSignature(
      [
        { description: 'a', dependsOn: [] },
        { description: 'b', dependsOn: [] },
      ],
      { isCompleted },
    );
    expect(chain).not.toBe(parallel);
  });

  it('keeps dependencies on unfinished kept steps, drops completed ones', () => {
    const a = designSignature([{ description: 'a', dependsOn: ['x'] }], { isCompleted: (id) => id === 'y' });
    const b = designSignature([{ description: 'a', dependsOn: ['x', 'y'] }], {
      isCompleted: (id) => id === 'y',
    });
    const c = designSignature([{ description: 'a', dependsOn: [] }], { isCompleted: (id) => id === 'y' });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('normalises descriptions', () => {
    expect(normalizeDescription('  Write   the API. ')).toBe('write the api');
    expect(normalizeDescription('寫測試。')).toBe('寫測試');
  });

  it('normalises exactly like collapse + trim + drop trailing punctuation (fast path included)', () => {
    const slow = (text: string) =>
      text
        .toLowerCase()
        .replace(/\s+/g, ' ')
        .trim()
        .replace(/[.!;:。]+$/u, '')
        .trim();
    const samples = [
      'Write the API',
      'write the api',
      'a\tb',
      'a\nb',
      'a  b',
      ' a',
      'a ',
      'done.',
      'done!;',
      'x . ',
      'ÄRGER über Ü',
      '',
      ' ',
      'a\u00a0b',
      'end:',
    ];
    for (const text of samples) expect(normalizeDescription(text)).toBe(slow(text));
  });
});

/**
 * Property: on random plans and random drafts, the replanner's validation agrees with the plan's
 * own surgery checks — a draft it accepts is always applied, a draft the plan refuses is always
 * flagged — and applying keeps every completed step intact.
 */
describe('validateRedesign agrees with plan.replaceSubgraph (property)', () => {
  const planArbitrary = fc.integer({ min: 2, max: 12 }).chain((size) =>
    fc.record({
      deps: fc.tuple(
        ...Array.from({ length: size }, (_, index) =>
          fc.subarray(
            Array.from({ length: index }, (_, d) => d),
            { maxLength: Math.min(3, index) },
          ),
        ),
      ),
      completedCount: fc.integer({ min: 0, max: size - 1 }),
      drafts: fc.array(
        fc.record({
          deps: fc.array(
            fc.oneof(
              { weight: 8, arbitrary: fc.integer({ min: 0, max: 4 }) },
              { weight: 1, arbitrary: fc.constantFrom(-1, 1.5) },
              { weight: 1, arbitrary: fc.constant('unknown') },
              { weight: 3, arbitrary: fc.integer({ min: 0, max: size - 1 }).map((n) => `s-${n}`) },
            ),
            { maxLength: 3 },
          ),
        }),
        { minLength: 1, maxLength: 5 },
      ),
    }),
  );

  it('holds for random plans and drafts', () => {
    fc.assert(
      fc.property(planArbitrary, ({ deps, completedCount, drafts }) => {
        const plan = Plan.create(
          {
            goal: 'g',
            steps: deps.map((list, index) => ({
              id: `s-${index}`,
              description: `step ${index}`,
              dependsOn: list.map((d) => `s-${d}`),
            })),
          },
          { id: 'prop', clock: tickingClock() },
        );
        // Complete steps in topological (= index) order while they are ready, then fail one.
        let done = 0;
        for (let index = 0; index < deps.length && done < completedCount; index++) {
          if (plan.readySteps().includes(`s-${index}`)) {
            completeStep(plan, `s-${index}`);
            done++;
          }
        }
        const failed = plan.readySteps()[0];
        if (failed === undefined) return;
        failStep(plan, failed);
        const removed = new Set<StepId>([failed, ...plan.downstreamOf(failed)]);
        const completedBefore = plan.steps.filter((step) => step.status === 'completed');

        const draft = redesign({
          action: 'redesign',
          steps: drafts.map((_, index) => ({ description: `new ${index}` })),
          dependencies: Object.fromEntries(drafts.map((d, index) => [String(index), d.deps])),
        });
        const problems = validateRedesign(draft, {
          plan,
          removed,
          blockedAfter: new Set(),
          toolNames: new Set(),
          failedDesigns: [],
        });
        // Dependencies on kept steps that are not finished are allowed by the plan but may be
        // unsatisfiable (failed/blocked); this generator only leaves not_started/completed ones.
        const planVerdict = (() => {
          try {
            plan.replaceSubgraph(failed, {
              steps: draft.steps.map((step, index) => ({
                description: step.description,
                dependsOn: [...new Set(draft.dependencies[String(index)] ?? [])],
              })),
            });
            return 'applied';
          } catch (error) {
            if (!PlanError.isInstance(error)) throw error;
            return error.code;
          }
        })();
        expect(problems.length === 0).toBe(planVerdict === 'applied');
        if (planVerdict === 'applied') {
          for (const step of completedBefore) expect(plan.step(step.id)).toEqual(step);
          expect(Plan.replay(plan.events).toJSON()).toEqual(plan.toJSON());
        }
      }),
      { numRuns: 300, seed: 20260126 },
    );
  });
});

describe('weakened redesigns', () => {
  it('asksForChange reads the verbs outside quotes', () => {
    expect(asksForChange('Add tests for `parse`')).toBe(true);
    expect(asksForChange('Review `parse` and report what it does')).toBe(false);
    expect(asksForChange('Check that "set" is documented')).toBe(false);
  });

  it('rejects a change replaced by steps that only look, and names dropped by the redesign', () => {
    expect(
      weakenedWork(['Add tests for `parse`'], [{ description: 'Review `parse`' }]).map((p) => p.code),
    ).toEqual(['weakened-redesign']);
    const dropped = weakenedWork(
      ['Add `mul` and `div` to src/math.js'],
      [{ description: 'Add `mul` to src/math.js' }],
    );
    expect(dropped).toEqual([
      expect.objectContaining({
        code: 'weakened-redesign',
        message: expect.stringMatching(/`div`, which no new step names/),
      }),
    ]);
  });

  it('accepts a redesign that still does the work, or requires a tool that acts', () => {
    expect(
      weakenedWork(
        ['Add tests for `parse`'],
        [{ description: 'Read `parse`' }, { description: 'Write tests for `parse`' }],
      ),
    ).toEqual([]);
    expect(
      weakenedWork(
        ['Add tests for `parse`'],
        [{ description: '`parse` tests', requiredTools: ['write_file'] }],
      ),
    ).toEqual([]);
    expect(weakenedWork(['Review the API'], [{ description: 'Read the API docs' }])).toEqual([]);
  });

  it('validateRedesign reports it for the removed steps of the plan', () => {
    const plan = Plan.create({ steps: [{ id: 'p', description: 'Add tests for `parse`' }] });
    const problems = validateRedesign(
      redesign({ action: 'redesign', steps: [{ description: 'Review `parse`' }], dependencies: {} }),
      context(plan, { removed: new Set(['p']) }),
    );
    expect(problems.map((problem) => problem.code)).toEqual(['weakened-redesign']);
  });
});
