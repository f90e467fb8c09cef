export {
  type Coordinator,
  type CoordinatorEvent,
  type CoordinatorOptions,
  createCoordinator,
} from './coordinator';
export { pingRedis, type RedisConnection } from './redis-connection';
export {
  createRedisRunStore,
  type IndexedEvent,
  type RedisRunStore,
  type RedisRunStoreOptions,
  type StoredRun,
  type TailOptions,
} from './redis-run-store';
export { createRunClient, type RunClient, type RunClientOptions } from './run-client';
export { ScaleOutError, type ScaleOutErrorCode } from './scale-out-error';
export { createStepDispatcher, type StepDispatcher, type StepDispatcherOptions } from './step-dispatcher';
export { type RunSpec, type RunSpecInput, runSpecSchema } from './step-jobs';
export {
  type CortexFactory,
  createStepWorker,
  type StepWorker,
  type StepWorkerEvent,
  type StepWorkerOptions,
} from './step-worker';
