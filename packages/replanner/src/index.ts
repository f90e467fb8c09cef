export {
  type BuildReplanPromptOptions,
  createReplanner,
  type ReplanGiveUpOutcome,
  type ReplanGiveUpReason,
  type Replanner,
  type ReplannerOptions,
  type ReplanOptions,
  type ReplanOutcome,
  type ReplanRedesignOutcome,
} from './create-replanner';
export {
  type DesignStep,
  designSignature,
  type IdDesignStep,
  normalizeDescription,
  toDesignSteps,
} from './design-signature';
export type { EarlierRedesign, EarlierRedesignStep } from './replan-history';
export { replannerSystemPrompt } from './replan-prompt';
export {
  type ReplanGiveUp,
  type ReplanRedesign,
  type ReplanResult,
  type ReplanResultInput,
  type ReplanStep,
  replanGiveUpSchema,
  replanRedesignSchema,
  replanResultSchema,
  replanStepSchema,
} from './replan-result';
export { ReplannerError, type ReplannerErrorCode } from './replanner-error';
export type { ReplannerTool } from './replanner-tools';
export {
  type FailedDesign,
  failedDesign,
  type RedesignProblem,
  type RedesignProblemCode,
  type RedesignValidationContext,
  validateRedesign,
} from './validate-redesign';
