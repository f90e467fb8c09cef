import type { DispatchedCall } from '@closedloop/executor';
import { Plan, type StepId } from '@closedloop/plan';
import { createCommandRunner } from '@closedloop/tools';
import { ApprovalDesk } from './approvals';
import { CortexError } from './cortex-error';
import {
  type DispatchSnapshot,
  judgedByWorkspace,
  resolveWorkspacePath,
  snapshotBeforeDispatch,
} from './dispatch-snapshot';
import { errorMessage } from './error-message';
import { identifyProcess, stopLeftoverVerification, verificationScopeOf } from './leftover-processes';
import { createModelMeter } from './meter-model';
import { modelUnavailableReason } from './model-unavailable';
import { recoverInterrupted } from './recover-interrupted';
import { RunBus } from './run-bus';
import type { RunEvent } from './run-events';
import { runStep } from './run-step';
import { assertRunId, type RunStore } from './run-store';
import type { StepRunOutcome } from './schedule-steps';
import type { SessionConfig } from './session-config';
import { applyStepHistory } from './step-task';
import { lockedRunner, type WorkspaceLock } from './workspace-lock';

/** Input of `cortex.runStep`: one step of a run that another process coordinates. */
export interface RemoteStepInput {
  runId: string;
  /** The run's request (the executor's goal context). */
  request: string;
  stepId: StepId;
  /** `task.snapshot()` of the coordinating cortex: the step (`in_progress`) and its dependencies. */
  plan: unknown;
  /**
   * Receives every journaled event of the step, in order, with its JSON (the event serialized
   * once, as it was emitted: write that text instead of serializing the event again). Events come
   * in group commits (as a run's journal store gets them): the events of one group are handed over
   * back to back, without waiting for each other's promise, and the next group only once every
   * promise of the previous one resolved — so a journal may batch or pipeline one group's writes
   * (one round trip per group), but must write them in the order it received them.
   *
   * A group is committed only where the step needs its journal on record — before a tool runs,
   * when a command's process starts, before a human is asked, before the model's answer to a new
   * result of a non-idempotent tool is used, and at the end — not on a timer as a run's own
   * journal is: what happens between two such points goes with the next one (a crash may lose it;
   * the step taken over then settles the call whose result was lost as a resume does).
   * When it throws or rejects, the step is aborted and `runStep` rejects: a step never goes on
   * acting without its journal.
   */
  journal?: (event: RunEvent, json: string | undefined) => void | Promise<void>;
  /**
   * What earlier runs of this same step journaled before they died (a worker killed mid-step), in
   * order. The step continues from it as a resume does: its plan events are applied, the one
   * uncertain call is settled, and the interrupted attempt is replayed — no answered model call or
   * tool call is made again. These events are not journaled again (only what follows is); the
   * coordinator adopts them with the new ones.
   */
  history?: readonly RunEvent[];
  signal?: AbortSignal;
  /**
   * The run's workspace lock, shared by every process that runs the run's steps on the same
   * workspace (`@closedloop/bullmq` workers pass a Redis one). With a `journal`, a call judged on
   * resume by the whole workspace's fingerprint (a command, a custom non-idempotent tool) takes
   * it `exclusive` before its snapshot and other calls take it `shared`; the verifier's commands
   * take it `shared`. Without it the step takes no lock: concurrent steps of the run elsewhere
   * could then make a change that this step's resume takes for its call's effect.
   */
  workspaceLock?: WorkspaceLock;
}

/** What `cortex.runStep` resolves with. */
export interface RemoteStepResult {
  /** What the coordinator's step runner resolves with. */
  outcome: StepRunOutcome;
  /** Every journaled event of the step, in order: what the coordinator's `task.adopt` takes. */
  events: RunEvent[];
  /**
   * Set when the step found the model unreachable (no or a bad key, no network, an unknown
   * model): the reason the run stops with `model-unavailable`. Pass it to `task.adopt`.
   */
  modelUnavailable?: string;
}

function invalid(message: string, details: Record<string, unknown> = {}, cause?: unknown): CortexError {
  return new CortexError({ code: 'invalid-step-task', message, details, cause });
}

/**
 * A run store that only appends, to the step's journal callback (the bus needs no more). A group
 * commit hands its events over back to back and is durable once every one is: a journal that
 * batches or pipelines writes makes one round trip per group, not one per event.
 */
function journalStore(
  journal: (event: RunEvent, json: string | undefined) => void | Promise<void>,
): RunStore {
  const unsupported = () => Promise.reject(new Error('a step journal is append-only'));
  return {
    async append(_runId, records) {
      await Promise.all(records.map((record) => journal(record.event, record.json)));
    },
    read: unsupported,
    list: unsupported,
    writeMeta: unsupported,
    readMeta: unsupported,
    acquireLease: unsupported,
  };
}

/**
 * What each file held before the step's calls first touched it (absolute path → sha256, `null`:
 * missing), from the dispatch snapshots its earlier attempts journaled: the verifier judges those
 * files by content, so the killed attempt's effects count whatever the clock of the machine it
 * ran on said, and a file none of them changed still does not.
 */
function priorFileStates(
  history: readonly RunEvent[],
  stepId: StepId,
  workspace: string,
): Map<string, string | null> {
  const states = new Map<string, string | null>();
  for (const event of history) {
    if (event.type !== 'tool-call-dispatched' || event.stepId !== stepId) continue;
    const before = event.before as DispatchSnapshot | undefined;
    if (before?.kind !== 'file') continue;
    const absolute = resolveWorkspacePath(workspace, before.path);
    if (absolute === undefined || states.has(absolute)) continue;
    if (before.state.type === 'file') states.set(absolute, before.state.sha256);
    else if (before.state.type === 'missing') states.set(absolute, null);
  }
  return states;
}

/**
 * Runs one step of a run coordinated elsewhere, with this cortex's model, tools, workspace and
 * verifier: the same `runStep` (executor, then verifier) on a plan restored from the
 * coordinator's snapshot. Its plan changes and events go to `journal` as they happen and come
 * back in `events`; usage is counted there, and the run's budget is the coordinator's.
 */
export async function runRemoteStep(
  config: SessionConfig,
  input: RemoteStepInput,
): Promise<RemoteStepResult> {
  if (typeof input !== 'object' || input === null) throw invalid('runStep needs an input object.');
  const { runId, request, stepId } = input;
  assertRunId(runId);
  if (typeof request !== 'string' || request === '') {
    throw invalid(`runStep needs the run's request, got ${JSON.stringify(request)}.`);
  }
  let plan: Plan;
  try {
    plan = Plan.fromJSON(input.plan, { clock: config.clock });
  } catch (error) {
    throw invalid(`runStep got an invalid plan snapshot: ${errorMessage(error)}`, { runId }, error);
  }
  if (typeof stepId !== 'string' || !plan.has(stepId) || plan.status(stepId) !== 'in_progress') {
    throw invalid(
      `runStep needs a step that is in_progress in the snapshot; "${String(stepId)}" is ${
        typeof stepId === 'string' && plan.has(stepId) ? plan.status(stepId) : 'not in it'
      }.`,
      { runId, stepId },
    );
  }
  const controller = new AbortController();
  const forward = () => controller.abort(input.signal?.reason);
  if (input.signal?.aborted) forward();
  else input.signal?.addEventListener('abort', forward, { once: true });
  const history = input.history ?? [];
  if (!Array.isArray(history))
    throw invalid("runStep: history must be an array of the step's journaled events.");
  try {
    applyStepHistory(plan, stepId, history, config.clock);
  } catch (error) {
    throw invalid(
      `runStep got a history that does not apply: ${errorMessage(error)}`,
      { runId, stepId },
      error,
    );
  }
  const { journal, workspaceLock } = input;
  if (
    workspaceLock !== undefined &&
    (typeof workspaceLock !== 'object' ||
      workspaceLock === null ||
      typeof workspaceLock.acquire !== 'function')
  ) {
    throw invalid('runStep: workspaceLock must be an object with an acquire(mode) method.', {
      runId,
      stepId,
    });
  }
  // The verifier's commands share the workspace with other steps' calls: a fingerprint-judged
  // call elsewhere acts alone.
  const stepConfig: SessionConfig =
    workspaceLock !== undefined && config.workspace !== undefined
      ? {
          ...config,
          runner: lockedRunner(
            config.runner ?? createCommandRunner({ root: config.workspace }),
            workspaceLock,
          ),
        }
      : config;
  const failJournal = (error: unknown): never => {
    controller.abort(error);
    throw error;
  };
  const bus = new RunBus({
    runId,
    clock: config.clock,
    onEvent: config.onEvent,
    // No commit of its own for any event (no timer): a step's journal is written at its commit
    // points only — before each tool runs, before a human is asked, before the model's answer to
    // a non-idempotent result is used, at the end —, each a round trip to another process.
    // What falls between two of them goes with the next one.
    lazy: () => true,
    store:
      journal === undefined
        ? undefined
        : journalStore((event, json) => {
            try {
              const written = journal(event, json);
              return written instanceof Promise ? written.catch(failJournal) : written;
            } catch (error) {
              return failJournal(error);
            }
          }),
  });
  const unsubscribe = plan.subscribe((event) => bus.forwardPlan(event));
  const meter = createModelMeter({
    signal: controller.signal,
    ...(config.prices ? { prices: config.prices } : {}),
    onUsage: (record) => bus.emit({ type: 'usage-recorded', ...record }),
  });
  const approvals = new ApprovalDesk({ runId, bus, handler: config.onApproval, signal: controller.signal });
  let modelUnavailable: string | undefined;
  try {
    const verificationScope = verificationScopeOf(runId, config.workspace, stepId);
    // Continued after an earlier run of the step died: stop what its verification left running
    // (test re-runs keep writing after their worker is killed), settle its uncertain call, replay
    // the rest.
    if (history.length > 0) await stopLeftoverVerification(runId, { workspace: config.workspace, stepId });
    const recovered =
      history.length === 0
        ? undefined
        : await recoverInterrupted({
            plan,
            history,
            registry: config.registry,
            workspace: config.workspace,
            onUncertain: config.onUncertain,
            ask: (question) => approvals.ask(question),
            emit: (event) => bus.emit(event),
          });
    let replay = recovered?.replays.get(stepId);
    const stopped = recovered?.stopped.get(stepId);
    const storeFailed = () =>
      new CortexError({
        code: 'store-failed',
        message: `The journal of step "${stepId}" failed: ${errorMessage(bus.storeError)}`,
        details: { runId, stepId },
        cause: bus.storeError,
      });
    // A journal that failed stops the step (its abort): whatever the step then threw, the failure
    // it reports is the journal's.
    const outcome: StepRunOutcome =
      stopped ??
      (await runStep(
        {
          runId,
          plan,
          config: stepConfig,
          meter,
          approvals,
          request,
          emit: (event) => bus.emit(event),
          ...(history.length > 0 && config.workspace !== undefined
            ? { priorStates: priorFileStates(history, stepId, config.workspace) }
            : {}),
          onModelUnavailable: (error) => {
            modelUnavailable = modelUnavailableReason(error);
          },
          verificationScope,
          // Journaled like a local step: commit points and what each call will change.
          ...(journal !== undefined
            ? {
                journal: () => {
                  const hooks = {
                    commit: () => bus.flush(),
                    snapshot: (call: DispatchedCall) =>
                      snapshotBeforeDispatch({
                        workspace: config.workspace,
                        tool: call.tool,
                        input: call.input,
                      }),
                    identifyProcess,
                    ...(workspaceLock !== undefined
                      ? {
                          acquire: (call: DispatchedCall) =>
                            workspaceLock.acquire(judgedByWorkspace(call) ? 'exclusive' : 'shared'),
                        }
                      : {}),
                    ...(replay !== undefined ? { replay } : {}),
                  };
                  replay = undefined;
                  return hooks;
                },
              }
            : {}),
        },
        stepId,
        controller.signal,
      ).catch((error: unknown) => {
        throw bus.storeError !== undefined ? storeFailed() : error;
      }));
    await bus.flush();
    if (bus.storeError !== undefined) throw storeFailed();
    return { outcome, events: bus.history, ...(modelUnavailable !== undefined ? { modelUnavailable } : {}) };
  } finally {
    unsubscribe();
    input.signal?.removeEventListener('abort', forward);
  }
}
