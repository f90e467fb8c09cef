import type { Plan, StepId } from '@closedloop/plan';
import { markStepWithoutCopy } from '@closedloop/plan/internal';
import { errorMessage } from './error-message';
import { type ReadyOrder, ReadyQueue } from './ready-queue';

/** What a step runner reports for one step. The scheduler sets the step's status from it. */
export interface StepRunOutcome {
  /**
   * `completed`: verified (or unverified but accepted); `failed`: verification failed — the step
   * joins the next replan batch; `blocked`: give up on it without a replan (e.g. a human said no).
   */
  status: 'completed' | 'failed' | 'blocked';
  /** Notes to store on the step with its status (e.g. `[FAIL]: step deadline of 500 ms exceeded`). */
  notes?: string;
  /** Anything the caller wants back in `onStepFinished` (verdict, confidence…). */
  detail?: unknown;
}

/** How a step ended, as `onStepFinished` reports it. */
export interface StepFinish {
  status: StepRunOutcome['status'] | 'interrupted';
  notes?: string;
  detail?: unknown;
  durationMs: number;
  /** The runner's exception message, when it threw. */
  error?: string;
}

/** What the step runner gets besides the step id. */
export interface StepRunContext {
  /** Aborts on run abort and on the step deadline. */
  signal: AbortSignal;
}

/** Runs one step (execute + verify). Must not change the step's status: the scheduler does. */
export type StepRunner = (stepId: StepId, context: StepRunContext) => Promise<StepRunOutcome>;

/**
 * Redesigns a batch of failed steps (one call per batch). When it returns, every step of the batch
 * must be gone from the plan (replaced) or `blocked`; a step still `failed` is blocked by the
 * scheduler. A throw blocks the whole batch (the error goes to `onReplanError`).
 */
export type BatchReplanner = (failed: StepId[], context: { signal: AbortSignal }) => Promise<void>;

/** Options of {@link scheduleSteps}. */
export interface ScheduleStepsOptions {
  plan: Plan;
  runStep: StepRunner;
  /** Without it, a failed step is blocked right away. */
  replan?: BatchReplanner;
  /** Steps running at once. Default 4. */
  concurrency?: number;
  /**
   * Which ready step starts first when slots are scarce: `critical-path` (default: the step with
   * the longest chain of steps after it, ties in display order) or `display` (plan order).
   */
  readyOrder?: ReadyOrder;
  /** Per-step deadline: the step's signal aborts and the step fails after this many ms. */
  stepTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * After `signal` aborts, how long to wait for running steps to return before giving up on them.
   * Steps interrupted by an abort stay `in_progress` (resume decides whether to re-run them) and
   * their results are not judged; results after the grace period are ignored. Default 100 ms.
   */
  abortGraceMs?: number;
  /**
   * How long a batch of failures may wait for the steps that were running when it opened
   * (they could still fail and join the batch). Default 1000 ms; 0 replans at the next turn.
   */
  replanWindowMs?: number;
  /** Failed steps to replan first (e.g. found `failed` in a resumed journal). */
  initialFailed?: readonly StepId[];
  /**
   * Steps still `in_progress` from an interrupted session that the runner continues (resume):
   * started first, without a new status transition.
   */
  resume?: readonly StepId[];
  onStepStarted?: (stepId: StepId) => void;
  /**
   * A step ended. `interrupted`: the run aborted while it ran; it stays `in_progress` in the plan
   * and its result (if any) was not judged.
   */
  onStepFinished?: (stepId: StepId, outcome: StepFinish) => void;
  onReplanStarted?: (failed: StepId[]) => void;
  onReplanError?: (failed: StepId[], error: unknown) => void;
}

/** What {@link scheduleSteps} resolves with once no step can run. */
export interface ScheduleStepsResult {
  /** True when `signal` aborted before the plan settled. */
  aborted: boolean;
  /** Steps started. */
  started: number;
  /** Replanner calls (batches). */
  replans: number;
  /** Steps still running when the scheduler gave up on them after an abort. */
  abandoned: StepId[];
}

/**
 * The scheduler core: starts every ready step as soon as its dependencies complete, up to
 * `concurrency`, with no lock-step waves — each completion immediately refills the free slots
 * with ready steps in display order (the order of `plan.readySteps()`, mirrored incrementally
 * from the plan's events so a completion costs O(dependents), not a sort of every ready step).
 *
 * Failed steps are replanned in batches (one replan per round of failures) while independent steps keep running: the
 * first failure opens a batch that waits for the steps running at that moment — they could fail
 * too and join it — for at most `replanWindowMs`; then the whole batch goes to `replan` in one
 * call. Steps started after the batch opened never delay it, and failures during a replan form
 * the next batch. So: one replanner call per batch, at most one replan at a time, running steps
 * are never stopped and ready independent steps keep starting, a step whose upstream is being
 * replanned waits (it is not ready), and completed steps never run again (only `not_started`
 * steps are started).
 *
 * Resolves when nothing is running, nothing is ready and no replan is pending or in progress.
 *
 * @example
 * await scheduleSteps({ plan, concurrency: 4, runStep: async (id) => ({ status: 'completed' }) });
 */
export function scheduleSteps(options: ScheduleStepsOptions): Promise<ScheduleStepsResult> {
  const { plan, runStep, replan, signal, stepTimeoutMs } = options;
  const concurrency = options.concurrency ?? 4;
  const abortGraceMs = options.abortGraceMs ?? 100;
  const replanWindowMs = options.replanWindowMs ?? 1000;
  const inFlight = new Map<StepId, AbortController>();
  const runSignal = signal ?? new AbortController().signal;
  const pendingFailed: StepId[] = [...(options.initialFailed ?? [])];
  const continuing = (options.resume ?? []).filter((id) => plan.has(id) && plan.status(id) === 'in_progress');
  let replanning = false;
  /** Steps the open batch waits for (running when it opened); `undefined`: no batch is open. */
  let waitingFor: Set<StepId> | undefined;
  let windowTimer: ReturnType<typeof setTimeout> | undefined;
  let started = 0;
  let replans = 0;
  let finished = false;

  return new Promise<ScheduleStepsResult>((resolve) => {
    const ready = new ReadyQueue(plan, options.readyOrder);
    const finish = (aborted: boolean): void => {
      if (finished) return;
      finished = true;
      ready.close();
      if (windowTimer !== undefined) clearTimeout(windowTimer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ aborted, started, replans, abandoned: [...inFlight.keys()] });
    };

    const onAbort = (): void => {
      for (const controller of inFlight.values()) controller.abort(signal?.reason);
      if (inFlight.size === 0 && !replanning) {
        finish(true);
        return;
      }
      setTimeout(() => finish(true), abortGraceMs).unref?.();
    };

    const settleFailed = (ids: readonly StepId[], notes: string): void => {
      for (const id of ids) {
        if (plan.has(id) && plan.status(id) === 'failed') {
          plan.markStep(id, { status: 'blocked', notes });
        }
      }
    };

    const startReplan = (): void => {
      if (windowTimer !== undefined) clearTimeout(windowTimer);
      windowTimer = undefined;
      waitingFor = undefined;
      if (finished || replanning || pendingFailed.length === 0) return;
      if (signal?.aborted) return;
      const batch = pendingFailed.splice(0).filter((id) => plan.has(id) && plan.status(id) === 'failed');
      if (batch.length === 0) {
        pump();
        return;
      }
      if (!replan) {
        settleFailed(batch, '[FAIL]: verification failed and no replanner is configured');
        pump();
        return;
      }
      replanning = true;
      replans++;
      options.onReplanStarted?.(batch);
      let call: Promise<void>;
      try {
        call = replan(batch, { signal: runSignal });
      } catch (error) {
        call = Promise.reject(error);
      }
      call
        .then(
          () => {
            if (!finished) settleFailed(batch, '[FAIL]: the replanner left the step failed');
          },
          (error: unknown) => {
            if (finished) return;
            options.onReplanError?.(batch, error);
            if (!signal?.aborted) settleFailed(batch, `[FAIL]: replanning failed: ${errorMessage(error)}`);
          },
        )
        .finally(() => {
          replanning = false;
          checkBatch();
          pump();
        });
    };

    /**
     * Opens a batch on the first held failure: it waits for the steps running at that moment
     * (they may fail and join it) for at most `replanWindowMs`, then the replanner gets the batch.
     * Steps started later never delay it.
     */
    const checkBatch = (): void => {
      if (finished || replanning || pendingFailed.length === 0) return;
      if (waitingFor === undefined) {
        waitingFor = new Set(inFlight.keys());
        if (waitingFor.size > 0) {
          windowTimer = setTimeout(() => {
            windowTimer = undefined;
            waitingFor = new Set();
            checkBatch();
          }, replanWindowMs);
        }
      }
      if (waitingFor.size === 0) startReplan();
    };

    const complete = (stepId: StepId, outcome: StepRunOutcome, startedAt: number, error?: string): void => {
      if (finished || !inFlight.has(stepId)) return;
      inFlight.delete(stepId);
      waitingFor?.delete(stepId);
      const durationMs = performance.now() - startedAt;
      if (signal?.aborted) {
        // The run is stopping: the step stays `in_progress` (interrupted), it is not judged.
        options.onStepFinished?.(
          stepId,
          error === undefined
            ? { status: 'interrupted', durationMs }
            : { status: 'interrupted', durationMs, error },
        );
        if (inFlight.size === 0 && !replanning) finish(true);
        return;
      }
      const notes = outcome.notes;
      markStepWithoutCopy(
        plan,
        stepId,
        notes === undefined ? { status: outcome.status } : { status: outcome.status, notes },
      );
      options.onStepFinished?.(
        stepId,
        error === undefined ? { ...outcome, durationMs } : { ...outcome, durationMs, error },
      );
      if (outcome.status === 'failed') pendingFailed.push(stepId);
      checkBatch();
      pump();
    };

    const start = (stepId: StepId, continued = false): void => {
      if (!continued) markStepWithoutCopy(plan, stepId, { status: 'in_progress' });
      // Every step has its own signal, the one signal shared by everything inside the step. The run's
      // abort reaches it through the one `onAbort` listener of the run (never a listener per step on
      // the run's signal: 500 concurrent steps would pile 500 listeners on it).
      const controller = new AbortController();
      if (runSignal.aborted) controller.abort(runSignal.reason);
      inFlight.set(stepId, controller);
      started++;
      options.onStepStarted?.(stepId);
      const startedAt = performance.now();
      // Whatever settles first (the runner or the deadline) completes this run of the step; the
      // other is ignored: its controller is no longer the step's in `inFlight`. No promise race
      // per step: the deadline's timer completes the step itself.
      let settled = false;
      const settle = (outcome: StepRunOutcome, error?: string): void => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        if (inFlight.get(stepId) !== controller) return;
        complete(stepId, outcome, startedAt, error);
      };
      let timer: ReturnType<typeof setTimeout> | undefined;
      if (stepTimeoutMs !== undefined) {
        timer = setTimeout(() => {
          const message = `step deadline of ${stepTimeoutMs} ms exceeded`;
          controller.abort(new Error(message));
          settle({ status: 'failed', notes: `[FAIL]: ${message}` });
        }, stepTimeoutMs);
      }
      let run: Promise<StepRunOutcome>;
      try {
        run = runStep(stepId, { signal: controller.signal });
      } catch (error) {
        run = Promise.reject(error);
      }
      run.then(
        (outcome) => settle(outcome),
        (error: unknown) => {
          const message = errorMessage(error);
          settle({ status: 'failed', notes: `[FAIL]: the step runner threw: ${message}` }, message);
        },
      );
    };

    const pump = (): void => {
      if (finished) return;
      if (signal?.aborted) {
        if (inFlight.size === 0 && !replanning) finish(true);
        return;
      }
      while (inFlight.size < concurrency) {
        const resumed = continuing.shift();
        const stepId = resumed ?? ready.shift();
        if (stepId === undefined) break;
        start(stepId, resumed !== undefined);
        if (finished) return;
      }
      checkBatch();
      if (inFlight.size === 0 && !replanning && pendingFailed.length === 0) finish(false);
    };

    if (signal?.aborted) {
      finish(true);
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    pump();
  });
}
