import type { StepJournal, StepReplay } from '@closedloop/executor';
import { Plan, type PlanEvent, type PlanSnapshot, type StepId } from '@closedloop/plan';
import { createReplanner, type Replanner, ReplannerError } from '@closedloop/replanner';
import { createCommandRunner } from '@closedloop/tools';
import { runInProcessScope } from '@closedloop/tools/internal';
import { aggregateAnswer, fallbackAnswer, unsupportedAnswerClaims } from './aggregate-answer';
import { ApprovalDesk } from './approvals';
import { CortexError } from './cortex-error';
import {
  assessFindings,
  decideTermination,
  type FindingLike,
  type TerminationDecision,
} from './decide-termination';
import { judgedByWorkspace, snapshotBeforeDispatch } from './dispatch-snapshot';
import { directPlan, draftPlan } from './draft-plan';
import { errorCode, errorMessage } from './error-message';
import { repairGoal } from './goal-repair';
import { verifyGoalFindings } from './goal-verification';
import { isSimpleRequest } from './is-simple-request';
import { identifyProcess, stopLeftoverVerification, verificationScopeOf } from './leftover-processes';
import { createModelMeter, type ModelMeter } from './meter-model';
import { modelUnavailable, modelUnavailableReason } from './model-unavailable';
import { createPinnableClock } from './pinnable-clock';
import { recoverInterrupted } from './recover-interrupted';
import { redactsToItselfInParts } from './redacts-to-itself-in-parts';
import { RunBus } from './run-bus';
import { type CortexEvent, isPlanEvent, type ModelCallPurpose, type RunEvent } from './run-events';
import type { RunLease } from './run-lease';
import { buildRunReport, type RunResult, stepUnverifiedReason, summarizeStep } from './run-result';
import { runStep } from './run-step';
import { type StepRunOutcome, scheduleSteps } from './schedule-steps';
import type { PlanningMode, SessionConfig } from './session-config';
import { createStallDetector, normalizeError, type StallDetector } from './stall-detector';
import { fingerprintWorkspace, hashJson } from './state-hash';
import { createStepTask } from './step-task';
import type { StopReason } from './stop-reason';
import { createWorkspaceLock, lockedRunner } from './workspace-lock';

type StopCause = { stopReason: StopReason; reason: string };

const resumableStops: ReadonlySet<StopReason> = new Set([
  'cancelled',
  'deadline',
  'budget-exhausted',
  'model-unavailable',
]);

/** True when `resume` continues a run that stopped this way (others return the stored result). */
export function isResumableStop(stopReason: StopReason): boolean {
  return resumableStops.has(stopReason);
}

/** One run (or one resumed continuation of a run) of a cortex. */
export class RunSession {
  readonly runId: string;
  readonly request: string;
  readonly bus: RunBus;
  readonly #config: SessionConfig;
  readonly #controller = new AbortController();
  #stopCause: StopCause | undefined;
  /** The last goal verification's findings (what the final answer may cite as checked). */
  #goalFindings: FindingLike[] = [];
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
  readonly #approvals: ApprovalDesk;
  #planning: PlanningMode;
  readonly #resumed: boolean;
  #storedFinish: Extract<RunEvent, { type: 'run-finished' }> | undefined;
  /**
   * The stop the last iteration decided when the run was interrupted before it finished (killed
   * in its answer): a resume finishes with it instead of iterating again.
   */
  #decidedStop: StopCause | undefined;
  readonly #lease: RunLease | undefined;
  /** The process scope of this run's verification (`verificationScopeOf`), made once. */
  #verificationScope: string | undefined;
  /** Interrupted steps continued from the journal, with what their executor replays (used once). */
  #replays = new Map<StepId, StepReplay>();
  /** Concurrent steps' tool calls share the workspace; one judged by its fingerprint acts alone. */
  #workspaceLock = createWorkspaceLock();
  #lockedConfig: SessionConfig | undefined;

  constructor(options: {
    config: SessionConfig;
    runId: string;
    request: string;
    planning?: PlanningMode;
    history?: RunEvent[];
    listener?: (event: RunEvent) => void;
    /** The run's lease (journaled runs): when it is lost, journaling stops and the run stops. */
    lease?: RunLease;
  }) {
    // A resumed run's times continue from its journal's last one, whatever the wall clock says now.
    const lastAt = options.history?.reduce(
      (latest, event) => Math.max(latest, event.at),
      Number.NEGATIVE_INFINITY,
    );
    this.#config =
      lastAt === undefined || lastAt === Number.NEGATIVE_INFINITY
        ? options.config
        : { ...options.config, clock: createPinnableClock(options.config.clock, { notBefore: lastAt }) };
    this.runId = options.runId;
    this.request = options.request;
    this.#planning = options.planning ?? options.config.planning;
    this.#maxIterations = options.config.maxIterations;
    this.#resumed = (options.history?.length ?? 0) > 0;
    this.#lease = options.lease;
    this.bus = new RunBus({
      runId: options.runId,
      store: options.config.store,
      clock: this.#config.clock,
      history: options.history ?? [],
      onEvent: options.config.onEvent,
      // A run that cannot journal must not act: it stops (a resume continues from the journal).
      onStoreError: (error) =>
        this.#stop('failed', `the journal could not be written: ${errorMessage(error)}`),
      redactor: options.config.redactor,
    });
    if (options.listener) this.bus.subscribe(options.listener);
    this.#approvals = new ApprovalDesk({
      runId: options.runId,
      bus: this.bus,
      handler: options.config.onApproval,
      signal: this.#controller.signal,
    });
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
      onFailure: (record) => this.bus.emit({ type: 'model-call-failed', ...record }),
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
      if (this.#decidedStop) {
        // Killed between the last iteration's decision and the run's end (in its final answer):
        // the decision stands; only the answer is made again.
        decision = this.#decidedStop;
      } else if (!this.#plan) await this.#makePlan();
      else {
        // A killed owner's verification may still be running (its test re-runs): it is stopped
        // before anything looks at the workspace (nothing of it was journaled; it runs again).
        await stopLeftoverVerification(this.runId, { workspace: this.#config.workspace });
        const { replays, stopped } = await recoverInterrupted({
          plan: this.#plan,
          history: this.bus.history,
          registry: this.#config.registry,
          workspace: this.#config.workspace,
          onUncertain: this.#config.onUncertain,
          ask: (question) => this.#approvals.ask(question),
          emit: (event) => this.bus.emit(event),
        });
        this.#replays = replays;
        for (const [stepId, { status, notes }] of stopped) this.#plan.markStep(stepId, { status, notes });
      }
      decision ??= await this.#loop();
    } catch (error) {
      if (!this.#stopCause) {
        const code = errorCode(error);
        failure = { ...(code !== undefined ? { code } : {}), message: errorMessage(error) };
        const unavailable = modelUnavailable(error);
        decision = unavailable
          ? { stopReason: 'model-unavailable', reason: modelUnavailableReason(unavailable) }
          : {
              stopReason: 'failed',
              reason:
                CortexError.isInstance(error) &&
                (error.code === 'invalid-plan' || error.code === 'plan-too-large')
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
    // The result is built while the last group commit is written (it reads only memory), and
    // returned once that commit is durable; a commit that failed meanwhile is in its report.
    const durable = this.bus.flush();
    const storeError = this.bus.storeError;
    const result = this.#result(finished, startedAt);
    await durable;
    return this.bus.storeError === storeError ? result : this.#result(finished, startedAt);
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
      if (event.type === 'run-finished') this.#decidedStop = undefined;
      if (event.type === 'iteration-finished') {
        this.#decidedStop =
          event.decision === 'stop' && event.stopReason !== undefined && !isResumableStop(event.stopReason)
            ? { stopReason: event.stopReason, reason: event.reason }
            : undefined;
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
    }
    this.#approvals.restore(history);
    const planEvents = history.filter(isPlanEvent);
    const strip = (event: PlanEvent & { runId?: string }): PlanEvent => {
      const { runId: _runId, ...rest } = event;
      return rest as PlanEvent;
    };
    if (planEvents.length > 0) {
      this.#setPlan(Plan.replay(planEvents.map(strip), { clock: this.#config.clock }), false);
    }
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
      maxSteps: this.#config.maxPlanSteps,
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
      const failed = plan.idsWithStatus('failed');
      await scheduleSteps({
        plan,
        concurrency: config.concurrency,
        replanWindowMs: config.replanWindowMs,
        signal: this.#controller.signal,
        ...(config.deadlines.stepMs !== undefined ? { stepTimeoutMs: config.deadlines.stepMs } : {}),
        initialFailed: failed,
        resume: [...this.#replays.keys()],
        runStep: (stepId, context) => this.#runStep(plan, stepId, context.signal),
        replan: (batch) => this.#replan(batch, 'step-failed'),
        // Both events are built field by field, in their journal order: conditional spreads
        // would cost an allocation and a slow copy each, for every step.
        onStepStarted: (stepId) => {
          const event: Extract<CortexEvent, { type: 'step-started' }> = {
            type: 'step-started',
            stepId,
            attempt: plan.readStep(stepId).replanAttempts,
          };
          if (this.#replays.has(stepId)) event.resumed = true;
          this.bus.emit(event);
        },
        onStepFinished: (stepId, outcome) => {
          const detail = (outcome.detail ?? {}) as Partial<Extract<RunEvent, { type: 'step-finished' }>>;
          type StepFinished = Extract<CortexEvent, { type: 'step-finished' }>;
          // Its required `unverified` and `durationMs` come after optional fields: filled below.
          const event = { type: 'step-finished', stepId, status: outcome.status } as StepFinished;
          if (detail.verdict !== undefined) event.verdict = detail.verdict;
          event.unverified = detail.unverified ?? false;
          if (detail.confidence !== undefined) event.confidence = detail.confidence;
          if (detail.unverifiedUpstream?.length) event.unverifiedUpstream = detail.unverifiedUpstream;
          if (detail.unverifiedReason !== undefined) event.unverifiedReason = detail.unverifiedReason;
          if (detail.attempts !== undefined) event.attempts = detail.attempts;
          event.durationMs = Math.round(outcome.durationMs * 1000) / 1000;
          if (outcome.error !== undefined) event.error = outcome.error;
          this.bus.emit(event);
        },
      });
      if (this.#controller.signal.aborted) return this.#stopCause;

      const findings = await this.#verifyGoal();
      this.#goalFindings = findings;
      if (this.#controller.signal.aborted) return this.#stopCause;
      const decision = this.#decide(findings);
      if (decision.action === 'stop') return { stopReason: decision.stopReason, reason: decision.reason };
      this.#maxIterations = decision.maxIterations;
      this.#extended = decision.extended;
      const repaired = await repairGoal({
        plan,
        iteration: this.#iteration,
        findings,
        replan: (failed) => this.#replan(failed, 'goal-repair'),
        signal: this.#controller.signal,
      });
      if (this.#controller.signal.aborted) return this.#stopCause;
      if (!repaired.ok) return { stopReason: 'blocked', reason: `goal repair gave up: ${repaired.message}` };
    }
  }

  /**
   * The config a step runs with: in a journaled run with a workspace, the verifier's commands
   * (its runner, or the default one it would make) take the workspace lock shared, so a step's
   * verification never changes the workspace while another step's call acts alone on it.
   */
  #stepConfig(): SessionConfig {
    const config = this.#config;
    if (config.store === undefined || config.workspace === undefined) return config;
    this.#lockedConfig ??= {
      ...config,
      runner: lockedRunner(
        config.runner ?? createCommandRunner({ root: config.workspace }),
        this.#workspaceLock,
      ),
    };
    return this.#lockedConfig;
  }

  /** Runs a ready step here, or hands it to the configured step runner. */
  #runStep(plan: Plan, stepId: StepId, signal: AbortSignal): Promise<StepRunOutcome> {
    const config = this.#stepConfig();
    const runHere = () =>
      runStep(
        {
          runId: this.runId,
          plan,
          config,
          meter: this.#meter,
          approvals: this.#approvals,
          request: this.request,
          emit: (event) => this.bus.emit(event),
          onModelUnavailable: (error) => this.#stop('model-unavailable', modelUnavailableReason(error)),
          journal: (id) => this.#journalFor(id),
          verificationScope: this.#scope(),
        },
        stepId,
        signal,
      );
    if (!config.stepRunner) return runHere();
    return config.stepRunner(
      createStepTask({
        runId: this.runId,
        request: this.request,
        plan,
        stepId,
        signal,
        bus: this.bus,
        meter: this.#meter,
        clock: config.clock,
        runHere,
        onModelUnavailable: (reason) => this.#stop('model-unavailable', reason),
      }),
    );
  }

  #decide(findings: FindingLike[]): TerminationDecision {
    const plan = this.#plan!;
    this.#iteration++;
    const counts = plan.counts();
    const unverifiedSteps = plan
      .idsWithStatus('completed')
      .filter((id) => {
        const verification = plan.readStep(id).verification;
        return (
          verification !== undefined && (verification.unverified || verification.verdict === 'unverified')
        );
      })
      .map((id) => ({
        stepId: id,
        // The reason alone: a whole summary per step (findings copied) would be thrown away.
        reason: stepUnverifiedReason(plan.readStep(id).verification!) ?? 'unverified',
      }));
    const unverified = unverifiedSteps.length;
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
      blocked: plan.idsWithStatus('blocked').map((id) => ({
        stepId: id,
        reason: (plan.readStep(id).notes.replace(/^\[FAIL\]\s*:?\s*/, '') || 'blocked').slice(0, 400),
      })),
      unverifiedSteps: unverified,
      unverified: unverifiedSteps,
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
    const findings = await runInProcessScope(this.#scope(), () =>
      verifyGoalFindings({
        plan: this.#plan!,
        request: this.request,
        successCriteria: this.#successCriteria,
        protocols: this.#goalProtocols,
        config: this.#config,
        model: this.#meter.wrap(this.#config.verifierModel, 'verifier'),
        signal: this.#controller.signal,
        onHumanReview: (review) => this.#approvals.review('goal', review),
      }),
    );
    for (const finding of findings) this.bus.emit({ type: 'finding-reported', scope: 'goal', finding });
    return findings;
  }

  /**
   * The step's durability hooks when the run is journaled: commits through the bus (group
   * commit), snapshots of what a call will change, and — once, for a step continued from the
   * journal — the replay of its interrupted attempt.
   */
  #journalFor(stepId: StepId): StepJournal | undefined {
    if (this.#config.store === undefined) return undefined;
    const replay = this.#replays.get(stepId);
    this.#replays.delete(stepId);
    const workspace = this.#config.workspace;
    return {
      commit: () => this.bus.flush(),
      snapshot: (call) => snapshotBeforeDispatch({ workspace, tool: call.tool, input: call.input }),
      acquire: (call) => this.#workspaceLock.acquire(judgedByWorkspace(call) ? 'exclusive' : 'shared'),
      identifyProcess,
      ...(replay !== undefined ? { replay } : {}),
    };
  }

  // ─── replanning ─────────────────────────────────────────────────────────────────────────

  async #replan(failed: StepId[], reason: 'step-failed' | 'goal-repair'): Promise<void> {
    const plan = this.#plan!;
    const batch = ++this.#batches;
    this.bus.emit({
      type: 'replan-requested',
      failed,
      reason,
      batch,
      steps: failed.filter((id) => plan.has(id)).map((id) => summarizeStep(plan.readStep(id))),
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

  // ─── stopping ───────────────────────────────────────────────────────────────────────────

  #scope(): string {
    this.#verificationScope ??= verificationScopeOf(this.runId, this.#config.workspace);
    return this.#verificationScope;
  }

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
    const lease = this.#lease;
    const onLeaseLost = () => {
      // Another process owns the run now: not one more event of ours may reach its journal.
      this.bus.detach(lease!.signal.reason);
      this.#stop('cancelled', errorMessage(lease!.signal.reason));
    };
    if (lease?.signal.aborted) onLeaseLost();
    else lease?.signal.addEventListener('abort', onLeaseLost, { once: true });
    const runMs = this.#config.deadlines.runMs;
    const timer =
      runMs === undefined
        ? undefined
        : setTimeout(() => this.#stop('deadline', `the run deadline of ${runMs} ms passed`), runMs);
    return () => {
      signal?.removeEventListener('abort', onAbort);
      lease?.signal.removeEventListener('abort', onLeaseLost);
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
    if (!plan || this.#stopCause || final.stopReason === 'model-unavailable') {
      return {
        answer: fallbackAnswer({ plan, stopReason: final.stopReason, reason: final.reason }),
        source: 'fallback',
      };
    }
    const only = plan.size === 1 ? plan.readStep(plan.stepIds[0]!) : undefined;
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
    if (result.source === 'model') {
      const passed = this.#goalFindings.filter((finding) => finding.status === 'pass').map((f) => f.check);
      const unsupported = unsupportedAnswerClaims(result.answer, plan, passed);
      if (unsupported.length > 0) {
        // An answer that claims work no step did is not the run's answer: the facts are.
        const facts = fallbackAnswer({ plan, stopReason: final.stopReason, reason: final.reason });
        return {
          answer: `${facts}\n\nThe model's summary was discarded: it claimed ${unsupported.join(', ')}, which no step did.`,
          source: 'fallback',
        };
      }
    }
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
      plan: this.#plan ? this.#planSnapshot(this.#plan) : null,
      report: this.#redactValue(
        buildRunReport({
          request: this.request,
          history,
          plan: this.#plan,
          startedAt: first?.at ?? startedAt,
          finishedAt: finished.at,
          ...(finished.error ? { error: finished.error } : {}),
          ...(storeError !== undefined ? { journalError: errorMessage(storeError) } : {}),
        }),
      ),
    };
  }

  /**
   * The plan for the result, redacted like every event. The redactor copies what it returns, so
   * it reads the live plan (`readSnapshot`); without one, `toJSON()` makes the copy.
   */
  #planSnapshot(plan: Plan): PlanSnapshot {
    const redactor = this.#config.redactor;
    if (redactor === undefined) return plan.toJSON();
    // Nearly every plan holds no secret: then its plain copy is what redacting it would give.
    const live = plan.readSnapshot();
    return redactsToItselfInParts(redactor, live)
      ? plan.toJSON()
      : (redactor.redactValue(live) as PlanSnapshot);
  }

  /**
   * The result is built from the live plan: it goes out redacted, like every event. `value` is
   * built for the result (it shares no object with the run's state), so when redacting would not
   * change it, it goes out as is instead of as the redactor's deep copy.
   */
  #redactValue<T>(value: T): T {
    const redactor = this.#config.redactor;
    if (redactor === undefined || redactsToItselfInParts(redactor, value)) return value;
    return redactor.redactValue(value);
  }
}
