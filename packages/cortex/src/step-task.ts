import { PLAN_SNAPSHOT_VERSION, type Plan, type PlanSnapshot, type StepId } from '@closedloop/plan';
import { CortexError } from './cortex-error';
import type { ModelMeter } from './meter-model';
import type { PinnableClock } from './pinnable-clock';
import type { CortexEventInput, RunBus } from './run-bus';
import { isPlanEvent, type RunEvent } from './run-events';
import type { StepRunOutcome } from './schedule-steps';

/**
 * A ready step, handed to the `stepRunner` of `createCortex`, which decides where it runs: here
 * (`runHere()`), or in another process that calls `cortex.runStep(...)` with `snapshot()` and
 * sends back the journaled events for `adopt(...)`. The scheduler sets the step's status from the
 * outcome the runner resolves with, exactly as for a step run here.
 */
export interface StepTask {
  readonly runId: string;
  readonly stepId: StepId;
  /**
   * This execution of the step: the same string when a resumed run re-runs the step after an
   * interruption, a different one for any other step of the run (an id a redesign reuses
   * included). A runner that hands work to other processes deduplicates by it.
   */
  readonly executionId: string;
  /** The user's request (the executor's goal context). */
  readonly request: string;
  /** Aborts when the run stops and at the step deadline. */
  readonly signal: AbortSignal;
  /**
   * What another process needs to run the step: the step and its dependencies as a plan
   * snapshot (the `plan` of `cortex.runStep`). JSON-serialisable.
   */
  snapshot(): PlanSnapshot;
  /** Runs the step in this process: executor, then verifier (what a cortex without `stepRunner` does). */
  runHere(): Promise<StepRunOutcome>;
  /** Resolves once every event of the run so far is in the run store. */
  journaled(): Promise<void>;
  /**
   * Makes a run of this step elsewhere part of this run: applies its journaled events (the
   * `events` of `cortex.runStep`, in order) to the plan and the journal with their own
   * timestamps, and counts their usage against the run's budget. Call it once, before resolving
   * with the outcome. Throws `CortexError('invalid-step-task')`, changing nothing, for an event of
   * another step or of a kind a step does not produce. `modelUnavailable` (from `cortex.runStep`)
   * stops the run with `model-unavailable`, as a step run here that cannot reach the model does.
   */
  adopt(events: readonly RunEvent[], options?: AdoptOptions): void;
}

/** Options of `StepTask.adopt`. */
export interface AdoptOptions {
  /** The `modelUnavailable` reason `cortex.runStep` resolved with, if any. */
  modelUnavailable?: string;
}

/**
 * Where ready steps run (`createCortex({ stepRunner })`). Without one, every step runs in the
 * cortex's own process; `@closedloop/bullmq` hands them to worker processes.
 */
export type StepTaskRunner = (task: StepTask) => Promise<StepRunOutcome>;

/** Events a step never produces: the run's own bookkeeping and whole-plan changes. */
const foreignTypes: ReadonlySet<string> = new Set([
  'run-started',
  'run-finished',
  'plan-drafted',
  'plan-created',
  'replan-applied',
  'steps-added',
  'step-started',
  'step-finished',
  'replan-requested',
  'replan-finished',
  'goal-verified',
  'iteration-finished',
]);

/**
 * The plan a step needs elsewhere: the step itself and its direct dependencies (completed, with
 * their outputs, files, claims and verification), which is everything executor and verifier read.
 */
export function stepSnapshot(plan: Plan, stepId: StepId): PlanSnapshot {
  const step = plan.step(stepId);
  const dependencies = step.dependsOn
    .filter((id) => plan.has(id))
    .map((id) => ({ ...plan.step(id), dependsOn: [] }));
  return {
    schemaVersion: PLAN_SNAPSHOT_VERSION,
    id: plan.id,
    title: plan.title,
    goal: plan.goal,
    steps: [...dependencies, step],
    idCounter: 0,
    nextSeq: 0,
  };
}

/** Per plan: the seq of the event that created each step, filled from the log as it grows. */
const creations = new WeakMap<Plan, { scanned: number; seqOf: Map<StepId, number> }>();

/**
 * `stepId@seq`, where `seq` is the plan event that created the step (`plan-created`,
 * `replan-applied`, `steps-added`): stable across resets and resumes, unique in the plan's life.
 */
export function executionIdOf(plan: Plan, stepId: StepId): string {
  let entry = creations.get(plan);
  if (entry === undefined) {
    entry = { scanned: 0, seqOf: new Map() };
    creations.set(plan, entry);
  }
  const events = plan.events;
  for (; entry.scanned < events.length; entry.scanned++) {
    const event = events[entry.scanned]!;
    if (event.type === 'plan-created') for (const step of event.steps) entry.seqOf.set(step.id, event.seq);
    else if (event.type === 'replan-applied' || event.type === 'steps-added') {
      for (const step of event.added) entry.seqOf.set(step.id, event.seq);
    }
  }
  return `${stepId}@${entry.seqOf.get(stepId) ?? 'snapshot'}`;
}

function refuse(message: string, details: Record<string, unknown>): never {
  throw new CortexError({ code: 'invalid-step-task', message, details });
}

/** Throws unless every event belongs to `stepId` and is something a step produces. */
function checkStepEvents(stepId: StepId, events: readonly RunEvent[]): void {
  for (const [index, event] of events.entries()) {
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') {
      refuse(`Adopted event #${index} is not a run event.`, { index });
    }
    if (foreignTypes.has(event.type)) {
      refuse(`Adopted event #${index} is a "${event.type}" event, which a step run never produces.`, {
        index,
        type: event.type,
      });
    }
    const owner = (event as { stepId?: unknown }).stepId;
    if (owner !== stepId) {
      refuse(
        `Adopted event #${index} (${event.type}) belongs to step ${JSON.stringify(owner)}, not "${stepId}".`,
        {
          index,
          type: event.type,
          stepId: owner,
        },
      );
    }
  }
}

/** Re-applies one plan event of the step through the plan's public mutations (new seq, same content). */
function applyPlanEvent(plan: Plan, stepId: StepId, event: RunEvent): void {
  switch (event.type) {
    case 'step-marked': {
      const { status, notes, output, files, claims } = event;
      plan.markStep(stepId, {
        ...(status !== undefined ? { status } : {}),
        ...(notes !== undefined ? { notes } : {}),
        ...(output !== undefined ? { output } : {}),
        ...(files !== undefined ? { files } : {}),
        ...(claims !== undefined ? { claims } : {}),
      });
      return;
    }
    case 'tool-call-started':
      plan.recordToolCall(stepId, { callId: event.callId, tool: event.tool, args: event.args });
      return;
    case 'tool-call-finished': {
      const call = plan.readStep(stepId).ledger.find((entry) => entry.callId === event.callId);
      plan.recordToolResult(stepId, {
        callId: event.callId,
        tool: call?.tool ?? '',
        status: event.status,
        ...(event.result !== undefined ? { result: event.result } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
      });
      return;
    }
    case 'step-finalized':
      plan.finalizeStep(stepId);
      return;
    case 'step-verified':
      plan.recordVerification(stepId, event.verification);
      return;
    case 'step-reset':
      plan.resetStep(stepId, { reason: event.reason });
      return;
    default:
      refuse(`Adopted plan event "${event.type}" cannot come from a step run.`, { type: event.type });
  }
}

/**
 * Applies the plan events of what earlier runs of a step journaled (a worker that died mid-step)
 * to a plan restored from its snapshot, so the step can continue from them. Each event is applied
 * under its own `at` (`clock` is the plan's): a recovered ledger entry keeps the window its call
 * really ran in, and the step's start — its first call — stays the first attempt's, so the
 * verifier judges file times against every attempt of the step, not only the continuation's.
 * Throws `CortexError('invalid-step-task')` for an event of another step or of a kind a step does
 * not produce.
 */
export function applyStepHistory(
  plan: Plan,
  stepId: StepId,
  events: readonly RunEvent[],
  clock: PinnableClock,
): void {
  checkStepEvents(stepId, events);
  for (const event of events) {
    if (!isPlanEvent(event)) continue;
    const at = (event as { at?: unknown }).at;
    if (typeof at !== 'number' || !Number.isFinite(at)) {
      refuse(`A history event (${event.type}) has no time ("at"): its ledger window is unknown.`, {
        type: event.type,
      });
    }
    clock.pin(at, () => applyPlanEvent(plan, stepId, event));
  }
}

/**
 * Applies the journaled events of a step run elsewhere to this run, each under its own `at`:
 * plan events through the plan's mutations (so the plan's log stays gap-free and the journal
 * replays), usage through the meter (the budget sees it), everything else re-emitted on the bus.
 * Approval ids get the step id as a prefix, so they never meet this run's own.
 */
export function adoptStepEvents(options: {
  plan: Plan;
  stepId: StepId;
  bus: RunBus;
  meter: ModelMeter;
  clock: PinnableClock;
  events: readonly RunEvent[];
}): void {
  const { plan, stepId, bus, meter, clock, events } = options;
  checkStepEvents(stepId, events);
  for (const event of events) {
    clock.pin(event.at, () => {
      if (isPlanEvent(event)) {
        applyPlanEvent(plan, stepId, event);
        return;
      }
      const { runId: _runId, at: _at, ...rest } = event as RunEvent & { runId: string; at: number };
      const input = rest as CortexEventInput;
      if (input.type === 'usage-recorded') meter.add({ usage: input.usage, costUsd: input.costUsd });
      if (input.type === 'approval-requested' || input.type === 'approval-resolved') {
        bus.emit({ ...input, approvalId: `${stepId}/${input.approvalId}` });
        return;
      }
      bus.emit(input);
    });
  }
}

/** Builds the task the session hands to the configured step runner. */
export function createStepTask(options: {
  runId: string;
  request: string;
  plan: Plan;
  stepId: StepId;
  signal: AbortSignal;
  bus: RunBus;
  meter: ModelMeter;
  clock: PinnableClock;
  runHere: () => Promise<StepRunOutcome>;
  /** Stops the run with `model-unavailable` (a step elsewhere could not reach the model). */
  onModelUnavailable: (reason: string) => void;
}): StepTask {
  const { plan, stepId, bus, meter, clock } = options;
  let adopted = false;
  return {
    runId: options.runId,
    stepId,
    executionId: executionIdOf(plan, stepId),
    request: options.request,
    signal: options.signal,
    snapshot: () => stepSnapshot(plan, stepId),
    runHere: options.runHere,
    journaled: () => bus.flush(),
    adopt(events, adoptOptions = {}) {
      if (adopted) refuse(`The events of step "${stepId}" were already adopted.`, { stepId });
      const { modelUnavailable } = adoptOptions;
      if (
        modelUnavailable !== undefined &&
        (typeof modelUnavailable !== 'string' || modelUnavailable === '')
      ) {
        refuse('adopt: modelUnavailable must be the non-empty reason cortex.runStep resolved with.', {
          stepId,
        });
      }
      adoptStepEvents({ plan, stepId, bus, meter, clock, events });
      adopted = true;
      if (modelUnavailable !== undefined) options.onModelUnavailable(modelUnavailable);
    },
  };
}
