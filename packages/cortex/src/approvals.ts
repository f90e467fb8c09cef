import type { AskHumanRequest } from '@closedloop/executor';
import type { StepId } from '@closedloop/plan';
import type { HumanReviewDecision, HumanReviewRequest } from '@closedloop/verifier';
import { errorMessage } from './error-message';
import type { RunBus } from './run-bus';
import type { CortexEvent, RunEvent } from './run-events';

/**
 * A human decision request: a guarded tool call, a human-review protocol, or an interrupted step.
 * The fields of the journaled `approval-requested` event, plus the run id, what a reviewer is
 * shown and the run's signal.
 */
export interface ApprovalRequest extends Omit<Extract<CortexEvent, { type: 'approval-requested' }>, 'type'> {
  runId: string;
  /** For `human-review`: what the reviewer is shown (summary, changed files, diff, risks). */
  review?: HumanReviewRequest;
  signal: AbortSignal;
}

/** A human's answer. For `human-review`, `decision` may say `modify` (the step is retried). */
export interface ApprovalDecision {
  approved: boolean;
  note?: string;
  decision?: HumanReviewDecision['decision'];
}

function callKey(question: { kind: string; stepId: string; callId?: string }): string {
  return `${question.kind}:${question.stepId}:${question.callId ?? ''}`;
}

/** Answers approval requests; may take as long as it likes (the run waits for that step only). */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** What an approval asks, before the desk adds the run id, its own id and the run's signal. */
export type ApprovalQuestion = Omit<ApprovalRequest, 'runId' | 'approvalId' | 'signal'>;

/**
 * Where a run asks humans: every question is journaled (`approval-requested`, flushed to the
 * store before the handler is called, so a crash re-asks on resume) and every answer too
 * (`approval-resolved`). A question about a call that the journal already holds an answer to
 * (same kind, step and call id — e.g. a crash came after the answer, before the call ran) is not
 * asked again: the journaled answer stands. Without a handler, or when it throws, the answer is
 * "no".
 */
export class ApprovalDesk {
  readonly #runId: string;
  readonly #bus: RunBus;
  readonly #handler: ApprovalHandler | undefined;
  readonly #signal: AbortSignal;
  #asked = 0;
  /** Journaled answers of questions about one call, by `kind:stepId:callId`. */
  readonly #answered = new Map<string, ApprovalDecision>();

  constructor(options: {
    runId: string;
    bus: RunBus;
    handler: ApprovalHandler | undefined;
    signal: AbortSignal;
  }) {
    this.#runId = options.runId;
    this.#bus = options.bus;
    this.#handler = options.handler;
    this.#signal = options.signal;
  }

  /** Counts the approvals a journaled run already asked for, so new ids do not repeat them. */
  restore(history: readonly RunEvent[]): void {
    const keys = new Map<string, string>();
    for (const event of history) {
      if (event.type === 'approval-requested') {
        this.#asked++;
        if (event.callId !== undefined) keys.set(event.approvalId, callKey(event));
      } else if (event.type === 'approval-resolved') {
        const key = keys.get(event.approvalId);
        if (key !== undefined) {
          this.#answered.set(key, {
            approved: event.approved,
            ...(event.note !== undefined ? { note: event.note } : {}),
          });
        }
      }
    }
  }

  /** Asks a human and journals question and answer. Never throws. */
  async ask(question: ApprovalQuestion): Promise<ApprovalDecision> {
    const answered = question.callId === undefined ? undefined : this.#answered.get(callKey(question));
    if (answered !== undefined) return answered;
    const approvalId = `approval-${++this.#asked}`;
    this.#bus.emit({
      type: 'approval-requested',
      approvalId,
      stepId: question.stepId,
      kind: question.kind,
      reason: question.reason,
      ...(question.tool !== undefined ? { tool: question.tool } : {}),
      ...(question.args !== undefined ? { args: question.args } : {}),
      ...(question.callId !== undefined ? { callId: question.callId } : {}),
    });
    // Make sure the request is on disk before a human is asked: a crash now re-asks on resume.
    await this.#bus.flush();
    let decision: ApprovalDecision;
    if (!this.#handler) decision = { approved: false, note: 'no onApproval handler is configured' };
    else {
      try {
        decision = await this.#handler({
          ...question,
          runId: this.#runId,
          approvalId,
          signal: this.#signal,
        });
      } catch (error) {
        decision = { approved: false, note: `onApproval threw: ${errorMessage(error)}` };
      }
    }
    this.#bus.emit({
      type: 'approval-resolved',
      approvalId,
      stepId: question.stepId,
      approved: decision.approved === true,
      ...(decision.note !== undefined ? { note: decision.note } : {}),
    });
    return decision;
  }

  /** The executor's `onAskHuman`: a guarded tool call runs only when a human approves it. */
  async approveToolCall(request: AskHumanRequest): Promise<boolean> {
    const decision = await this.ask({
      stepId: request.stepId,
      kind: 'tool-call',
      reason: request.reason,
      tool: request.tool.name,
      args: request.args,
      callId: request.callId,
    });
    return decision.approved === true;
  }

  /** The verifier's `onHumanReview` for a step or for the goal. */
  async review(stepId: StepId | 'goal', review: HumanReviewRequest): Promise<HumanReviewDecision> {
    const decision = await this.ask({
      stepId,
      kind: 'human-review',
      reason: review.reasons.join('; ') || 'human review requested',
      review,
    });
    const verdict = decision.decision ?? (decision.approved ? 'approve' : 'reject');
    return { decision: verdict, ...(decision.note !== undefined ? { comment: decision.note } : {}) };
  }
}
