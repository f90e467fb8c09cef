import {
  type AskHumanRequest,
  type ExecutionLimits,
  type ExecutionMode,
  executeStep,
  type ToolCallGuard,
} from '@closedloop/executor';
import type { ChatModel, PriceTable } from '@closedloop/model';
import { Plan, type PlanEvent, type Step, type StepId } from '@closedloop/plan';
import { createReplanner, type Replanner, ReplannerError } from '@closedloop/replanner';
import type { ToolRegistry } from '@closedloop/tools';
import {
  type HumanReviewDecision,
  type HumanReviewRequest,
  type Protocol,
  type SuccessCriterionInput,
  toVerificationRecord,
  type VerificationMode,
  verifyStep,
} from '@closedloop/verifier';
import { aggregateAnswer, fallbackAnswer } from './aggregate-answer';
import { CortexError } from './cortex-error';
import {
  assessFindings,
  decideTermination,
  type FindingLike,
  type TerminationDecision,
} from './decide-termination';
import { directPlan, draftPlan } from './draft-plan';
import { verifyGoalFindings } from './goal-verification';
import { unsafeInterruptedCalls } from './interrupted-calls';
import { isSimpleRequest } from './is-simple-request';
import { createModelMeter, type ModelMeter, type RunBudget } from './meter-model';
import { RunBus } from './run-bus';
import { isPlanEvent, type ModelCallPurpose, type RunEvent } from './run-events';
import { buildRunReport, type RunResult, summarizeStep } from './run-result';
import type { RunStore } from './run-store';
import { type StepRunOutcome, scheduleSteps } from './schedule-steps';
import { createStallDetector, normalizeError, type StallDetector } from './stall-detector';
import { fingerprintWorkspace, hashJson } from './state-hash';
import type { StopReason } from './stop-reason';

/** How a run decides whether to call the planner. */
export type PlanningMode = 'auto' | 'always' | 'never';

/** A human decision request: a guarded tool call, a human-review protocol, or an interrupted step. */
export interface ApprovalRequest {
  runId: string;
  approvalId: string;
  stepId: StepId;
  kind: 'tool-call' | 'human-review' | 'resume-review';
  reason: string;
  tool?: string;
  args?: unknown;
  /** For `tool-call`: the ledger id of the call the guard holds. */
  callId?: string;
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

/** Answers approval requests; may take as long as it likes (the run waits for that step only). */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** How steps are executed (passed to `executeStep` of `@closedloop/executor`). */
export interface ExecutorSettings {
  mode?: ExecutionMode;
  limits?: ExecutionLimits;
  parallelTools?: number;
  stream?: boolean;
  systemPrompt?: string;
  toolTimeoutMs?: number;
  /** Pre-execution check of tool calls (`createToolCallGuard` from `@closedloop/verifier`). */
  guard?: ToolCallGuard;
}

/** Everything a run session needs, resolved from `createCortex` options. */
export interface SessionConfig {
  model: ChatModel;
  plannerModel: ChatModel;
  replannerModel: ChatModel;
  verifierModel: ChatModel;
  replanner: { maxAttempts?: number; maxResultChars?: number; temperature?: number };
  registry: ToolRegistry;
  workspace: string | undefined;
  planning: PlanningMode;
  executor: ExecutorSettings;
  verifier: {
    protocols: Protocol[];
    protocolNames: string[];
    contracts?: unknown;
    profile?: string;
    mode?: VerificationMode;
    goal: boolean | 'derive';
    criteria?: readonly SuccessCriterionInput[];
  };
  concurrency: number;
  maxIterations: number;
  replanWindowMs: number;
  budget: RunBudget;
  prices?: PriceTable;
  deadlines: { runMs?: number; stepMs?: number };
  store: RunStore | undefined;
  onEvent?: (event: RunEvent) => void;
  onApproval?: ApprovalHandler;
  clock: () => number;
}

type StopCause = { stopReason: StopReason; reason: string };

const resumableStops: ReadonlySet<StopReason> = new Set(['cancelled', 'deadline', 'budget-exhausted']);

/** True when `resume` continues a run that stopped this way (others return the stored result). */
export function isResumableStop(stopReason: StopReason): boolean {
  return resumableStops.has(stopReason);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** One run (or one resumed continuation of a run) of a cortex. */
export class RunSession {
  readonly runId: string;
  readonly request: string;
  readonly bus: RunBus;
  readonly #config: SessionConfig;
  readonly #controller = new AbortController();
  #stopCause: StopCause | undefined;
  #meter!: ModelMeter;
  #plan: Plan | undefined;
  #unsubscribePlan: (() => void) | undefined;
  #replanner!: Replanner;
  #successCriteria: string[] = [];
  #goalProtocols: string[] = [];
  #iteration = 0;
  #maxIterations: number;
  #extended = false;
  readonly #stall: StallDetector = createStallDetector();
  #batches = 0;
  #approvals = 0;
  #planning: PlanningMode;
  readonly #resumed: boolean;
  #storedFinish: Extract<RunEvent, { type: 'run-finished' }> | undefined;

  constructor(options: {
    config: SessionConfig;
    runId: string;
    request: string;
    planning?: PlanningMode;
    history?: RunEvent[];
    listener?: (event: RunEvent) => void;
  }) {
    this.#config = options.config;
    this.runId = options.runId;
    this.request = options.request;
    this.#planning = options.planning ?? options.config.planning;
    this.#maxIterations = options.config.maxIterations;
    this.#resumed = (options.history?.length ?? 0) > 0;
    this.bus = new RunBus({
      runId: options.runId,
      store: options.config.store,
      clock: options.config.clock,
      history: options.history ?? [],
      onEvent: options.config.onEvent,
    });
    if (options.listener) this.bus.subscribe(options.listener);
  }

  /** The stored result of a run that already finished for good (resume returns it). */
  get finished(): boolean {
    return this.#storedFinish !== undefined;
  }

  /** Runs (or continues) the run until it stops. Never throws. */
  async run(signal: AbortSignal | undefined): Promise<RunResult> {
    const { clock } = this.#config;
    const startedAt = clock();
    if (this.#storedFinish) return this.#result(this.#storedFinish, startedAt);
    const cleanup = this.#armStops(signal);
    this.#meter = createModelMeter({
      signal: this.#controller.signal,
      budget: this.#config.budget,
      ...(this.#config.prices ? { prices: this.#config.prices } : {}),
      initial: this.#usageSoFar(),
      onUsage: (record) => this.bus.emit({ type: 'usage-recorded', ...record }),
      onExhausted: (message) => this.#stop('budget-exhausted', message),
    });
    this.#replanner = createReplanner({
      model: this.#meter.wrap(this.#config.replannerModel, 'replanner'),
      ...this.#config.replanner,
    });
    this.bus.emit({ type: 'run-started', request: this.request, resumed: this.#resumed });
    let decision: { stopReason: StopReason; reason: string } | undefined;
    let failure: { code?: string; message: string } | undefined;
    try {
      if (!this.#plan) await this.#makePlan();
      else await this.#recoverInterrupted();
      decision = await this.#loop();
    } catch (error) {
      if (!this.#stopCause) {
        const code = errorCode(error);
        failure = { ...(code !== undefined ? { code } : {}), message: errorMessage(error) };
        decision = {
          stopReason: 'failed',
          reason:
            CortexError.isInstance(error) && error.code === 'invalid-plan'
              ? `no valid plan: ${error.message}`
              : `the run failed: ${failure.message}`,
        };
      }
    }
    const final = this.#stopCause ??
      decision ?? { stopReason: 'failed' as const, reason: 'the run ended without a decision' };
    const answer = await this.#answer(final);
    cleanup();
    const finished = this.bus.emit({
      type: 'run-finished',
      stopReason: final.stopReason,
      reason: final.reason,
      answer: answer.answer,
      answerSource: answer.source,
      ...(failure ? { error: failure } : {}),
    }) as Extract<RunEvent, { type: 'run-finished' }>;
    this.#unsubscribePlan?.();
    await this.bus.flush();
    return this.#result(finished, startedAt);
  }

  // ─── restoring a journaled run ──────────────────────────────────────────────────────────

  /**
   * Rebuilds the run's state from its journal: the plan (`Plan.replay` of every plan event),
   * goal criteria, iteration counters and stall history. Usage is summed when the meter starts.
   */
  restore(history: readonly RunEvent[]): void {
    const finish = history.findLast((event) => event.type === 'run-finished');
    if (finish && finish.type === 'run-finished' && !isResumableStop(finish.stopReason))
      this.#storedFinish = finish;
    for (const event of history) {
      if (event.type === 'plan-drafted') {
        this.#successCriteria = [...event.successCriteria];
        this.#goalProtocols = [...event.protocols];
      }
      if (event.type === 'iteration-finished') {
        this.#iteration = Math.max(this.#iteration, event.iteration);
        this.#maxIterations = event.maxIterations;
        if (event.maxIterations > this.#config.maxIterations) this.#extended = true;
        if (event.stateHash !== undefined) {
          this.#stall.observe({
            errorSignature: event.errorSignature,
            stateHash: event.stateHash,
            metric: event.metric ?? 0,
          });
        }
      }
      if (event.type === 'replan-requested') this.#batches = Math.max(this.#batches, event.batch);
      if (event.type === 'approval-requested') this.#approvals++;
    }
    const planEvents = history.filter(isPlanEvent);
    const strip = (event: PlanEvent & { runId?: string }): PlanEvent => {
      const { runId: _runId, ...rest } = event;
      return rest as PlanEvent;
    };
    if (planEvents.length > 0) {
      this.#setPlan(Plan.replay(planEvents.map(strip), { clock: this.#config.clock }), false);
    }
  }

  /**
   * After a crash or an abort: steps still `in_progress` are re-run when every tool they already
   * called is idempotent; otherwise a human is asked (`resume-review`) and, without approval, the
   * step is blocked with a note. A re-run goes through `plan.resetStep` (event `step-reset`): the
   * interrupted attempt's ledger, notes and verdict are archived in `previousAttempts`, so its
   * unanswered calls never fail the new attempt's verification.
   */
  async #recoverInterrupted(): Promise<void> {
    const plan = this.#plan!;
    const interrupted = plan.steps.filter((step) => step.status === 'in_progress');
    if (interrupted.length === 0) return;
    const rerun: { id: StepId; reason: string }[] = [];
    const review: Step[] = [];
    for (const step of interrupted) {
      const unsafe = unsafeInterruptedCalls({
        step,
        history: this.bus.history,
        registry: this.#config.registry,
      });
      if (unsafe.length === 0) {
        rerun.push({
          id: step.id,
          reason: `resume: interrupted${step.ledger.length > 0 ? ' after idempotent tool calls only' : ''}; re-run`,
        });
      } else review.push(step);
    }
    for (const step of review) {
      const unsafe = [
        ...new Set(
          unsafeInterruptedCalls({ step, history: this.bus.history, registry: this.#config.registry }),
        ),
      ];
      const decision = await this.#askApproval({
        stepId: step.id,
        kind: 'resume-review',
        reason: `step "${step.id}" was interrupted after calling non-idempotent tool(s) ${unsafe.join(', ')}; re-run it?`,
      });
      if (decision.approved) {
        rerun.push({
          id: step.id,
          reason: `resume: interrupted after non-idempotent tool(s) ${unsafe.join(', ')}; re-run approved${decision.note ? ` (${decision.note})` : ''}`,
        });
      } else {
        plan.markStep(step.id, {
          status: 'blocked',
          notes: `[FAIL]: interrupted while running non-idempotent tool(s) ${unsafe.join(', ')}; needs review before it is re-run${decision.note ? ` (${decision.note})` : ''}`,
        });
      }
    }
    for (const { id, reason } of rerun) plan.resetStep(id, { reason });
  }

  // ─── planning ───────────────────────────────────────────────────────────────────────────

  async #makePlan(): Promise<void> {
    const mode = this.#planning;
    const direct = mode === 'never' || (mode === 'auto' && isSimpleRequest(this.request));
    if (direct) {
      const plan = directPlan(this.request, { clock: this.#config.clock });
      this.bus.emit({
        type: 'plan-drafted',
        planId: plan.id,
        source: 'direct',
        successCriteria: [],
        protocols: [],
        attempts: 0,
      });
      this.#setPlan(plan, true);
      return;
    }
    const drafted = await draftPlan({
      model: this.#meter.wrap(this.#config.plannerModel, 'planner'),
      request: this.request,
      tools: this.#config.registry.specs(),
      protocols: this.#config.verifier.protocolNames,
      signal: this.#controller.signal,
      clock: this.#config.clock,
    });
    this.#successCriteria = drafted.output.successCriteria;
    this.#goalProtocols = drafted.output.protocols;
    this.bus.emit({
      type: 'plan-drafted',
      planId: drafted.plan.id,
      source: 'planner',
      successCriteria: this.#successCriteria,
      protocols: this.#goalProtocols,
      attempts: drafted.attempts,
    });
    this.#setPlan(drafted.plan, true);
  }

  /**
   * Makes `plan` the run's plan and forwards its events to the bus from now on; `journal` also
   * forwards its existing event log (a new plan; a replayed one is already in the journal). Every
   * later change of the plan, resets and added steps included, is one of its own events, so the
   * journal's plan events alone rebuild it (`Plan.replay`).
   */
  #setPlan(plan: Plan, journal: boolean): void {
    this.#unsubscribePlan?.();
    this.#plan = plan;
    if (journal) for (const event of plan.events) this.bus.forwardPlan(event);
    this.#unsubscribePlan = plan.subscribe((event) => this.bus.forwardPlan(event));
  }

  // ─── the loop ───────────────────────────────────────────────────────────────────────────

  async #loop(): Promise<StopCause | undefined> {
    const config = this.#config;
    for (;;) {
      const plan = this.#plan!;
      const failed = plan.steps.filter((step) => step.status === 'failed').map((step) => step.id);
      await scheduleSteps({
        plan,
        concurrency: config.concurrency,
        replanWindowMs: config.replanWindowMs,
        signal: this.#controller.signal,
        ...(config.deadlines.stepMs !== undefined ? { stepTimeoutMs: config.deadlines.stepMs } : {}),
        initialFailed: failed,
        runStep: (stepId, context) => this.#runStep(stepId, context.signal),
        replan: (batch) => this.#replan(batch, 'step-failed'),
        onStepStarted: (stepId) => {
          this.bus.emit({ type: 'step-started', stepId, attempt: plan.step(stepId).replanAttempts });
        },
        onStepFinished: (stepId, outcome) => {
          const detail = (outcome.detail ?? {}) as Partial<Extract<RunEvent, { type: 'step-finished' }>>;
          this.bus.emit({
            type: 'step-finished',
            stepId,
            status: outcome.status,
            ...(detail.verdict !== undefined ? { verdict: detail.verdict } : {}),
            unverified: detail.unverified ?? false,
            ...(detail.confidence !== undefined ? { confidence: detail.confidence } : {}),
            ...(detail.unverifiedUpstream?.length ? { unverifiedUpstream: detail.unverifiedUpstream } : {}),
            durationMs: Math.round(outcome.durationMs * 1000) / 1000,
            ...(outcome.error !== undefined ? { error: outcome.error } : {}),
          });
        },
      });
      if (this.#controller.signal.aborted) return this.#stopCause;

      const findings = await this.#verifyGoal();
      if (this.#controller.signal.aborted) return this.#stopCause;
      const decision = this.#decide(findings);
      if (decision.action === 'stop') return { stopReason: decision.stopReason, reason: decision.reason };
      this.#maxIterations = decision.maxIterations;
      this.#extended = decision.extended;
      const repaired = await this.#goalRepair(findings);
      if (this.#controller.signal.aborted) return this.#stopCause;
      if (!repaired.ok) return { stopReason: 'blocked', reason: `goal repair gave up: ${repaired.message}` };
    }
  }

  #decide(findings: FindingLike[]): TerminationDecision {
    const plan = this.#plan!;
    this.#iteration++;
    const counts = plan.counts();
    const unverified = plan.steps.filter(
      (step) =>
        step.status === 'completed' &&
        step.verification !== undefined &&
        (step.verification.unverified || step.verification.verdict === 'unverified'),
    ).length;
    const failing = findings.filter((finding) => finding.status === 'fail');
    const errorSignature =
      failing.length === 0
        ? undefined
        : failing
            .map((finding) => `${finding.priority} ${finding.check}: ${normalizeError(finding.message)}`)
            .sort()
            .join(' | ');
    const stateHash = hashJson({
      failing: errorSignature ?? '',
      workspace: fingerprintWorkspace(this.#config.workspace),
    });
    const metric = findings.filter((finding) => finding.status === 'pass').length - failing.length;
    const assessment = assessFindings(findings);
    const stall = this.#stall.observe({ errorSignature, stateHash, metric });
    const decision = decideTermination({
      findings,
      iteration: this.#iteration,
      maxIterations: this.#maxIterations,
      extended: this.#extended,
      progressed: this.#stall.progressed,
      blockedSteps: counts.blocked,
      unverifiedSteps: unverified,
      stall,
    });
    this.bus.emit({ type: 'goal-verified', iteration: this.#iteration, assessment, findings });
    this.bus.emit({
      type: 'iteration-finished',
      iteration: this.#iteration,
      maxIterations: decision.action === 'iterate' ? decision.maxIterations : this.#maxIterations,
      decision: decision.action,
      ...(decision.action === 'stop' ? { stopReason: decision.stopReason } : {}),
      progressed: this.#stall.lastProgressed,
      reason: decision.reason,
      stateHash,
      ...(errorSignature !== undefined ? { errorSignature } : {}),
      metric,
    });
    return decision;
  }

  async #verifyGoal(): Promise<FindingLike[]> {
    if (!this.#config.verifier.goal) return [];
    const findings = await verifyGoalFindings({
      plan: this.#plan!,
      request: this.request,
      successCriteria: this.#successCriteria,
      protocols: this.#goalProtocols,
      config: this.#config,
      model: this.#meter.wrap(this.#config.verifierModel, 'verifier'),
      signal: this.#controller.signal,
      onHumanReview: (review, options) => this.#humanReview('goal', review, options.signal),
    });
    for (const finding of findings) this.bus.emit({ type: 'finding-reported', scope: 'goal', finding });
    return findings;
  }

  /**
   * P1 goal checks fail: a placeholder step depending on the finished steps (the sinks among the
   * completed ones) is added after them with `plan.addSteps`, marked `failed` with the goal
   * findings as its notes and verification, and handed to the replanner, which redesigns it into
   * repair steps with the completed steps' tool history in view — or gives up (the placeholder
   * is then blocked). Every change is a plan event (`steps-added`, `step-marked`,
   * `step-verified`, `replan-applied`), so resume replays it like any other.
   */
  async #goalRepair(findings: FindingLike[]): Promise<{ ok: boolean; message: string }> {
    const plan = this.#plan!;
    const failing = findings.filter((finding) => finding.status === 'fail');
    let id = `goal-repair-${this.#iteration}`;
    for (let suffix = 2; plan.has(id); suffix++) id = `goal-repair-${this.#iteration}-${suffix}`;
    const steps = plan.steps;
    const dependedOn = new Set(steps.flatMap((step) => step.dependsOn));
    const sinks = steps
      .filter((step) => step.status === 'completed' && !dependedOn.has(step.id))
      .map((step) => step.id);
    const problems = failing.map((finding) => `${finding.priority} ${finding.check}: ${finding.message}`);
    plan.addSteps({
      steps: [
        {
          id,
          title: 'Repair the goal',
          description: `The finished work does not meet the goal yet. Make these failing goal checks pass:\n${problems.map((problem) => `- ${problem}`).join('\n')}`,
          dependsOn: sinks,
          successCriteria: problems,
        },
      ],
    });
    // It never runs: it stands for the failed goal checks until the replanner redesigns it.
    plan.markStep(id, { status: 'in_progress' });
    plan.recordVerification(id, {
      verdict: 'retry',
      findings: findings.map(({ check, priority, status, message }) => ({
        check,
        priority,
        status,
        message,
      })),
    });
    plan.markStep(id, {
      status: 'failed',
      notes: `[FAIL]: goal verification failed: ${problems.join('; ')}`,
    });
    try {
      await this.#replan([id], 'goal-repair');
    } catch (error) {
      if (this.#controller.signal.aborted) return { ok: false, message: 'aborted' };
      const current = this.#plan!;
      if (current.has(id) && current.step(id).status === 'failed') {
        current.markStep(id, {
          status: 'blocked',
          notes: `[FAIL]: goal repair failed: ${errorMessage(error)}`,
        });
      }
      return { ok: false, message: errorMessage(error) };
    }
    const current = this.#plan!;
    if (current.has(id)) {
      if (current.step(id).status === 'failed') current.markStep(id, { status: 'blocked' });
      return {
        ok: false,
        message: current.step(id).notes || 'the replanner did not redesign the repair step',
      };
    }
    return { ok: true, message: '' };
  }

  // ─── one step ───────────────────────────────────────────────────────────────────────────

  /** Runs one step on its own signal (linked to the run's), so listeners never pile up on the run signal. */
  async #runStep(stepId: StepId, runSignal: AbortSignal): Promise<StepRunOutcome> {
    const controller = new AbortController();
    const forward = () => controller.abort(runSignal.reason);
    if (runSignal.aborted) forward();
    else runSignal.addEventListener('abort', forward, { once: true });
    try {
      return await this.#executeAndVerify(stepId, controller.signal);
    } finally {
      runSignal.removeEventListener('abort', forward);
    }
  }

  async #executeAndVerify(stepId: StepId, signal: AbortSignal): Promise<StepRunOutcome> {
    const plan = this.#plan!;
    const config = this.#config;
    const execution = await executeStep(plan, stepId, {
      model: this.#meter.wrap(config.model, 'step', stepId),
      tools: config.registry,
      signal,
      context: { goal: this.request },
      onEvent: (event) => this.bus.emit(event),
      onAskHuman: (request) => this.#askHuman(request),
      ...(config.executor.mode !== undefined ? { mode: config.executor.mode } : {}),
      ...(config.executor.limits !== undefined ? { limits: config.executor.limits } : {}),
      ...(config.executor.parallelTools !== undefined
        ? { parallelTools: config.executor.parallelTools }
        : {}),
      ...(config.executor.stream !== undefined ? { stream: config.executor.stream } : {}),
      ...(config.executor.systemPrompt !== undefined ? { systemPrompt: config.executor.systemPrompt } : {}),
      ...(config.executor.toolTimeoutMs !== undefined
        ? { toolTimeoutMs: config.executor.toolTimeoutMs }
        : {}),
      ...(config.executor.guard !== undefined ? { guard: config.executor.guard } : {}),
    });
    if (signal.aborted) {
      return { status: 'failed', notes: `[FAIL]: ${errorMessage(signal.reason ?? 'aborted')}` };
    }
    const report = await verifyStep(plan, stepId, {
      ...(config.workspace !== undefined ? { workspace: config.workspace } : {}),
      ...(config.verifier.contracts !== undefined ? { contracts: config.verifier.contracts } : {}),
      ...(config.verifier.profile !== undefined ? { profile: config.verifier.profile } : {}),
      protocols: config.verifier.protocols,
      model: this.#meter.wrap(config.verifierModel, 'verifier', stepId),
      onHumanReview: (review, options) => this.#humanReview(stepId, review, options.signal),
      signal,
    });
    const record = plan.recordVerification(stepId, toVerificationRecord(report));
    for (const finding of record.findings) {
      if (finding.status !== 'pass')
        this.bus.emit({ type: 'finding-reported', scope: 'step', stepId, finding });
    }
    const unverifiedUpstream = plan.step(stepId).dependsOn.filter((id) => {
      const verification = plan.has(id) ? plan.step(id).verification : undefined;
      return verification !== undefined && (verification.unverified || verification.verdict === 'unverified');
    });
    const detail = {
      verdict: record.verdict,
      unverified: record.unverified || record.verdict === 'unverified',
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
          : failing.length > 0 && !plan.step(stepId).notes.startsWith('[FAIL]')
            ? { notes: `[FAIL]: verification failed: ${failing.join('; ')}` }
            : {}),
      };
    }
    return { status: 'completed', detail };
  }

  async #replan(failed: StepId[], reason: 'step-failed' | 'goal-repair'): Promise<void> {
    const plan = this.#plan!;
    const batch = ++this.#batches;
    this.bus.emit({
      type: 'replan-requested',
      failed,
      reason,
      batch,
      steps: failed.filter((id) => plan.has(id)).map((id) => summarizeStep(plan.step(id))),
    });
    try {
      const outcome = await this.#replanner.replan(plan, failed, {
        tools: this.#config.registry.tools,
        goal: this.request,
        signal: this.#controller.signal,
      });
      this.bus.emit({
        type: 'replan-finished',
        failed,
        reason,
        batch,
        action: outcome.action === 'redesign' ? 'redesign' : 'give-up',
        added: outcome.action === 'redesign' ? outcome.added.map((step) => step.id) : [],
        removed: outcome.action === 'redesign' ? outcome.removed : [],
        ...(outcome.action === 'give_up' ? { message: `${outcome.reason}: ${outcome.message}` } : {}),
      });
    } catch (error) {
      this.bus.emit({
        type: 'replan-finished',
        failed,
        reason,
        batch,
        action: 'error',
        added: [],
        removed: [],
        message: ReplannerError.isInstance(error) ? `${error.code}: ${error.message}` : errorMessage(error),
      });
      throw error;
    }
  }

  // ─── humans ─────────────────────────────────────────────────────────────────────────────

  async #askApproval(
    request: Omit<ApprovalRequest, 'runId' | 'approvalId' | 'signal'>,
  ): Promise<ApprovalDecision> {
    const approvalId = `approval-${++this.#approvals}`;
    this.bus.emit({
      type: 'approval-requested',
      approvalId,
      stepId: request.stepId,
      kind: request.kind,
      reason: request.reason,
      ...(request.tool !== undefined ? { tool: request.tool } : {}),
      ...(request.args !== undefined ? { args: request.args } : {}),
      ...(request.callId !== undefined ? { callId: request.callId } : {}),
    });
    // Make sure the request is on disk before a human is asked: a crash now re-asks on resume.
    await this.bus.flush();
    let decision: ApprovalDecision;
    const handler = this.#config.onApproval;
    if (!handler) decision = { approved: false, note: 'no onApproval handler is configured' };
    else {
      try {
        decision = await handler({
          ...request,
          runId: this.runId,
          approvalId,
          signal: this.#controller.signal,
        });
      } catch (error) {
        decision = { approved: false, note: `onApproval threw: ${errorMessage(error)}` };
      }
    }
    this.bus.emit({
      type: 'approval-resolved',
      approvalId,
      stepId: request.stepId,
      approved: decision.approved === true,
      ...(decision.note !== undefined ? { note: decision.note } : {}),
    });
    return decision;
  }

  async #askHuman(request: AskHumanRequest): Promise<boolean> {
    const decision = await this.#askApproval({
      stepId: request.stepId,
      kind: 'tool-call',
      reason: request.reason,
      tool: request.tool.name,
      args: request.args,
      callId: request.callId,
    });
    return decision.approved === true;
  }

  async #humanReview(
    stepId: StepId | 'goal',
    review: HumanReviewRequest,
    _signal: AbortSignal,
  ): Promise<HumanReviewDecision> {
    const decision = await this.#askApproval({
      stepId: stepId === 'goal' ? 'goal' : stepId,
      kind: 'human-review',
      reason: review.reasons.join('; ') || 'human review requested',
      review,
    });
    const verdict = decision.decision ?? (decision.approved ? 'approve' : 'reject');
    return { decision: verdict, ...(decision.note !== undefined ? { comment: decision.note } : {}) };
  }

  // ─── stopping ───────────────────────────────────────────────────────────────────────────

  #stop(stopReason: StopReason, reason: string): void {
    if (this.#stopCause) return;
    this.#stopCause = { stopReason, reason };
    this.#controller.abort(new Error(`${stopReason}: ${reason}`));
  }

  #armStops(signal: AbortSignal | undefined): () => void {
    const onAbort = () =>
      this.#stop(
        'cancelled',
        `the caller aborted${signal?.reason ? `: ${errorMessage(signal.reason)}` : ''}`,
      );
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const runMs = this.#config.deadlines.runMs;
    const timer =
      runMs === undefined
        ? undefined
        : setTimeout(() => this.#stop('deadline', `the run deadline of ${runMs} ms passed`), runMs);
    return () => {
      signal?.removeEventListener('abort', onAbort);
      if (timer !== undefined) clearTimeout(timer);
    };
  }

  #usageSoFar(): {
    usage: { inputTokens: number; outputTokens: number; totalTokens: number };
    costUsd: number;
    calls: number;
  } {
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    let costUsd = 0;
    let calls = 0;
    for (const event of this.bus.history) {
      if (event.type !== 'usage-recorded') continue;
      usage.inputTokens += event.usage.inputTokens;
      usage.outputTokens += event.usage.outputTokens;
      usage.totalTokens += event.usage.totalTokens;
      costUsd += event.costUsd;
      calls++;
    }
    return { usage, costUsd, calls };
  }

  async #answer(final: StopCause): Promise<{ answer: string; source: 'model' | 'fallback' | 'step' }> {
    const plan = this.#plan;
    if (!plan || this.#stopCause) {
      return {
        answer: fallbackAnswer({ plan, stopReason: final.stopReason, reason: final.reason }),
        source: 'fallback',
      };
    }
    const steps = plan.steps;
    const only = steps.length === 1 ? steps[0] : undefined;
    if (only && only.status === 'completed' && only.output && final.stopReason.startsWith('completed')) {
      return { answer: only.output, source: 'step' };
    }
    const result = await aggregateAnswer({
      model: this.#meter.wrap(this.#config.model, 'aggregate' satisfies ModelCallPurpose),
      request: this.request,
      plan,
      stopReason: final.stopReason,
      reason: final.reason,
      signal: this.#controller.signal,
    });
    return { answer: result.answer, source: result.source };
  }

  #result(finished: Extract<RunEvent, { type: 'run-finished' }>, startedAt: number): RunResult {
    const history = this.bus.history;
    const first = history.find((event) => event.type === 'run-started');
    const storeError = this.bus.storeError;
    return {
      runId: this.runId,
      stopReason: finished.stopReason,
      reason: finished.reason,
      answer: finished.answer,
      answerSource: finished.answerSource,
      plan: this.#plan ? this.#plan.toJSON() : null,
      report: buildRunReport({
        request: this.request,
        history,
        plan: this.#plan,
        startedAt: first?.at ?? startedAt,
        finishedAt: finished.at,
        ...(finished.error ? { error: finished.error } : {}),
        ...(storeError !== undefined ? { journalError: errorMessage(storeError) } : {}),
      }),
    };
  }
}
