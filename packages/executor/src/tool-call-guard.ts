import type { AnyTool } from '@closedloop/tools';
import type {
  GuardCheckInput,
  GuardDecision,
  ToolCallGuard as VerifierToolCallGuard,
} from '@closedloop/verifier';

export type { GuardCheckInput, GuardDecision };

/**
 * Pre-execution check of a tool call: anything with the `check` method of the guard that
 * `createToolCallGuard` from `@closedloop/verifier` builds (which is one), so custom guards need
 * no `classify`. The executor passes validated arguments and the run's signal.
 */
export type ToolCallGuard = Pick<VerifierToolCallGuard, 'check'>;

/** What `onAskHuman` receives when the guard answers `ask-human`. */
export interface AskHumanRequest {
  stepId: string;
  callId: string;
  tool: AnyTool;
  args: unknown;
  reason: string;
  signal: AbortSignal;
}
