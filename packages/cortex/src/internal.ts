/**
 * Helpers other closedloop packages need from @closedloop/cortex. Not part of the public API: they may
 * change in any release, without a major version.
 *
 * @packageDocumentation
 */
export { aggregatorSystemPrompt } from './aggregate-answer';
export { plannerSystemPrompt } from './draft-plan';
