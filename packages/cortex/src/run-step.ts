import {
  type ExecuteStepOptions,
  executeStep,
  type StepExecutionResult,
  type StepJournal,
} from '@closedloop/executor';
import type { ModelError } from '@closedloop/model';
import type { Plan, StepId } from '@closedloop/plan';
import { isCountedRegistry, runInProcessScope } from '@closedloop/tools/internal';
import {
  createToolCallGuard,
  snapshotWorkspace,
  toVerificationRecord,
  type VerificationReport,
  type VerifyStepOptions,
  verifyStep,
  type WorkspaceSnapshot,
} from '@closedloop/verifier';
import { classifyConfidence, unverifiedReason } from '@closedloop/verifier/internal';
import type { ApprovalDesk } from './approvals';
import { errorMessage } from './error-message';
import type { ModelMeter } from './meter-model';
import { modelUnavailable, modelUnavailableReason } from './model-unavailable';
import type { CortexEventInput } from './run-bus';
import type { StepRunOutcome } from './schedule-steps';
import type { SessionConfig } from './session-config';

/** What {@link runStep} needs from its run. */
export interface RunStepContext {
  /** The run the step belongs to (its steps' walks of the workspace may serve each other). */
  runId: string;
  plan: Plan;
  config: SessionConfig;
  meter: ModelMeter;
  approvals: ApprovalDesk;
  /** The user's request, the executor's goal context. */
  request: string;
  emit: (event: CortexEventInput) => void;
  /** The model cannot be reached at all: the run stops with `model-unavailable`. */
  onModelUnavailable: (error: ModelError) => void;
  /** A journaled run's durability hooks for the step (commit points, snapshots, its replay on resume). */
  journal?: (stepId: StepId) => StepJournal | undefined;
  /**
   * A step continued from an earlier attempt's journal: what files held before its calls first
   * touched them (absolute path → sha256, `null`: missing), from the journaled dispatch snapshots.
   * Verified without a baseline, those files are judged by content, not by file times.
   */
  priorStates?: ReadonlyMap<string, string | null>;
  /**
   * The process scope the verification runs in (`verificationScopeOf(runId, workspace)`): a resume kills what
   * a killed owner's verification left running by it.
   */
  verificationScope?: string;
}

/** What a verified run of a step tells the session about it (the `detail` of its outcome). */
interface StepOutcomeDetail {
  verdict: string;
  unverified: boolean;
  confidence?: number;
  confidenceBand?: ReturnType<typeof classifyConfidence>;
  unverifiedUpstream?: StepId[];
  attempts?: number;
  unverifiedReason?: string;
}

/** True when a verification left the step unverified (no evidence either way). */
function isUnverified(verification: { unverified?: boolean; verdict: string } | undefined): boolean {
  return (
    verification !== undefined && (verification.unverified === true || verification.verdict === 'unverified')
  );
}

/**
 * Runs one step, then verifies it against its evidence: a baseline snapshot of the workspace,
 * `executeStep` (tool calls through the registry, the ledger first), then `verifyStep` against
 * that baseline with how the executor ended and its confidence. The record is stored on the
 * step. `stepSignal` is the step's own signal (the scheduler gives each step one, aborted when
 * the run aborts): it is the one signal everything inside the step shares, so nothing adds a
 * listener to the run's signal per step.
 *
 * - A model that cannot be reached at all stops the run (`onModelUnavailable`); any other
 *   machinery failure (model error after retries, exhausted limit, no `mark_step` and nothing
 *   done) fails the step, so it is replanned — never `completed`.
 * - `success` / `success-with-warnings` → `completed`; `retry` / `failed` → `failed`.
 * - `unverified` → one more attempt with the reasons (the same baseline), then `failed` (it joins
 *   the replan batch); with `acceptUnverified: 'warn'` it is `completed`, flagged unverified.
 */
export async function runStep(
  context: RunStepContext,
  stepId: StepId,
  stepSignal: AbortSignal,
): Promise<StepRunOutcome> {
  return executeAndVerify(context, stepId, stepSignal);
}

function execute(
  context: RunStepContext,
  stepId: StepId,
  signal: AbortSignal,
  feedback: string | undefined,
  journal: StepJournal | undefined,
) {
  const { config, meter, approvals } = context;
  const executor = config.executor;
  const systemPrompt = [executor.systemPrompt, feedback]
    .filter((part): part is string => !!part)
    .join('\n\n');
  // Destructive calls are verified by default (with the verifier model, metered); `false` is explicit.
  const guard =
    executor.guard === false
      ? undefined
      : (executor.guard ??
        createToolCallGuard({
          model: meter.wrap(config.verifierModel, 'verifier', stepId),
          mode: 'destructive',
          ...(config.workspace !== undefined ? { workspace: config.workspace } : {}),
        }));
  // Built field by field: a conditional spread per option costs an allocation and a slow copy,
  // and this runs for every step.
  const options: ExecuteStepOptions = {
    model: meter.wrap(config.model, 'step', stepId),
    tools: config.registry,
    signal,
    context: { goal: context.request },
    onEvent: context.emit,
    onAskHuman: (request) => approvals.approveToolCall(request),
  };
  if (executor.mode !== undefined) options.mode = executor.mode;
  if (executor.limits !== undefined) options.limits = executor.limits;
  if (executor.parallelTools !== undefined) options.parallelTools = executor.parallelTools;
  if (executor.stream !== undefined) options.stream = executor.stream;
  if (systemPrompt !== '') options.systemPrompt = systemPrompt;
  if (executor.toolTimeoutMs !== undefined) options.toolTimeoutMs = executor.toolTimeoutMs;
  if (guard) options.guard = guard;
  if (journal !== undefined) options.journal = journal;
  return executeStep(context.plan, stepId, options);
}

function verify(
  context: RunStepContext,
  stepId: StepId,
  execution: StepExecutionResult,
  baseline: WorkspaceSnapshot | undefined,
  signal: AbortSignal,
): Promise<VerificationReport> {
  const { config, meter, approvals } = context;
  const scope = context.verificationScope;
  if (scope !== undefined)
    return runInProcessScope(scope, () =>
      verify({ ...context, verificationScope: undefined }, stepId, execution, baseline, signal),
    );
  // Built field by field, in the order the verifier always got them (no conditional spreads on
  // this per-step path: each cost an allocation and a slow copy).
  const options: VerifyStepOptions = {};
  if (config.workspace !== undefined) options.workspace = config.workspace;
  if (baseline !== undefined) options.baseline = baseline;
  else if (context.priorStates !== undefined) options.priorStates = context.priorStates;
  options.execution = execution.error
    ? {
        stopReason: execution.stopReason,
        error: { code: execution.error.code, message: execution.error.message },
      }
    : { stopReason: execution.stopReason };
  if (execution.confidence !== undefined) options.confidence = execution.confidence;
  if (config.runner !== undefined) options.runner = config.runner;
  if (config.verifier.contracts !== undefined) options.contracts = config.verifier.contracts;
  if (config.verifier.profile !== undefined) options.profile = config.verifier.profile;
  if (config.verifier.claimExtraction === 'model')
    options.claimModel = meter.wrap(config.verifierModel, 'verifier', stepId);
  options.protocols = config.verifier.protocols;
  options.model = meter.wrap(config.verifierModel, 'verifier', stepId);
  options.onHumanReview = (review) => approvals.review(stepId, review);
  options.signal = signal;
  return verifyStep(context.plan, stepId, options);
}

/** The verifier's reasons, as the retry's instructions. */
function retryInstructions(report: VerificationReport, reason: string): string {
  const open = report.findings
    .filter((finding) => finding.status === 'error' || finding.status === 'fail' || finding.status === 'skip')
    .map((finding) => `- ${finding.check}: ${finding.message}`)
    .slice(0, 12);
  return [
    'A previous attempt of this step could not be verified:',
    reason,
    ...open,
    'Do the step again so that the workspace shows it: make the changes with the tools, run what must pass, and',
    'report with mark_step only what the tool results show (name the files, commands and symbols).',
  ].join('\n');
}

/**
 * How old a walk of the workspace by the same run a step's baseline may reuse (see `reuse` of
 * `snapshotWorkspace`): short enough that the step could as well have started then.
 */
const baselineReuseMs = 50;

async function executeAndVerify(
  context: RunStepContext,
  stepId: StepId,
  signal: AbortSignal,
): Promise<StepRunOutcome> {
  const { plan, config } = context;
  // A journaled run's hooks; a step continued from the journal replays its interrupted attempt.
  const firstJournal = context.journal?.(stepId);
  // The step's baseline: change is judged against the workspace as this step found it. A step
  // continued from the journal acted before this process started, so a snapshot now would hide
  // its own changes: it is judged without one (file times since its first call, git, the ledger).
  const resumed = firstJournal?.replay !== undefined;
  // A walk of the workspace moments ago, with no tool call or command of this process run since
  // (the previous step's final one, typically), is the workspace as this step finds it.
  const baseline =
    config.workspace !== undefined && !resumed
      ? snapshotWorkspace(config.workspace, {
          reuse: {
            scope: context.runId,
            // A registry not made by createToolRegistry could write uncounted: no reuse then.
            withinMs: isCountedRegistry(config.registry) ? baselineReuseMs : 0,
          },
        })
      : undefined;
  // A step interrupted in its retry continues the retry (its earlier attempt was verified already).
  let feedback = firstJournal?.replay?.instructions;
  let attempts = Math.max((firstJournal?.replay?.attempt ?? 1) - 1, 0);
  for (let first = true; ; first = false) {
    attempts += 1;
    const journal = first ? firstJournal : context.journal?.(stepId);
    const execution = await execute(context, stepId, signal, feedback, journal);
    if (signal.aborted) {
      return { status: 'failed', notes: `[FAIL]: ${errorMessage(signal.reason ?? 'aborted')}` };
    }
    const unavailable =
      execution.stopReason === 'model-error' ? modelUnavailable(execution.error) : undefined;
    if (unavailable !== undefined) {
      const reason = modelUnavailableReason(unavailable);
      plan.recordVerification(stepId, {
        verdict: 'failed',
        findings: [{ check: 'execution', priority: 'P0', status: 'fail', message: reason }],
      });
      context.onModelUnavailable(unavailable);
      return {
        status: 'failed',
        notes: `[FAIL]: ${reason}`,
        detail: { verdict: 'failed', unverified: false, unverifiedUpstream: [], attempts },
      };
    }
    const report = await verify(context, stepId, execution, baseline, signal);
    const record = plan.recordVerification(stepId, toVerificationRecord(report));
    for (const finding of record.findings) {
      if (finding.status !== 'pass')
        context.emit({ type: 'finding-reported', scope: 'step', stepId, finding });
    }
    const step = plan.readStep(stepId);
    const unverifiedUpstream = step.dependsOn.filter(
      (id) => plan.has(id) && isUnverified(plan.readStep(id).verification),
    );
    const why = unverifiedReason(report.findings);
    const detail: StepOutcomeDetail = { verdict: record.verdict, unverified: isUnverified(record) };
    if (record.confidence !== undefined) {
      detail.confidence = record.confidence;
      detail.confidenceBand = classifyConfidence(record.confidence);
    }
    detail.unverifiedUpstream = unverifiedUpstream;
    detail.attempts = attempts;
    if (why !== undefined) detail.unverifiedReason = why;
    if (record.verdict === 'unverified' && config.acceptUnverified !== 'warn') {
      // One more attempt with the reasons, then the replan batch.
      if (attempts === 1 && execution.stopReason !== 'model-error' && execution.stopReason !== 'aborted') {
        feedback = retryInstructions(report, why ?? 'unverified');
        context.emit({
          type: 'step-retried',
          stepId,
          attempt: attempts + 1,
          reason: why ?? 'unverified',
          instructions: feedback,
        });
        continue;
      }
      return {
        status: 'failed',
        detail,
        notes: `[FAIL]: unverified after ${attempts} attempt(s): ${why ?? 'no evidence'}`,
      };
    }
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
}
