import * as executor from '@closedloop/executor';
import {
  type ExecuteStepOptions,
  type ExecutorError,
  type ExecutorErrorCode,
  type ExecutorEvent,
  executeStep,
  type StepExecutionResult,
  type StepStopReason,
} from '@closedloop/executor';
import type { ChatModel } from '@closedloop/model';
import type { Plan, StepId } from '@closedloop/plan';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/executor public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof executor>().toEqualTypeOf<
      'executeStep' | 'ExecutorError' | 'markStepToolName'
    >();
  });

  it('executes one step of a plan', () => {
    expectTypeOf(executeStep).parameters.toEqualTypeOf<[Plan, StepId, ExecuteStepOptions]>();
    expectTypeOf(executeStep).returns.resolves.toEqualTypeOf<StepExecutionResult>();
    expectTypeOf<ExecuteStepOptions['model']>().toEqualTypeOf<ChatModel>();
    expectTypeOf<StepExecutionResult['stopReason']>().toEqualTypeOf<StepStopReason>();
    expectTypeOf<ExecutorEvent['type']>().toBeString();
    expectTypeOf<ExecutorError['code']>().toEqualTypeOf<ExecutorErrorCode>();
    expectTypeOf<ExecutorError>().toExtend<Error>();
  });

  it('keeps its prompts and loop internals out of the root', () => {
    // @ts-expect-error buildStepPrompt is not exported
    executor.buildStepPrompt;
    // @ts-expect-error executorSystemPrompt is not exported
    executor.executorSystemPrompt;
    // @ts-expect-error markStepToolSpec is not exported
    executor.markStepToolSpec;
  });
});
