import type { Plan, StepId } from '@closedloop/plan';
import type { ToolRegistry } from '@closedloop/tools';
import type { ApprovalDecision, ApprovalQuestion } from './approvals';
import { unsafeInterruptedCalls } from './interrupted-calls';
import type { RunEvent } from './run-events';

/**
 * After a crash or an abort: steps still `in_progress` are re-run when every tool they already
 * called is idempotent; otherwise a human is asked (`resume-review`) and, without approval, the
 * step is blocked with a note. A re-run goes through `plan.resetStep` (event `step-reset`): the
 * interrupted attempt's ledger, notes and verdict are archived in `previousAttempts`, so its
 * unanswered calls never fail the new attempt's verification.
 */
export async function recoverInterrupted(options: {
  plan: Plan;
  history: readonly RunEvent[];
  registry: ToolRegistry;
  ask: (question: ApprovalQuestion) => Promise<ApprovalDecision>;
}): Promise<void> {
  const { plan, history, registry } = options;
  const interrupted = plan.idsWithStatus('in_progress').map((id) => plan.step(id));
  if (interrupted.length === 0) return;
  const rerun: { id: StepId; reason: string }[] = [];
  const review: { id: StepId; unsafe: string[] }[] = [];
  for (const step of interrupted) {
    const unsafe = unsafeInterruptedCalls({ step, history, registry });
    if (unsafe.length === 0) {
      rerun.push({
        id: step.id,
        reason: `resume: interrupted${step.ledger.length > 0 ? ' after idempotent tool calls only' : ''}; re-run`,
      });
    } else review.push({ id: step.id, unsafe: [...new Set(unsafe)] });
  }
  for (const { id, unsafe } of review) {
    const decision = await options.ask({
      stepId: id,
      kind: 'resume-review',
      reason: `step "${id}" was interrupted after calling non-idempotent tool(s) ${unsafe.join(', ')}; re-run it?`,
    });
    if (decision.approved) {
      rerun.push({
        id,
        reason: `resume: interrupted after non-idempotent tool(s) ${unsafe.join(', ')}; re-run approved${decision.note ? ` (${decision.note})` : ''}`,
      });
    } else {
      plan.markStep(id, {
        status: 'blocked',
        notes: `[FAIL]: interrupted while running non-idempotent tool(s) ${unsafe.join(', ')}; needs review before it is re-run${decision.note ? ` (${decision.note})` : ''}`,
      });
    }
  }
  for (const { id, reason } of rerun) plan.resetStep(id, { reason });
}
