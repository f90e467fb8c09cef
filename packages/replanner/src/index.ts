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
export type { EarlierRedesign, EarlierRedesignStep } from './replan-history';
export type {
  ReplanGiveUp,
  ReplanRedesign,
  ReplanResult,
  ReplanResultInput,
  ReplanStep,
} from './replan-result';
export { ReplannerError, type ReplannerErrorCode } from './replanner-error';
export type { ReplannerTool } from './replanner-tools';
export type { RedesignProblem, RedesignProblemCode } from './validate-redesign';
