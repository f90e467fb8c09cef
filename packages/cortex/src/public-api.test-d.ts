import * as cortex from '@closedloop/cortex';
import {
  type Cortex,
  type CortexOptions,
  createCortex,
  createJsonlRunStore,
  createMemoryRunStore,
  type RunEvent,
  type RunEventStream,
  type RunResult,
  type RunStore,
  type StopReason,
  stopReasons,
} from '@closedloop/cortex';
import { plannerSystemPrompt } from '@closedloop/cortex/internal';
import { assertRunId, leaseHeldError, startHeartbeat } from '@closedloop/cortex/store';
import type { ChatModel } from '@closedloop/model';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/cortex public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof cortex>().toEqualTypeOf<
      | 'ClosedloopError'
      | 'CortexError'
      | 'createCortex'
      | 'createJsonlRunStore'
      | 'createMemoryRunStore'
      | 'createRunId'
      | 'isJournaled'
      | 'isPlanEvent'
      | 'isResumableStop'
      | 'isRunEventOf'
      | 'isSimpleRequest'
      | 'isStopReason'
      | 'planEventTypes'
      | 'stopReasons'
      | 'uncertainCallPolicies'
    >();
  });

  it('creates a cortex from a model and tools', () => {
    expectTypeOf(createCortex).parameter(0).toEqualTypeOf<CortexOptions>();
    expectTypeOf(createCortex).returns.toEqualTypeOf<Cortex>();
    expectTypeOf<CortexOptions['model']>().toEqualTypeOf<ChatModel>();
    expectTypeOf<Cortex['run']>().returns.resolves.toEqualTypeOf<RunResult>();
    expectTypeOf<Cortex['events']>().returns.toEqualTypeOf<RunEventStream>();
    expectTypeOf<RunEventStream>().toExtend<AsyncIterable<RunEvent>>();
    expectTypeOf<RunResult['stopReason']>().toEqualTypeOf<StopReason>();
    expectTypeOf(stopReasons).toExtend<readonly StopReason[]>();
  });

  it('stores runs in memory or in JSONL journals', () => {
    expectTypeOf(createMemoryRunStore).returns.toEqualTypeOf<RunStore>();
    expectTypeOf(createJsonlRunStore).returns.toExtend<RunStore>();
  });

  it('keeps helpers for other closedloop packages out of the root', () => {
    // @ts-expect-error assertRunId is for store authors (@closedloop/cortex/store)
    cortex.assertRunId;
    // @ts-expect-error scheduleSteps is not exported
    cortex.scheduleSteps;
    // @ts-expect-error draftPlan is not exported
    cortex.draftPlan;
    expectTypeOf(assertRunId).parameter(0).toBeUnknown();
    expectTypeOf(startHeartbeat).toBeFunction();
    expectTypeOf(leaseHeldError).toBeFunction();
    expectTypeOf(plannerSystemPrompt).toBeString();
  });
});
