import type { Finding } from './finding';
import type { LedgerAnalysis } from './ledger-evidence';

/** How the executor's loop ended (the executor's `StepExecutionResult`, structurally). */
export interface ExecutionEnd {
  /** `marked`, `no-tool-calls`, `success-cap`, `max-iterations`, `repeated-call`, `aborted`, `model-error`… */
  stopReason: string;
  /** The model failure, for `model-error`. */
  error?: { code?: string; message: string };
}

/**
 * Machinery failures are failures: a model error, an abort or an exhausted limit before the step
 * was marked makes it fail (P0 for a dead model or an abort, P1 for a limit); a step that ended
 * without `mark_step` and without one successful call did nothing (P0). A step that ended
 * without `mark_step` after real calls is judged on its evidence (P2 note).
 */
export function checkExecution(end: ExecutionEnd | undefined, analysis: LedgerAnalysis): Finding[] {
  if (end === undefined) return [];
  const finding = (priority: Finding['priority'], status: Finding['status'], message: string): Finding[] => [
    { check: 'execution', priority, status, message },
  ];
  switch (end.stopReason) {
    case 'marked':
      return finding('P0', 'pass', 'The step ended with mark_step.');
    case 'model-error':
      return finding(
        'P0',
        'fail',
        `The model failed for good (after retries): ${end.error?.message ?? 'unknown error'}${end.error?.code ? ` (${end.error.code})` : ''}.`,
      );
    case 'aborted':
      return finding('P0', 'fail', 'The step was aborted before it finished.');
    case 'max-iterations':
    case 'repeated-call':
      return finding(
        'P1',
        'fail',
        end.stopReason === 'max-iterations'
          ? 'The step used all its model turns without calling mark_step.'
          : 'The step repeated the same tool call with the same arguments until it was stopped.',
      );
    case 'success-cap':
      if (analysis.successCount > 0)
        return finding('P0', 'pass', 'The step reached its limit of successful tool rounds and summarised.');
      return finding('P0', 'fail', 'The model answered without doing anything (no successful tool call).');
    default:
      if (analysis.successCount === 0)
        return finding(
          'P0',
          'fail',
          `The model answered without doing anything (no mark_step, no successful tool call; end: ${end.stopReason}).`,
        );
      return finding(
        'P2',
        'warn',
        `The step ended without mark_step (${end.stopReason}); it is judged on its tool calls and its final text.`,
      );
  }
}
