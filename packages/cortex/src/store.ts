/**
 * For authors of a `RunStore` (a Redis, SQL or cloud store): the run-id check and the lease
 * helpers every store shares — the errors a held or lost lease gives, a lease holder's identity,
 * the resolved lease timings and the heartbeat that renews a lease. `@closedloop/bullmq`'s Redis
 * store is built from these; check a store with `runStoreConformance` from
 * `@closedloop/cortex/testing`.
 *
 * @packageDocumentation
 */
export {
  type LeaseHolder,
  leaseHeldError,
  leaseLostError,
  newLeaseHolder,
  resolveLeaseOptions,
  startHeartbeat,
} from './run-lease';
export { assertRunId } from './run-store';
