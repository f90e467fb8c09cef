import type { StepReplay } from '@closedloop/executor';
import type { Plan, StepId } from '@closedloop/plan';
import type { ToolRegistry } from '@closedloop/tools';
import type { ApprovalDecision, ApprovalQuestion } from './approvals';
import { reconcileUncertainCall, type UncertainCallPolicy } from './reconcile-call';
import { findChangedEffects } from './recorded-file-effects';
import type { CortexEventInput } from './run-bus';
import type { RunEvent } from './run-events';
import { readStepRecording } from './step-recording';

/** A step the settling of its uncertain call stopped: the caller marks it (its call is finalized). */
export interface StoppedStep {
  status: 'blocked' | 'failed';
  /** The `[FAIL]` note: what was uncertain and why it was not run again. */
  notes: string;
}

/** What {@link recoverInterrupted} found: the steps to continue and the steps it stopped. */
export interface RecoveredSteps {
  replays: Map<StepId, StepReplay>;
  stopped: Map<StepId, StoppedStep>;
}

/**
 * After a crash or an abort, continues every step still `in_progress` from its journal instead
 * of re-running it: returns, per step, the replay of its interrupted attempt (recorded model turns
 * and the attempt's ledger entries; for a retry, which attempt it was and its instructions) its
 * executor is given — recorded results come from the ledger — so no answered model call or tool
 * call is repeated, and an attempt already verified is not run again.
 *
 * First the one uncertain kind of call is settled: a call that started (`tool-call-dispatched`)
 * but has no recorded result ({@link reconcileUncertainCall}). Its result is recorded when the
 * workspace shows it took effect (or a human accepts it), it is left to run again when it is
 * safe to, and otherwise the step stops (returned in `stopped` for the caller to mark): `blocked`
 * without approval, `failed` (and replanned) under `onUncertain: 'fail'`. Each decision is journaled as `tool-call-reconciled`.
 */
export async function recoverInterrupted(options: {
  plan: Plan;
  history: readonly RunEvent[];
  registry: ToolRegistry;
  workspace: string | undefined;
  onUncertain: UncertainCallPolicy;
  ask: (question: ApprovalQuestion) => Promise<ApprovalDecision>;
  emit: (event: CortexEventInput) => void;
}): Promise<RecoveredSteps> {
  const { plan, history, registry } = options;
  const replays = new Map<StepId, StepReplay>();
  const stopped = new Map<StepId, StoppedStep>();
  for (const stepId of plan.idsWithStatus('in_progress')) {
    const recording = readStepRecording(history, stepId);
    const uncertain = plan
      .readStep(stepId)
      .ledger.filter((call) => call.status === 'pending' && recording.dispatched.has(call.callId));
    for (const call of uncertain) {
      const settled = await reconcileUncertainCall({
        stepId,
        call,
        before: recording.dispatched.get(call.callId)?.before,
        processes: recording.processes.get(call.callId) ?? [],
        processTag: recording.dispatched.get(call.callId)?.processTag,
        registry,
        workspace: options.workspace,
        policy: options.onUncertain,
        ask: options.ask,
      });
      options.emit({
        type: 'tool-call-reconciled',
        stepId,
        callId: call.callId,
        tool: call.tool,
        outcome: settled.outcome,
        detail: settled.detail,
      });
      if (settled.action === 'record') {
        plan.recordToolResult(stepId, {
          callId: call.callId,
          tool: call.tool,
          status: settled.status ?? 'error',
          ...(settled.status === 'success' ? { result: settled.text } : { error: settled.text }),
        });
      } else if (settled.action === 'block' || settled.action === 'fail') {
        plan.recordToolResult(stepId, {
          callId: call.callId,
          tool: call.tool,
          status: 'error',
          error: `Error (interrupted): ${settled.text.replace(/^\[FAIL\]: /, '')}`,
        });
        plan.finalizeStep(stepId);
        stopped.set(stepId, {
          status: settled.action === 'block' ? 'blocked' : 'failed',
          notes: settled.text,
        });
        break;
      }
    }
  }
  await settleChangedEffects({ ...options, stopped });
  for (const stepId of plan.idsWithStatus('in_progress')) {
    const recording = readStepRecording(history, stepId);
    if (!stopped.has(stepId)) {
      const attempt = recording.attempts.at(-1)!;
      replays.set(stepId, {
        turns: attempt.turns,
        callIds: attempt.callIds,
        attempt: recording.attempts.length,
        ...(attempt.instructions !== undefined ? { instructions: attempt.instructions } : {}),
      });
    }
  }
  return { replays, stopped };
}

/**
 * A file an interrupted step wrote (its result recorded) that changed before the resume is not
 * the step's effect any more, and it is not written again either (that would repeat an effect
 * that happened): under `ask` a human decides whether the step goes on with the workspace as it
 * is, otherwise (or denied) the step stops — `failed` and replanned under `fail` / `rerun`,
 * `blocked` when the human says no — with what changed in its note.
 */
async function settleChangedEffects(options: {
  plan: Plan;
  history: readonly RunEvent[];
  workspace: string | undefined;
  onUncertain: UncertainCallPolicy;
  ask: (question: ApprovalQuestion) => Promise<ApprovalDecision>;
  emit: (event: CortexEventInput) => void;
  stopped: Map<StepId, StoppedStep>;
}): Promise<void> {
  const { plan, stopped } = options;
  const changes = findChangedEffects(options).filter((change) => !stopped.has(change.stepId));
  for (const stepId of new Set(changes.map((change) => change.stepId))) {
    const ofStep = changes.filter((change) => change.stepId === stepId);
    const evidence = ofStep.map((change) => change.detail).join('; ');
    let outcome: 'accepted' | 'declined' | 'failed' = 'failed';
    let note = '';
    if (options.onUncertain === 'ask') {
      const first = ofStep[0]!;
      const decision = await options.ask({
        stepId,
        kind: 'resume-review',
        tool: first.tool,
        callId: first.callId,
        reason: `The workspace changed between the interruption and this resume: ${evidence}. Approve to go on with the files as they are now (the change is not the step's own work and is not undone); deny to stop the step for review.`,
      });
      outcome = decision.approved ? 'accepted' : 'declined';
      note = decision.note ? ` (${decision.note})` : '';
    }
    for (const change of ofStep) {
      options.emit({
        type: 'tool-call-reconciled',
        stepId,
        callId: change.callId,
        tool: change.tool,
        outcome,
        detail: change.detail,
      });
    }
    if (outcome === 'accepted') continue;
    plan.finalizeStep(stepId);
    stopped.set(stepId, {
      status: outcome === 'declined' ? 'blocked' : 'failed',
      notes: `[FAIL]: resumed after an interruption, but what the step had written was changed by something else meanwhile (${evidence})${
        outcome === 'declined'
          ? `; not approved to go on${note}, needs review`
          : "; it is not written again and not taken as the step's work"
      }`,
    });
  }
}
