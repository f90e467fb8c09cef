import { ExecutorError, type ExecutorErrorCode } from '@closedloop/executor';
import { ModelError, type ModelErrorCode } from '@closedloop/model';
import { ConformanceError } from '@closedloop/model/conformance';
import { CassetteError } from '@closedloop/model/testing';
import { PlanError, type PlanErrorCode } from '@closedloop/plan';
import { ReplannerError, type ReplannerErrorCode } from '@closedloop/replanner';
import { ToolError, type ToolErrorCode } from '@closedloop/tools';
import { VerifierError, type VerifierErrorCode } from '@closedloop/verifier';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CortexError, type CortexErrorCode, ClosedloopError as ReExported } from './index';

/** One error of every class of the core packages, each with a cause. */
function oneOfEach(cause: Error) {
  return [
    new PlanError({ code: 'cycle', message: 'cycle a → b → a', details: { cycle: ['a', 'b', 'a'] }, cause }),
    new ModelError({ code: 'overloaded', message: 'overloaded', status: 529, cause }),
    new CassetteError({ code: 'cassette-mismatch', message: 'mismatch', cause }),
    new ConformanceError({ code: 'invalid-options', message: 'bad options', cause }),
    new ToolError({ code: 'path-escape', message: 'escape', details: { path: '../x' }, cause }),
    new VerifierError({ code: 'unknown-profile', message: 'no profile', details: { profile: 'x' }, cause }),
    new ExecutorError({ code: 'unknown-step', message: 'no step', details: { stepId: 's' }, cause }),
    new ReplannerError({ code: 'invalid-input', message: 'bad', details: { failedIds: [] }, cause }),
    new CortexError({ code: 'unknown-run', message: 'no run', details: { runId: 'r' }, cause }),
  ] as const;
}

describe('every core error extends ClosedloopError', () => {
  it('is instanceof ClosedloopError, passes ClosedloopError.isInstance, keeps its name and cause', () => {
    const cause = new Error('root cause');
    const errors = oneOfEach(cause);
    for (const error of errors) {
      expect(error, error.name).toBeInstanceOf(ReExported);
      expect(ReExported.isInstance(error), error.name).toBe(true);
      expect(error.cause, error.name).toBe(cause);
      expect(String(error), error.name).toBe(`${error.name}: ${error.message}`);
    }
    expect(errors.map((error) => error.name)).toEqual([
      'PlanError',
      'ModelError',
      'CassetteError',
      'ConformanceError',
      'ToolError',
      'VerifierError',
      'ExecutorError',
      'ReplannerError',
      'CortexError',
    ]);
  });

  it("each subclass's isInstance is true only for its own class", () => {
    const errors = oneOfEach(new Error('x'));
    const checks = [
      PlanError,
      ModelError,
      CassetteError,
      ConformanceError,
      ToolError,
      VerifierError,
      ExecutorError,
      ReplannerError,
      CortexError,
    ];
    for (const [row, check] of checks.entries()) {
      expect(
        errors.map((error) => check.isInstance(error)),
        check.name,
      ).toEqual(errors.map((_, column) => column === row));
    }
  });

  it('isInstance works for an error made by another copy of a package (its Symbol.for markers)', () => {
    // What a second installed copy of @closedloop/plan would throw: not our class, but an error
    // that carries the same registry symbols.
    const foreign = Object.assign(new Error('cycle'), {
      [Symbol.for('closedloop.error')]: true,
      [Symbol.for('closedloop.plan.error')]: true,
      code: 'cycle',
    });
    expect(foreign instanceof PlanError).toBe(false);
    expect(PlanError.isInstance(foreign)).toBe(true);
    expect(ReExported.isInstance(foreign)).toBe(true);
    expect(CortexError.isInstance(foreign)).toBe(false);
  });

  it('types each code union and typed details', () => {
    const [plan, model, , , tool, verifier, executor, replanner, cortex] = oneOfEach(new Error('x'));
    expectTypeOf(plan.code).toEqualTypeOf<'cycle'>();
    expectTypeOf(plan.details.cycle).toEqualTypeOf<readonly string[]>();
    expectTypeOf(model.code).toEqualTypeOf<ModelErrorCode>();
    expectTypeOf(model.details.status).toEqualTypeOf<number | undefined>();
    expectTypeOf(tool.code).toEqualTypeOf<ToolErrorCode>();
    expectTypeOf(verifier.code).toEqualTypeOf<VerifierErrorCode>();
    expectTypeOf(executor.code).toEqualTypeOf<ExecutorErrorCode>();
    expectTypeOf(replanner.code).toEqualTypeOf<ReplannerErrorCode>();
    expectTypeOf(cortex.code).toEqualTypeOf<CortexErrorCode>();
    expectTypeOf(cortex.details).toEqualTypeOf<Readonly<Record<string, unknown>>>();
    const caught: unknown = plan;
    if (PlanError.isInstance(caught)) {
      expectTypeOf(caught.code).toEqualTypeOf<PlanErrorCode>();
      if (caught.hasCode('illegal-transition')) expectTypeOf(caught.details.stepId).toEqualTypeOf<string>();
    }
    // @ts-expect-error a code PlanError does not have
    new PlanError({ code: 'no-such-code', message: 'x' });
    // @ts-expect-error details of the wrong shape for the code
    new PlanError({ code: 'cycle', message: 'x', details: { stepId: 'a' } });
  });
});
