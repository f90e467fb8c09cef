import { realpathSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { type ChatModel, createRedactor, type PriceTable, type Redactor } from '@closedloop/model';
import { type AnyTool, type CommandRunner, createToolRegistry, type ToolRegistry } from '@closedloop/tools';
import {
  builtinProtocols,
  type Protocol,
  type SuccessCriterionInput,
  type VerificationMode,
} from '@closedloop/verifier';
import { parseToolContracts, validateProtocols } from '@closedloop/verifier/internal';
import type { ApprovalHandler } from './approvals';
import { CortexError } from './cortex-error';
import type { RunBudget } from './meter-model';
import { createPinnableClock } from './pinnable-clock';
import { type UncertainCallPolicy, uncertainCallPolicies } from './reconcile-call';
import type { CortexEventInput } from './run-bus';
import type { RunEvent } from './run-events';
import type { LeaseOptions, RunLease } from './run-lease';
import { type RemoteStepInput, type RemoteStepResult, runRemoteStep } from './run-remote-step';
import type { RunResult } from './run-result';
import { isResumableStop, RunSession } from './run-session';
import { assertRunId, createMemoryRunStore, createRunId, type RunMeta, type RunStore } from './run-store';
import type { AcceptUnverified, ExecutorSettings, PlanningMode, SessionConfig } from './session-config';
import type { StepTaskRunner } from './step-task';

/** Options of {@link createCortex}. */
export interface CortexOptions {
  /** The model of the steps (and, unless overridden, of planner, replanner, verifier and answer). */
  model: ChatModel;
  /** The tools steps may call. `mark_step` is added by the executor. */
  tools: readonly AnyTool[] | ToolRegistry;
  /** The workspace folder: claims, protocols and goal verification check it; stall detection hashes it. */
  workspace?: string;
  /**
   * `always`: ask the planner; `never`: run the request as one step; `auto` (default): one step
   * when `isSimpleRequest(request)` holds (short, single clause, no sequencing words), else plan.
   */
  planning?: PlanningMode;
  planner?: {
    model?: ChatModel;
    /**
     * The most steps a plan may have. A larger draft goes back to the planner once with the
     * limit; a second one fails the run with `CortexError('plan-too-large')`. Default 300.
     */
    maxSteps?: number;
  };
  replanner?: { model?: ChatModel; maxAttempts?: number; maxResultChars?: number; temperature?: number };
  executor?: ExecutorSettings;
  /**
   * What a step whose work could not be verified becomes: by default it gets one more attempt
   * with the verifier's reasons, then joins the replan batch (never `completed`); `'warn'`
   * completes it flagged unverified (the run then ends `completed-with-warnings` at best).
   */
  acceptUnverified?: AcceptUnverified;
  verifier?: {
    /** Custom protocols (steps and the planner may name them; goal criteria may use them). */
    protocols?: readonly Protocol[];
    /** Tool contracts (`{ profiles: … }`) and the profile that applies to every step. */
    contracts?: unknown;
    profile?: string;
    /** Layer selection for goal verification. */
    mode?: VerificationMode;
    /**
     * Goal verification when no step can run: `true` (default) checks the explicit criteria (and
     * that every step completed), `'derive'` also derives criteria from the request when there are
     * none, `false` skips it. It needs `workspace`.
     */
    goal?: boolean | 'derive';
    /** Goal criteria added to the planner's (`{ id, priority, protocol, description? }`). */
    criteria?: readonly SuccessCriterionInput[];
    model?: ChatModel;
    /**
     * `deterministic` (default): claims are read from the steps' text by rules (EN/ZH/JA);
     * `model`: a separate call of the verifier model also lists them as data (each is then
     * checked deterministically).
     */
    claimExtraction?: 'deterministic' | 'model';
  };
  /** Steps running at once. Default 4. */
  concurrency?: number;
  /**
   * How long a batch of failed steps waits for the steps that were running when it opened (they
   * may fail and join the batch: one replanner call) before the replanner is called. Default 1000 ms.
   */
  replanWindowMs?: number;
  /** Goal iterations before `max-iterations` (extended ×1.5 once when there was progress). Default 3. */
  maxIterations?: number;
  budget?: RunBudget;
  /** Prices for `budget.maxCostUsd` and the report's cost. */
  prices?: PriceTable;
  /**
   * `runMs`: wall time per `run`/`resume` call (default 2 hours); `stepMs`: per step run (default
   * 30 minutes). `Infinity` turns one off. Tool calls have their own default (the executor's
   * `toolTimeoutMs`, default 15 minutes, and the registry's `defaultTimeoutMs`).
   */
  deadlines?: { runMs?: number; stepMs?: number };
  /**
   * Removes secrets from everything the run records or shows: the task text (before it is
   * journaled or sent to a model), every event (journal, `onEvent`, `events()`), and the result.
   * Default `createRedactor()` (secret-named environment variables, registered API keys, key
   * shapes); `false` turns it off.
   */
  redactor?: Redactor | false;
  /**
   * The process runner of claim re-runs, protocols and git facts: pass the one your
   * `workspaceTools({ runner })` uses, so the verifier shares its command policy and sandbox.
   * Default: the default policy with `sandbox: 'auto'`.
   */
  runner?: CommandRunner;
  /** Where runs are journaled. Default: an in-memory store; `false`: no journal (no resume). */
  store?: RunStore | false;
  onEvent?: (event: RunEvent) => void;
  /** Human approvals (guard `ask-human`, the HUMAN_REVIEW protocol, interrupted non-idempotent calls). */
  onApproval?: ApprovalHandler;
  /**
   * What `resume` does with a non-idempotent call (a command, a custom tool) that started but has
   * no recorded result: `ask` (default: `onApproval` decides, with the evidence — without approval
   * the step is blocked), `rerun`, or `fail` (the step fails and is replanned). File tools are
   * settled by comparing the workspace with their intended effect, idempotent tools re-run.
   */
  onUncertain?: UncertainCallPolicy;
  /**
   * The run's lease (one live owner per run, taken by `run` and `resume` from the store): how long
   * a silent owner keeps it (`ttlMs`, default 15 000) and how often it renews it.
   */
  lease?: Pick<LeaseOptions, 'ttlMs' | 'renewEveryMs'>;
  /**
   * Where ready steps run. Default: in this process. A runner gets a `StepTask` and may run it
   * here (`task.runHere()`) or hand `task.snapshot()` to another process, whose cortex (built with
   * the same model, tools and workspace) calls `runStep`, and `task.adopt` the events it sends
   * back (`@closedloop/bullmq` does this over a BullMQ queue).
   */
  stepRunner?: StepTaskRunner;
  /** Epoch-ms clock for events. Default `Date.now`. */
  clock?: () => number;
}

/** Options of `cortex.run`. */
export interface RunOptions {
  signal?: AbortSignal;
  /** The run id (a safe file name); default a new time-sortable id. */
  runId?: string;
  /** Overrides the cortex's `planning` for this run. */
  planning?: PlanningMode;
}

/** A live run: its events as they happen, and its result. */
export type RunEventStream = AsyncIterable<RunEvent> & { result: Promise<RunResult>; runId: string };

/** A configured cortex. */
export interface Cortex {
  /** Plans, runs, verifies and replans until a typed stop reason. Throws only for bad input. */
  run(request: string, options?: RunOptions): Promise<RunResult>;
  /**
   * Continues a journaled run: the plan is rebuilt from its events, completed steps are not
   * re-run, and interrupted steps continue their attempt — recorded model turns and tool results
   * are fed back (no model call and no tool call the journal answered is made again) and the step
   * goes live from the first unrecorded point. A call that started without a recorded result is
   * reconciled (see `onUncertain`). A run that already stopped for good returns its stored result;
   * one that was cancelled, hit its deadline or its budget continues. A run whose owner never made
   * a group commit durable (metadata, and a journal without events; or no journal and a dead
   * owner's lease) starts over from its metadata: nothing acted yet.
   *
   * Throws `CortexError`: `unknown-run` (the store has no such run), `run-leased` (another live
   * process is running or resuming it), `journal-missing` (metadata without a journal, and no
   * dead owner to explain it) / `journal-truncated` / `journal-corrupt` / `journal-version` (a damaged journal: never a
   * silent restart), `resume-mismatch` (a run that is to continue, on a cortex whose workspace is
   * not the one the run worked in, or without a tool the run was planned with).
   */
  resume(runId: string, options?: { signal?: AbortSignal }): Promise<RunResult>;
  /** Starts a run and returns its event stream (with `result`). */
  events(request: string, options?: RunOptions): RunEventStream;
  /**
   * Runs one step of a run that another process coordinates (a worker's side of `stepRunner`):
   * executor, then verifier, with this cortex's model, tools, workspace and verifier settings, on
   * the coordinator's `task.snapshot()`. Resolves with the outcome and the step's journaled events
   * (for `task.adopt`); rejects with `CortexError('invalid-step-task')` for a bad input, and when
   * `journal` fails.
   */
  runStep(input: RemoteStepInput): Promise<RemoteStepResult>;
  /** The store runs are journaled in (`undefined` with `store: false`). */
  readonly store: RunStore | undefined;
}

function invalid(message: string, details: Record<string, unknown> = {}): CortexError {
  return new CortexError({ code: 'invalid-options', message, details });
}

function checkModel(model: unknown, what: string): ChatModel {
  if (typeof model !== 'object' || model === null || typeof (model as ChatModel).doGenerate !== 'function') {
    throw invalid(
      `${what} must be a ChatModel (an adapter such as createOpenAI(...)('gpt-4.1'), or ScriptedModel).`,
    );
  }
  return model as ChatModel;
}

function positiveInteger(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalid(`${what} must be an integer ≥ 1, got ${JSON.stringify(value)}.`, { [what]: value });
  }
  return value;
}

function positiveNumber(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalid(`${what} must be a number > 0, got ${JSON.stringify(value)}.`, { [what]: value });
  }
  return value;
}

/** A deadline in ms: a positive number, `Infinity` for none; `fallback` when not given. */
function deadline(value: unknown, what: string, fallback: number): number | undefined {
  if (value === Number.POSITIVE_INFINITY) return undefined;
  return positiveNumber(value, what) ?? fallback;
}

/** Default wall time of a `run`/`resume` call. */
export const defaultRunDeadlineMs = 2 * 60 * 60 * 1000;
/** Default wall time of one step run. */
export const defaultStepDeadlineMs = 30 * 60 * 1000;
/** Default timeout of one tool call (tools without their own). */
export const defaultToolTimeoutMs = 15 * 60 * 1000;
/** Default maximum number of steps in a drafted plan. */
export const defaultMaxPlanSteps = 300;

function nonNegative(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(`${what} must be a number ≥ 0, got ${JSON.stringify(value)}.`, { [what]: value });
  }
  return value;
}

function checkPlanning(value: unknown, what: string): PlanningMode | undefined {
  if (value === undefined) return undefined;
  if (value !== 'auto' && value !== 'always' && value !== 'never') {
    throw invalid(`${what} must be 'auto', 'always' or 'never', got ${JSON.stringify(value)}.`);
  }
  return value;
}

/**
 * Reads a journal to resume it. A torn last record is dropped only when the lease just taken over
 * shows that the previous owner died (its last group commit was cut off, so nothing acted on it);
 * otherwise it stays a `journal-truncated` error (the journal may have been cut by something else).
 * A journal file with no event (0 bytes, only its header, or a header cut short and dropped) reads
 * as an empty history with `unstarted` (its `journal-empty` error): unless the metadata says the
 * run journaled events, its owner never made a group commit durable — killed before it, or
 * stopped by the store's failure (a full disk) — so nothing acted.
 */
async function readForResume(
  store: RunStore,
  runId: string,
  lease: RunLease,
): Promise<{
  history: RunEvent[];
  /** The journal exists and holds no event: the `journal-empty` error its read gave. */
  unstarted?: CortexError;
  repaired?: Extract<CortexEventInput, { type: 'journal-repaired' }>;
}> {
  const previous = lease.takenOver;
  let unstarted: CortexError | undefined;
  const read = async (): Promise<RunEvent[]> => {
    try {
      return await store.read(runId);
    } catch (error) {
      if (!CortexError.isInstance(error) || error.code !== 'journal-empty') throw error;
      unstarted = error;
      return [];
    }
  };
  try {
    const history = await read();
    return { history, ...(unstarted ? { unstarted } : {}) };
  } catch (error) {
    if (!CortexError.isInstance(error) || error.code !== 'journal-truncated' || !previous || !store.repair) {
      throw error;
    }
    const { droppedBytes } = await store.repair(runId);
    const history = await read();
    return {
      history,
      ...(unstarted ? { unstarted } : {}),
      repaired: {
        type: 'journal-repaired',
        droppedBytes,
        holder: { pid: previous.pid, host: previous.host },
      },
    };
  }
}

/**
 * Records in the run's metadata that it has journaled events (`RunMeta.journaled`) and how far
 * (`RunMeta.durableSeq`), once a session that made a group commit durable ends: from then on an
 * empty journal is a lost one, and a shorter one a cut-back one. Best effort — a store that fails
 * here changes nothing about the run's result.
 */
async function markJournaled(store: RunStore, meta: RunMeta, session: RunSession): Promise<void> {
  const durableSeq = session.bus.durableEvents - 1;
  if (durableSeq < 0 || (meta.journaled === true && (meta.durableSeq ?? -1) >= durableSeq)) return;
  try {
    await store.writeMeta(meta.runId, { ...meta, journaled: true, durableSeq });
  } catch {
    // The guard it adds is lost; the run's journal and result are not.
  }
}

/**
 * Refuses a journal that its metadata says is not the whole run: metadata of another run
 * (`journal-mismatch`), or a journal with fewer events than the metadata's `durableSeq` — cut back
 * or restored from an older copy after a session ended (`journal-rolled-back`). Metadata older
 * than the journal (a session killed before it ended) is normal.
 */
function checkMetaFits(
  runId: string,
  meta: RunMeta | undefined,
  history: RunEvent[],
  store: RunStore,
  /** The store has no journal for the run at all (then it is `journal-missing`, below). */
  noJournal: boolean,
): void {
  if (meta === undefined) return;
  if (meta.runId !== runId) {
    throw new CortexError({
      code: 'journal-mismatch',
      message: `The metadata of run "${runId}" belongs to run ${JSON.stringify(meta.runId)}: put the run's own metadata back before resuming.`,
      details: { runId, found: meta.runId },
    });
  }
  const expectedSeq = meta.durableSeq;
  const foundSeq = history.length - 1;
  if (typeof expectedSeq === 'number' && foundSeq < expectedSeq && !noJournal) {
    const where =
      'pathOf' in store && typeof store.pathOf === 'function' ? ` (${String(store.pathOf(runId))})` : '';
    throw new CortexError({
      code: 'journal-rolled-back',
      message: `The journal of run "${runId}"${where} ends at seq ${foundSeq}, but the run's metadata records seq ${expectedSeq} as durable: the journal was cut back or restored from an older copy, so events the run acted on are missing. Resuming would repeat their effects; restore the full journal, or keep it for inspection and start a new run.`,
      details: { runId, expectedSeq, foundSeq },
    });
  }
}

/** A workspace path as the run records it: absolute, symbolic links resolved when it exists. */
function workspaceKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolvePath(path);
  }
}

/**
 * Refuses to resume a run on a cortex that does not fit it (`resume-mismatch`): another workspace
 * than the one the run worked in (its interrupted calls would be judged, and its remaining steps
 * done, against other files), or without a tool the run was planned with. Runs whose metadata
 * predates these fields are not checked.
 */
function checkResumeFits(runId: string, stored: RunMeta | undefined, config: SessionConfig): void {
  const recorded = stored?.options.workspace;
  if (typeof recorded === 'string') {
    const current = config.workspace === undefined ? undefined : workspaceKey(config.workspace);
    if (current !== recorded) {
      throw new CortexError({
        code: 'resume-mismatch',
        message: `Run "${runId}" worked in ${recorded}, but this cortex's workspace is ${current ?? 'not set'}: resume it with workspace ${recorded} (its interrupted calls are judged, and its remaining steps done, against those files).`,
        details: { runId, recorded, current: current ?? null },
      });
    }
  }
  const tools = stored?.options.tools;
  if (Array.isArray(tools)) {
    const missing = tools.filter((name) => typeof name === 'string' && !config.registry.has(name));
    if (missing.length > 0) {
      throw new CortexError({
        code: 'resume-mismatch',
        message: `Run "${runId}" was planned with tools this cortex does not have: ${missing.join(', ')}. Resume it with the tools it ran with.`,
        details: { runId, missing },
      });
    }
  }
}

/** True when the store has anything of `runId`: metadata or a journal (a damaged one too). */
async function hasRun(store: RunStore, runId: string): Promise<boolean> {
  if ((await store.readMeta(runId)) !== undefined) return true;
  try {
    return (await store.read(runId)).length > 0;
  } catch (error) {
    if (CortexError.isInstance(error) && error.code.startsWith('journal-')) return true;
    throw error;
  }
}

function resolveConfig(options: CortexOptions): SessionConfig {
  if (typeof options !== 'object' || options === null) throw invalid('createCortex needs an options object.');
  const model = checkModel(options.model, 'model');
  let registry: ToolRegistry;
  if (Array.isArray(options.tools)) {
    try {
      registry = createToolRegistry(options.tools);
    } catch (error) {
      throw new CortexError({
        code: 'invalid-options',
        message: `tools are invalid: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
  } else if (
    typeof options.tools === 'object' &&
    options.tools !== null &&
    typeof (options.tools as ToolRegistry).execute === 'function'
  ) {
    registry = options.tools as ToolRegistry;
  } else {
    throw invalid(
      'tools must be an array of tools (defineTool, workspaceTools) or a registry from createToolRegistry.',
    );
  }
  if (registry.has('mark_step')) {
    throw invalid('A tool is named "mark_step", the executor\'s built-in tool that ends a step. Rename it.');
  }
  if (options.verifier?.contracts !== undefined) {
    try {
      parseToolContracts(options.verifier.contracts);
    } catch (error) {
      throw new CortexError({
        code: 'invalid-options',
        message: `verifier.contracts are invalid: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
  }
  if (
    options.workspace !== undefined &&
    (typeof options.workspace !== 'string' || options.workspace === '')
  ) {
    throw invalid(`workspace must be a non-empty path, got ${JSON.stringify(options.workspace)}.`);
  }
  const protocols = [...(options.verifier?.protocols ?? [])];
  try {
    validateProtocols(protocols);
  } catch (error) {
    throw new CortexError({
      code: 'invalid-options',
      message: `verifier.protocols are invalid: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  const goal = options.verifier?.goal ?? true;
  if (goal !== true && goal !== false && goal !== 'derive') {
    throw invalid(`verifier.goal must be true, false or 'derive', got ${JSON.stringify(goal)}.`);
  }
  const budget = options.budget ?? {};
  const maxTokens = positiveNumber(budget.maxTokens, 'budget.maxTokens');
  const maxCostUsd = positiveNumber(budget.maxCostUsd, 'budget.maxCostUsd');
  const runMs = deadline(options.deadlines?.runMs, 'deadlines.runMs', defaultRunDeadlineMs);
  const stepMs = deadline(options.deadlines?.stepMs, 'deadlines.stepMs', defaultStepDeadlineMs);
  const toolTimeoutMs = deadline(
    options.executor?.toolTimeoutMs,
    'executor.toolTimeoutMs',
    defaultToolTimeoutMs,
  );
  const maxPlanSteps = positiveInteger(options.planner?.maxSteps, 'planner.maxSteps', defaultMaxPlanSteps);
  if (
    options.redactor !== undefined &&
    options.redactor !== false &&
    (typeof options.redactor !== 'object' || typeof options.redactor?.redactValue !== 'function')
  ) {
    throw invalid('redactor must be a Redactor (createRedactor from @closedloop/model) or false.');
  }
  if (options.runner !== undefined && typeof options.runner?.run !== 'function') {
    throw invalid('runner must be a CommandRunner (createCommandRunner from @closedloop/tools).');
  }
  if (options.onApproval !== undefined && typeof options.onApproval !== 'function') {
    throw invalid('onApproval must be a function.');
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function')
    throw invalid('onEvent must be a function.');
  const onUncertain = options.onUncertain ?? 'ask';
  if (!uncertainCallPolicies.includes(onUncertain)) {
    throw invalid(
      `onUncertain must be ${uncertainCallPolicies.map((policy) => `'${policy}'`).join(', ')}, got ${JSON.stringify(onUncertain)}.`,
    );
  }
  if (options.stepRunner !== undefined && typeof options.stepRunner !== 'function') {
    throw invalid('stepRunner must be a function (task) => Promise<StepRunOutcome>.');
  }
  const store = options.store === false ? undefined : (options.store ?? createMemoryRunStore());
  if (
    store !== undefined &&
    (typeof store.append !== 'function' ||
      typeof store.read !== 'function' ||
      typeof store.acquireLease !== 'function')
  ) {
    throw invalid(
      'store must implement RunStore (append, read, list, writeMeta, readMeta, acquireLease), or be false.',
    );
  }
  const verifierModel = checkModel(options.verifier?.model ?? model, 'verifier.model');
  const acceptUnverified = options.acceptUnverified ?? 'retry';
  if (acceptUnverified !== 'retry' && acceptUnverified !== 'warn') {
    throw invalid(`acceptUnverified must be 'retry' or 'warn', got ${JSON.stringify(acceptUnverified)}.`);
  }
  const claimExtraction = options.verifier?.claimExtraction ?? 'deterministic';
  if (claimExtraction !== 'deterministic' && claimExtraction !== 'model') {
    throw invalid(
      `verifier.claimExtraction must be 'deterministic' or 'model', got ${JSON.stringify(claimExtraction)}.`,
    );
  }
  const guard = options.executor?.guard;
  if (
    guard !== undefined &&
    guard !== false &&
    (typeof guard !== 'object' || guard === null || typeof guard.check !== 'function')
  ) {
    throw invalid('executor.guard must be a tool-call guard (createToolCallGuard) or false.');
  }
  return {
    model,
    plannerModel: checkModel(options.planner?.model ?? model, 'planner.model'),
    replannerModel: checkModel(options.replanner?.model ?? model, 'replanner.model'),
    verifierModel,
    replanner: {
      ...(options.replanner?.maxAttempts !== undefined ? { maxAttempts: options.replanner.maxAttempts } : {}),
      ...(options.replanner?.maxResultChars !== undefined
        ? { maxResultChars: options.replanner.maxResultChars }
        : {}),
      ...(options.replanner?.temperature !== undefined ? { temperature: options.replanner.temperature } : {}),
    },
    registry,
    workspace: options.workspace,
    planning: checkPlanning(options.planning, 'planning') ?? 'auto',
    // Without `guard`, each step gets the default guard (destructive calls self-verified with the
    // verifier model, metered); `guard: false` turns it off.
    executor: {
      ...options.executor,
      ...(toolTimeoutMs !== undefined ? { toolTimeoutMs } : {}),
    },
    acceptUnverified,
    maxPlanSteps,
    redactor: options.redactor === false ? undefined : (options.redactor ?? createRedactor()),
    ...(options.runner !== undefined ? { runner: options.runner } : {}),
    verifier: {
      protocols,
      protocolNames: [
        ...new Set([...Object.keys(builtinProtocols), ...protocols.map((protocol) => protocol.name)]),
      ],
      ...(options.verifier?.contracts !== undefined ? { contracts: options.verifier.contracts } : {}),
      ...(options.verifier?.profile !== undefined ? { profile: options.verifier.profile } : {}),
      ...(options.verifier?.mode !== undefined ? { mode: options.verifier.mode } : {}),
      goal,
      ...(options.verifier?.criteria !== undefined ? { criteria: options.verifier.criteria } : {}),
      claimExtraction,
    },
    concurrency: positiveInteger(options.concurrency, 'concurrency', 4),
    maxIterations: positiveInteger(options.maxIterations, 'maxIterations', 3),
    replanWindowMs: nonNegative(options.replanWindowMs, 'replanWindowMs') ?? 1000,
    budget: {
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    },
    ...(options.prices !== undefined ? { prices: options.prices } : {}),
    deadlines: { ...(runMs !== undefined ? { runMs } : {}), ...(stepMs !== undefined ? { stepMs } : {}) },
    store,
    ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
    ...(options.onApproval !== undefined ? { onApproval: options.onApproval } : {}),
    onUncertain,
    lease: { ...options.lease },
    ...(options.stepRunner !== undefined ? { stepRunner: options.stepRunner } : {}),
    clock: createPinnableClock(options.clock ?? Date.now),
  };
}

/**
 * Creates a cortex: planner → scheduler → executor → verifier → replanner → goal verification,
 * looping until a typed stop reason (see `stopReasons`).
 *
 * @example
 * const cortex = createCortex({ model, tools: workspaceTools({ root }), workspace: root });
 * const result = await cortex.run('Create hello.txt containing "hi"');
 * result.stopReason; // 'completed'
 */
export function createCortex(options: CortexOptions): Cortex {
  const config = resolveConfig(options);
  const active = new Set<string>();

  const start = (rawRequest: string, runOptions: RunOptions, listener?: (event: RunEvent) => void) => {
    if (typeof rawRequest !== 'string' || rawRequest.trim() === '') {
      throw new CortexError({
        code: 'invalid-request',
        message: `run needs a non-empty request string, got ${JSON.stringify(rawRequest)}.`,
      });
    }
    // A secret pasted into the task is removed before anything keeps it (meta, journal, events)
    // or sends it anywhere (the planner and step models).
    const request = config.redactor ? config.redactor.redact(rawRequest) : rawRequest;
    if (typeof runOptions !== 'object' || runOptions === null)
      throw invalid('run options must be an object.');
    const planning = checkPlanning(runOptions.planning, 'planning');
    const runId = runOptions.runId ?? createRunId(config.clock());
    assertRunId(runId);
    if (active.has(runId)) {
      throw new CortexError({
        code: 'run-active',
        message: `Run "${runId}" is already running in this cortex.`,
      });
    }
    active.add(runId);
    const result = (async () => {
      let lease: RunLease | undefined;
      let meta: RunMeta | undefined;
      try {
        if (config.store) {
          lease = await config.store.acquireLease(runId, { ...config.lease, purpose: 'run' });
          if (await hasRun(config.store, runId)) {
            throw new CortexError({
              code: 'run-exists',
              message: `The store already has a run "${runId}"; resume it or pick another id.`,
              details: { runId },
            });
          }
          meta = {
            runId,
            request,
            createdAt: config.clock(),
            options: {
              planning: planning ?? config.planning,
              concurrency: config.concurrency,
              maxIterations: config.maxIterations,
              budget: { ...config.budget },
              deadlines: { ...config.deadlines },
              goalVerification: config.verifier.goal,
              // What a resume must match (`checkResumeFits`).
              ...(config.workspace !== undefined ? { workspace: workspaceKey(config.workspace) } : {}),
              tools: config.registry.specs().map((spec) => spec.name),
            },
          };
          await config.store.writeMeta(runId, meta);
        }
        const session = new RunSession({
          config,
          runId,
          request,
          ...(planning !== undefined ? { planning } : {}),
          ...(listener ? { listener } : {}),
          ...(lease ? { lease } : {}),
        });
        const result = await session.run(runOptions.signal);
        if (config.store && meta) await markJournaled(config.store, meta, session);
        return result;
      } finally {
        active.delete(runId);
        await lease?.release();
      }
    })();
    return { runId, result };
  };

  const cortex: Cortex = {
    store: config.store,
    runStep: (input) => runRemoteStep(config, input),
    run(request, runOptions = {}) {
      try {
        return start(request, runOptions).result;
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async resume(runId, resumeOptions = {}) {
      assertRunId(runId);
      const store = config.store;
      if (!store) {
        throw new CortexError({
          code: 'unknown-run',
          message: 'This cortex has no run store (store: false): nothing to resume.',
        });
      }
      if (active.has(runId)) {
        throw new CortexError({
          code: 'run-active',
          message: `Run "${runId}" is still running in this cortex.`,
        });
      }
      active.add(runId);
      let lease: RunLease | undefined;
      try {
        lease = await store.acquireLease(runId, { ...config.lease, purpose: 'resume' });
        const { history, unstarted, repaired } = await readForResume(store, runId, lease);
        const meta = await store.readMeta(runId);
        checkMetaFits(runId, meta, history, store, unstarted === undefined && history.length === 0);
        // A run that stopped for good only returns its stored result: nothing runs, any cortex fits.
        const finish = history.findLast((event) => event.type === 'run-finished');
        if (!(finish?.type === 'run-finished' && !isResumableStop(finish.stopReason))) {
          checkResumeFits(runId, meta, config);
        }
        const started = history.find((event) => event.type === 'run-started');
        const request = meta?.request ?? (started?.type === 'run-started' ? started.request : undefined);
        if (request === undefined) {
          throw new CortexError({
            code: 'unknown-run',
            message: `The store has no run "${runId}" to resume.`,
            details: { runId },
          });
        }
        const planning = checkPlanning(meta?.options.planning, 'stored planning');
        if (
          history.length === 0 &&
          meta !== undefined &&
          meta.journaled !== true &&
          (unstarted !== undefined || lease.takenOver !== undefined)
        ) {
          // The owner wrote the metadata and never made a group commit durable: its journal has no
          // event (a full disk failed its first write, or it was killed inside it), or it died
          // holding the lease before creating the journal. Every effect waits for a durable group
          // that journals it, so nothing acted yet: the run starts over from its metadata.
          const session = new RunSession({
            config,
            runId,
            request,
            lease,
            ...(planning !== undefined ? { planning } : {}),
          });
          const result = await session.run(resumeOptions.signal);
          await markJournaled(store, meta, session);
          return result;
        }
        // A journal emptied after the run journaled events: its history is lost.
        if (history.length === 0 && unstarted !== undefined) throw unstarted;
        if (history.length === 0) {
          // Metadata without a journal, and no owner that died before writing one: the run's
          // events are gone. Starting over would repeat whatever it did in the workspace, so it
          // is an error, never a silent restart.
          throw new CortexError({
            code: 'journal-missing',
            message: `Run "${runId}" has metadata but no journal: its events are missing, so it cannot be resumed (starting it over could repeat its effects). Start a new run if that is what you want.`,
            details: { runId },
          });
        }
        // Records a dead owner wrote without acknowledging them are acted on from here: the store
        // makes them durable and moves its durable point over them first.
        await store.sync?.(runId);
        const session = new RunSession({
          config,
          runId,
          request,
          history,
          lease,
          ...(planning !== undefined ? { planning } : {}),
        });
        if (repaired) session.bus.emit(repaired);
        try {
          session.restore(history);
        } catch (error) {
          throw new CortexError({
            code: 'journal-corrupt',
            message: `The journal of run "${runId}" does not replay: ${error instanceof Error ? error.message : String(error)}`,
            details: { runId },
            cause: error,
          });
        }
        const result = await session.run(resumeOptions.signal);
        if (meta !== undefined) await markJournaled(store, meta, session);
        return result;
      } finally {
        active.delete(runId);
        await lease?.release();
      }
    },
    events(request, runOptions = {}) {
      const queue: RunEvent[] = [];
      let wake: (() => void) | undefined;
      let done = false;
      const { runId, result } = start(request, runOptions, (event) => {
        queue.push(event);
        wake?.();
      });
      const settled = result.finally(() => {
        done = true;
        wake?.();
      });
      settled.catch(() => {});
      return {
        runId,
        result,
        async *[Symbol.asyncIterator]() {
          for (;;) {
            while (queue.length > 0) yield queue.shift()!;
            if (done) return;
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        },
      };
    },
  };
  return cortex;
}
