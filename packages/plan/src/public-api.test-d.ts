import * as plan from '@closedloop/plan';
import {
  Plan,
  type PlanError,
  type PlanErrorCode,
  type PlanEvent,
  type PlanInput,
  type PlanSnapshot,
  type ReadonlyStep,
  type StepId,
  type StepStatus,
} from '@closedloop/plan';
import { findIndexCycle, stepClaimsSchema } from '@closedloop/plan/internal';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/plan public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof plan>().toEqualTypeOf<
      | 'formatStepNotes'
      | 'isLegalTransition'
      | 'isTerminalStatus'
      | 'parseStepNotes'
      | 'Plan'
      | 'PLAN_SNAPSHOT_VERSION'
      | 'PlanError'
      | 'planEventSchema'
      | 'planInputSchema'
      | 'planSnapshotSchema'
    >();
  });

  it('creates, snapshots and replays plans', () => {
    expectTypeOf(Plan.create).parameter(0).toEqualTypeOf<PlanInput>();
    expectTypeOf(Plan.create).returns.toEqualTypeOf<Plan>();
    expectTypeOf(Plan.fromJSON).returns.toEqualTypeOf<Plan>();
    expectTypeOf(Plan.replay).parameter(0).toEqualTypeOf<readonly unknown[]>();
    expectTypeOf<Plan['toJSON']>().returns.toEqualTypeOf<PlanSnapshot>();
    expectTypeOf<Plan['readStep']>().parameter(0).toEqualTypeOf<StepId>();
    expectTypeOf<Plan['readStep']>().returns.toEqualTypeOf<ReadonlyStep>();
    expectTypeOf<ReadonlyStep['status']>().toEqualTypeOf<StepStatus>();
    expectTypeOf<PlanEvent['type']>().toBeString();
    expectTypeOf<PlanError['code']>().toEqualTypeOf<PlanErrorCode>();
  });

  it('keeps helpers for other closedloop packages out of the root', () => {
    // @ts-expect-error findIndexCycle is internal (@closedloop/plan/internal)
    plan.findIndexCycle;
    // @ts-expect-error stepSchema is not exported
    plan.stepSchema;
    // @ts-expect-error truncateText is not exported
    plan.truncateText;
    expectTypeOf(findIndexCycle).toBeFunction();
    expectTypeOf(stepClaimsSchema.parse).toBeFunction();
  });
});
