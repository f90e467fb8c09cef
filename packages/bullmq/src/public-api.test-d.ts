import * as bullmq from '@closedloop/bullmq';
import {
  type Coordinator,
  type CoordinatorOptions,
  createCoordinator,
  createRedisRunStore,
  createRunClient,
  createStepDispatcher,
  createStepWorker,
  type RedisRunStore,
  type RedisRunStoreOptions,
  type RunClient,
  type RunClientOptions,
  type ScaleOutError,
  type ScaleOutErrorCode,
  type StepDispatcher,
  type StepWorker,
  type StepWorkerOptions,
} from '@closedloop/bullmq';
import { type RedisServer, startRedisServer } from '@closedloop/bullmq/testing';
import type { RunResult, RunStore, StepTaskRunner } from '@closedloop/cortex';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/bullmq public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof bullmq>().toEqualTypeOf<
      | 'createCoordinator'
      | 'createRedisRunStore'
      | 'createRunClient'
      | 'createStepDispatcher'
      | 'createStepWorker'
      | 'pingRedis'
      | 'runSpecSchema'
      | 'ScaleOutError'
    >();
  });

  it('scales a cortex out over BullMQ and Redis', () => {
    expectTypeOf(createRedisRunStore).parameter(0).toEqualTypeOf<RedisRunStoreOptions>();
    expectTypeOf(createRedisRunStore).returns.toEqualTypeOf<RedisRunStore>();
    expectTypeOf<RedisRunStore>().toExtend<RunStore>();
    expectTypeOf(createStepDispatcher).returns.toEqualTypeOf<StepDispatcher>();
    expectTypeOf<StepDispatcher['runnerFor']>().returns.toEqualTypeOf<StepTaskRunner>();
    expectTypeOf(createStepWorker).parameter(0).toEqualTypeOf<StepWorkerOptions>();
    expectTypeOf(createStepWorker).returns.toEqualTypeOf<StepWorker>();
    expectTypeOf(createCoordinator).parameter(0).toEqualTypeOf<CoordinatorOptions>();
    expectTypeOf(createCoordinator).returns.toEqualTypeOf<Coordinator>();
    expectTypeOf(createRunClient).parameter(0).toEqualTypeOf<RunClientOptions>();
    expectTypeOf<RunClient['result']>().returns.resolves.toEqualTypeOf<RunResult>();
    expectTypeOf<ScaleOutError['code']>().toEqualTypeOf<ScaleOutErrorCode>();
    expectTypeOf(startRedisServer).returns.resolves.toEqualTypeOf<RedisServer>();
  });

  it('keeps job ids and key prefixes out of the root', () => {
    // @ts-expect-error runJobId is not exported
    bullmq.runJobId;
    // @ts-expect-error defaultPrefix is not exported
    bullmq.defaultPrefix;
  });
});
