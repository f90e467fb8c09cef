import { executeStep } from '@closedloop/executor';
import type { Plan, StepId } from '@closedloop/plan';
import { toVerificationRecord, verifyStep } from '@closedloop/verifier';
import type { ApprovalDesk } from './approvals';
import { errorMessage } from './error-message';
import type { ModelMeter } from './meter-model';
import type { CortexEventInput } from './run-bus';
import type { StepRunOutcome } from './schedule-steps';
import type { SessionConfig } from './session-config';

/** What {@link runStep} needs from its run. */
export interface RunStepContext {
  plan: Plan;
  config: SessionConfig;
  meter: ModelMeter;
  approvals: ApprovalDesk;
  /** The user's request, the executor's goal context. */
  request: string;
  emit: (event: CortexEventInput) => void;
}

/** True when a verification left the step unverified (no evidence either way). */
function isUnverified(verification: { unverified?: boolean; verdict: string } | undefined): boolean {
  return (
    verification !== undefined && (verification.unverified === true || verification.verdict === 'unverified')
  );
}

/**
 * Runs one step, then verifies it against its evidence: `executeStep` (tool calls through the
 * registry, the ledger first), then `verifyStep`, whose record is stored on the step. The step's
 * own signal is linked to the run's, so listeners never pile up on the run signal. Reports
 * `completed` or `failed` (with `[FAIL]` notes from the failing findings) and, as `detail`, the
 * verdict, confidence and the unverified dependencies it built on.
 */
export async function runStep(
  context: RunStepContext,
  stepId: StepId,
  runSignal: AbortSignal,
): Promise<StepRunOutcome> {
  const controller = new AbortController();
  const forward = () => controller.abort(runSignal.reason);
  if (runSignal.aborted) forward();
  else runSignal.addEventListener('abort', forward, { once: true });
  try {
    return await executeAndVerify(context, stepId, controller.signal);
  } finally {
    runSignal.removeEventListener('abort', forward);
  }
}

async function executeAndVerify(
  context: RunStepContext,
  stepId: StepId,
  signal: AbortSignal,
): Promise<StepRunOutcome> {
  const { plan, config, meter, approvals } = context;
  const executor = config.executor;
  const execution = await executeStep(plan, stepId, {
    model: meter.wrap(config.model, 'step', stepId),
    tools: config.registry,
    signal,
    context: { goal: context.request },
    onEvent: (event) => context.emit(event),
    onAskHuman: (request) => approvals.approveToolCall(request),
    ...(executor.mode !== undefined ? { mode: executor.mode } : {}),
    ...(executor.limits !== undefined ? { limits: executor.limits } : {}),
    ...(executor.parallelTools !== undefined ? { parallelTools: executor.parallelTools } : {}),
    ...(executor.stream !== undefined ? { stream: executor.stream } : {}),
    ...(executor.systemPrompt !== undefined ? { systemPrompt: executor.systemPrompt } : {}),
    ...(executor.toolTimeoutMs !== undefined ? { toolTimeoutMs: executor.toolTimeoutMs } : {}),
    ...(executor.guard !== undefined ? { guard: executor.guard } : {}),
  });
  if (signal.aborted) {
    return { status: 'failed', notes: `[FAIL]: ${errorMessage(signal.reason ?? 'aborted')}` };
  }
  const report = await verifyStep(plan, stepId, {
    ...(config.workspace !== undefined ? { workspace: config.workspace } : {}),
    ...(config.runner !== undefined ? { runner: config.runner } : {}),
    ...(config.verifier.contracts !== undefined ? { contracts: config.verifier.contracts } : {}),
    ...(config.verifier.profile !== undefined ? { profile: config.verifier.profile } : {}),
    protocols: config.verifier.protocols,
    model: meter.wrap(config.verifierModel, 'verifier', stepId),
    onHumanReview: (review) => approvals.review(stepId, review),
    signal,
  });
  const record = plan.recordVerification(stepId, toVerificationRecord(report));
  for (const finding of record.findings) {
    if (finding.status !== 'pass') context.emit({ type: 'finding-reported', scope: 'step', stepId, finding });
  }
  const step = plan.readStep(stepId);
  const unverifiedUpstream = step.dependsOn.filter(
    (id) => plan.has(id) && isUnverified(plan.readStep(id).verification),
  );
  const detail = {
    verdict: record.verdict,
    unverified: isUnverified(record),
    ...(record.confidence !== undefined ? { confidence: record.confidence } : {}),
    unverifiedUpstream,
  };
  if (record.verdict === 'retry' || record.verdict === 'failed') {
    const failing = record.findings
      .filter((finding) => finding.status === 'fail')
      .map((finding) => `${finding.check}: ${finding.message}`);
    return {
      status: 'failed',
      detail,
      ...(execution.stopReason === 'model-error' && execution.error
        ? { notes: `[FAIL]: model error: ${execution.error.message}` }
        : failing.length > 0 && !step.notes.startsWith('[FAIL]')
          ? { notes: `[FAIL]: verification failed: ${failing.join('; ')}` }
          : {}),
    };
  }
  return { status: 'completed', detail };
}
