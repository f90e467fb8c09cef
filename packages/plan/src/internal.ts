/**
 * Helpers other closedloop packages need from @closedloop/plan. Not part of the public API: they may
 * change in any release, without a major version.
 *
 * @packageDocumentation
 */
export { findIndexCycle } from './graph';
export { markStepWithoutCopy } from './plan';
export { stepClaimsSchema } from './schema';
