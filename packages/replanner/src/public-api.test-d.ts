import type { ChatModel } from '@closedloop/model';
import type { Plan, StepId } from '@closedloop/plan';
import * as replanner from '@closedloop/replanner';
import {
  createReplanner,
  type Replanner,
  type ReplannerError,
  type ReplannerErrorCode,
  type ReplannerOptions,
  type ReplanOptions,
  type ReplanOutcome,
} from '@closedloop/replanner';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/replanner public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof replanner>().toEqualTypeOf<'createReplanner' | 'ReplannerError'>();
  });

  it('creates a replanner that redesigns failed steps', () => {
    expectTypeOf(createReplanner).parameter(0).toEqualTypeOf<ReplannerOptions>();
    expectTypeOf(createReplanner).returns.toEqualTypeOf<Replanner>();
    expectTypeOf<ReplannerOptions['model']>().toEqualTypeOf<ChatModel>();
    expectTypeOf<Replanner['replan']>().parameters.toEqualTypeOf<[Plan, readonly StepId[], ReplanOptions]>();
    expectTypeOf<Replanner['replan']>().returns.resolves.toEqualTypeOf<ReplanOutcome>();
    expectTypeOf<ReplannerError['code']>().toEqualTypeOf<ReplannerErrorCode>();
  });

  it('keeps its prompt and validation internals out of the root', () => {
    // @ts-expect-error replannerSystemPrompt is not exported
    replanner.replannerSystemPrompt;
    // @ts-expect-error validateRedesign is not exported
    replanner.validateRedesign;
    // @ts-expect-error replanResultSchema is not exported
    replanner.replanResultSchema;
  });
});
