/**
 * Helpers other closedloop packages need from @closedloop/verifier. Not part of the public API: they may
 * change in any release, without a major version.
 *
 * @packageDocumentation
 */
export { type ConfidenceClass, classifyConfidence } from './confidence';
export { claimExtractionSystemPrompt } from './extract-claims-with-model';
export { validateProtocols } from './run-protocols';
export { toolCallGuardSystemPrompt } from './tool-call-guard';
export { parseToolContracts } from './tool-contracts';
export { unverifiedReason } from './verdict';
