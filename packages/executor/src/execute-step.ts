import { randomUUID } from 'node:crypto';
import {
  type ChatMessage,
  type ChatModel,
  type GenerateOptions,
  type GenerateRequest,
  type GenerateResult,
  generate,
  ModelError,
  type StreamPart,
  type ToolCall,
  type ToolSpec,
  type Usage,
} from '@closedloop/model';
import { addUsage, emptyUsage } from '@closedloop/model/provider';
import {
  formatStepNotes,
  type MarkStepOptions,
  type Plan,
  parseStepNotes,
  type ReadonlyStep,
  type StepId,
  type ToolCallRecord,
} from '@closedloop/plan';
import { markStepWithoutCopy } from '@closedloop/plan/internal';
import {
  type AnyTool,
  createToolRegistry,
  type ToolExecuteContext,
  type ToolOutcome,
  type ToolRegistry,
  type ValidToolCall,
} from '@closedloop/tools';
import {
  measureJson,
  normalizeToolArguments,
  parseToolInput,
  truncateText,
} from '@closedloop/tools/internal';
import { z } from 'zod';
import { buildStepPrompt, buildSummaryPrompt, type DependencyOutput } from './build-step-prompt';
import { canonicalJson } from './canonical-json';
import { ExecutorError } from './executor-error';
import type { ExecutorEvent } from './executor-events';
import { executorSystemPrompt } from './executor-system-prompt';
import { markStepInputSchema, markStepToolName, markStepToolSpec } from './mark-step-tool';
import { aborted, raceAbort } from './race-abort';
import {
  type ExecutionLimits,
  type ExecutionMode,
  type ResolvedLimits,
  resolveLimits,
  resolveOptionalMs,
  resolvePositiveInteger,
} from './resolve-execute-options';
import { type StepJournal, StepReplayer } from './step-journal';
import type { AskHumanRequest, GuardDecision, ToolCallGuard } from './tool-call-guard';

/** Why a step's loop ended. */
export type StepStopReason =
  /** The model called `mark_step` (with `success` or `fail`). */
  | 'marked'
  /** The model answered without tool calls. */
  | 'no-tool-calls'
  /** `limits.maxSuccesses` successful tool rounds; one summary turn without tools followed. */
  | 'success-cap'
  /** `limits.maxIterations` model turns without an end. */
  | 'max-iterations'
  /** The same tool with the same arguments was asked for `limits.maxRepeatedCalls` times. */
  | 'repeated-call'
  /** The caller's signal aborted. */
  | 'aborted'
  /** The model call failed for good (after the retry policy); see `error`. */
  | 'model-error';

/** What the run knows besides the plan, for the step's first user message. */
export interface StepExecutionContext {
  /** The run's goal. Default: `plan.goal`. */
  goal?: string;
  /**
   * Outputs of the step's completed dependencies. Default: read from the plan (each completed
   * dependency's `output`, or its notes), flagged `unverified` from its verification record.
   */
  dependencyOutputs?: DependencyOutput[];
}

/** Options of {@link executeStep}. */
export interface ExecuteStepOptions {
  model: ChatModel;
  /** The step's tools, as a list or a registry from `createToolRegistry`. `mark_step` is added. */
  tools: readonly AnyTool[] | ToolRegistry;
  /** `single`: one successful tool round, then a summary; `auto`: up to five. Default `auto`. */
  mode?: ExecutionMode;
  limits?: ExecutionLimits;
  /** Pre-execution check of every tool call (not of `mark_step`). */
  guard?: ToolCallGuard;
  /**
   * Asked when the guard answers `ask-human`: `true` runs the call, `false` denies it.
   * Default: deny (no human is around).
   */
  onAskHuman?: (request: AskHumanRequest) => boolean | Promise<boolean>;
  /** Aborting stops the in-flight model request and tools at once; the step ends `aborted`. */
  signal?: AbortSignal;
  /** Loop events as they happen. A throwing listener is ignored. */
  onEvent?: (event: ExecutorEvent) => void;
  context?: StepExecutionContext;
  /** Extra instructions appended to {@link executorSystemPrompt} (never replacing it). */
  systemPrompt?: string;
  /**
   * How many non-destructive calls of one response may run at once. Default 1 (sequential, in
   * call order). Destructive calls always run one at a time, after the non-destructive ones.
   */
  parallelTools?: number;
  /** Tool results longer than this are cut (head + tail, with a marker) for the model. Default 8000. */
  maxToolResultChars?: number;
  /** Timeout for tools that set no `timeoutMs` of their own. Default: none. */
  toolTimeoutMs?: number;
  /** Stream model turns (`doStream`) when the model supports it, emitting deltas. Default false. */
  stream?: boolean;
  /** Retry policy for model calls (`generate`'s), or `false` for one attempt. Default: its defaults. */
  retry?: GenerateOptions['retry'];
  /** Extra request settings for every model call. */
  callSettings?: Pick<GenerateRequest, 'temperature' | 'maxOutputTokens' | 'providerOptions'>;
  /**
   * Durable execution (cortex sets it for journaled runs): commit points before tools run and
   * before the model's answer to a non-idempotent tool's result is used, dispatch snapshots, and
   * the replay of an interrupted attempt on resume. See {@link StepJournal}.
   */
  journal?: StepJournal;
}

/** What {@link executeStep} returns. It never sets the step `completed` or `failed`. */
export interface StepExecutionResult {
  stepId: StepId;
  stopReason: StepStopReason;
  /**
   * The step's answer: the summary for `success-cap`, the final text for `no-tool-calls`, else
   * the last non-empty assistant text (for `marked` without text: the notes' message).
   */
  answer: string;
  /** Model turns of the loop (the success-cap summary call is not one). */
  iterations: number;
  /** Successful tool rounds (model responses whose tool calls all succeeded). */
  successes: number;
  /** Tokens of every model call of the step, the summary call included. */
  usage: Usage;
  /** Present when the model called `mark_step` successfully. */
  marked?: { status: 'success' | 'fail'; notes: string };
  /** Ledger entries still `pending` at `finalizeStep` (empty unless a tool call was lost). */
  pendingCalls: ToolCallRecord[];
  /** The final model failure, for `stopReason: 'model-error'`. */
  error?: ModelError;
  /**
   * The lowest confidence (0..1) of the step's model turns, when the model returned logprobs
   * (the executor asks logprob-capable models for them). Uncertainty only accumulates.
   */
  confidence?: number;
  /** The step's whole conversation, system prompt first. */
  messages: ChatMessage[];
}

/** The result of running (or refusing) one tool call. */
interface CallOutcome {
  ok: boolean;
  /** Full text: recorded in the ledger; the model gets it truncated. */
  text: string;
  /** The call never finished because the step was aborted (left `pending` when journaled). */
  aborted?: boolean;
  /** Already in the ledger (a replayed result): not recorded again. */
  recorded?: boolean;
}

interface PendingCall {
  call: ToolCall;
  ledgerId: string;
  outcome?: CallOutcome;
  /** Lets other calls act on the workspace again (see {@link StepJournal.acquire}). */
  release?: () => void;
}

const neverAborted = new AbortController().signal;

/**
 * Tool-call arguments past these bounds are refused where the model's answer arrives, before the
 * ledger, the dedupe key, the events, the journal or the next request walk them: `JSON.parse`
 * builds any depth, but every recursive walker (and `JSON.stringify`) overflows the stack at a
 * few thousand levels, which a hundred kilobytes of model output reach. Looser than the
 * registry's own defaults (64 levels, 100 000 values), which still apply.
 */
const argumentBounds = { maxDepth: 256, maxNodes: 1_000_000 } as const;

/** What an over-bound call's arguments become: a short text, refused when the call runs. */
const refusedArguments = `[closedloop: arguments nested deeper than ${argumentBounds.maxDepth} levels or holding more than ${argumentBounds.maxNodes} values, not kept]`;

/** `result` with the arguments of every over-bound tool call replaced by {@link refusedArguments}. */
function boundToolCallArguments(result: GenerateResult): GenerateResult {
  let changed = false;
  const toolCalls = result.toolCalls.map((call) => {
    if (!measureJson(normalizeToolArguments(call.arguments), argumentBounds).exceeded) return call;
    changed = true;
    return { ...call, arguments: refusedArguments, rawArguments: refusedArguments };
  });
  return changed ? { ...result, toolCalls } : result;
}

function errorText(code: string, message: string): string {
  return `Error (${code}): ${message}`;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function isRegistry(tools: readonly AnyTool[] | ToolRegistry): tools is ToolRegistry {
  return !Array.isArray(tools);
}

function defaultDependencyOutputs(plan: Plan, step: ReadonlyStep): DependencyOutput[] {
  const outputs: DependencyOutput[] = [];
  for (const id of step.dependsOn) {
    if (!plan.has(id)) continue;
    // Read in place: a copy would duplicate the dependency's whole ledger for three strings.
    const dependency = plan.readStep(id);
    if (dependency.status !== 'completed') continue;
    const verification = dependency.verification;
    outputs.push({
      stepId: id,
      description: dependency.title ?? dependency.description,
      output: dependency.output ?? parseStepNotes(dependency.notes).message,
      unverified:
        verification !== undefined && (verification.unverified || verification.verdict === 'unverified'),
      ...(verification?.confidence !== undefined ? { confidence: verification.confidence } : {}),
    });
  }
  return outputs;
}

/**
 * The specs the model sees for a registry (its tools, then `mark_step`), built once per registry:
 * a run's steps share one registry, and its specs depend on nothing else. Every step's requests
 * share them, as every request of a step always did (models and providers only read them).
 */
const specsByRegistry = new WeakMap<ToolRegistry, ToolSpec[]>();
function specsOf(registry: ToolRegistry): ToolSpec[] {
  let specs = specsByRegistry.get(registry);
  if (specs === undefined) {
    specs = [...registry.specs(), markStepToolSpec];
    specsByRegistry.set(registry, specs);
  }
  return specs;
}

function toRegistry(tools: readonly AnyTool[] | ToolRegistry): ToolRegistry {
  let registry: ToolRegistry;
  if (isRegistry(tools)) {
    registry = tools;
  } else {
    try {
      registry = createToolRegistry(tools);
    } catch (error) {
      throw new ExecutorError({
        code: 'tool-name-conflict',
        message: `The tools cannot be registered: ${describeError(error)}`,
        details: { tools: tools.map((tool) => tool.name) },
        cause: error,
      });
    }
  }
  if (registry.has(markStepToolName)) {
    throw new ExecutorError({
      code: 'tool-name-conflict',
      message: `A tool is named "${markStepToolName}", the executor's built-in tool that ends a step. Rename it.`,
      details: { name: markStepToolName },
    });
  }
  return registry;
}

/**
 * Runs one step of `plan` as a ReAct loop: model turn → tool calls → results back into the
 * conversation → repeat, until the model calls `mark_step`, answers without tools, or a limit
 * hits. Every tool call is written to the step's ledger `pending` before anything else happens
 * to it, then `success` or `error`. Unknown tools, invalid arguments, guard denials, tool
 * failures and timeouts become error results the model can react to.
 *
 * The caller sets the step `in_progress` first and decides `completed`/`failed` afterwards from
 * the verifier: this function only writes notes, claims and output (`plan.markStep`) and always
 * calls `plan.finalizeStep` — also on abort and model errors. It throws `ExecutorError` for bad
 * input, before the loop starts; afterwards only a `PlanError` from a plan changed underneath the
 * step (e.g. the step removed by a concurrent replan) can escape.
 *
 * @example
 * ```ts
 * plan.markStep('write-readme', { status: 'in_progress' });
 * const result = await executeStep(plan, 'write-readme', { model, tools: workspaceTools({ root }) });
 * result.stopReason; // 'marked'
 * ```
 */
export async function executeStep(
  plan: Plan,
  stepId: StepId,
  options: ExecuteStepOptions,
): Promise<StepExecutionResult> {
  return new StepRun(plan, stepId, options).run();
}

class StepRun {
  private readonly plan: Plan;
  private readonly stepId: StepId;
  private readonly options: ExecuteStepOptions;
  private readonly model: ChatModel;
  private readonly mode: ExecutionMode;
  private readonly limits: ResolvedLimits;
  private readonly registry: ToolRegistry;
  private readonly specs: ToolSpec[];
  private readonly signal: AbortSignal;
  private readonly parallelTools: number;
  private readonly maxToolResultChars: number;
  private readonly toolTimeoutMs: number | undefined;
  private readonly streaming: boolean;
  private readonly request: string;
  private readonly messages: ChatMessage[];
  private readonly usedCallIds: Set<string>;
  private readonly repeats = new Map<string, number>();
  private usage: Usage = emptyUsage();
  private iterations = 0;
  private successes = 0;
  private lastText = '';
  private marked: { status: 'success' | 'fail'; notes: string; message: string } | undefined;
  private confidence: number | undefined;
  private lowestConfidence: number | undefined;
  private readonly journal: StepJournal | undefined;
  private readonly replayer: StepReplayer | undefined;
  /** A non-idempotent tool's result was recorded since the last commit: commit it with the next model call. */
  private uncommittedResults = false;

  constructor(plan: Plan, stepId: StepId, options: ExecuteStepOptions) {
    if (options === null || typeof options !== 'object' || options.model === undefined) {
      throw new ExecutorError({
        code: 'invalid-options',
        message: 'executeStep needs options with a `model` (a ChatModel) and `tools`.',
        details: { option: 'model' },
      });
    }
    if (options.tools === undefined || options.tools === null) {
      throw new ExecutorError({
        code: 'invalid-options',
        message: 'executeStep needs `tools`: a list of tools (may be empty) or a tool registry.',
        details: { option: 'tools' },
      });
    }
    this.mode = options.mode ?? 'auto';
    this.limits = resolveLimits(this.mode, options.limits);
    this.parallelTools = resolvePositiveInteger('parallelTools', options.parallelTools, 1);
    this.maxToolResultChars = resolvePositiveInteger('maxToolResultChars', options.maxToolResultChars, 8000);
    this.toolTimeoutMs = resolveOptionalMs('toolTimeoutMs', options.toolTimeoutMs);
    if (!plan.has(stepId)) {
      throw new ExecutorError({
        code: 'unknown-step',
        message: `The plan has no step "${stepId}".`,
        details: { stepId },
      });
    }
    // Read in place (the fields used below are copied where they are kept); the replayer keeps
    // the ledger as it is now, so it gets a copy.
    const step = plan.readStep(stepId);
    if (step.status !== 'in_progress') {
      throw new ExecutorError({
        code: 'step-not-in-progress',
        message: `Step "${stepId}" is ${step.status}; set it in_progress (plan.markStep(id, { status: 'in_progress' })) before executing it.`,
        details: { stepId, status: step.status },
      });
    }
    this.plan = plan;
    this.stepId = stepId;
    this.options = options;
    this.model = options.model;
    this.registry = toRegistry(options.tools);
    this.specs = specsOf(this.registry);
    this.signal = options.signal ?? neverAborted;
    this.streaming = options.stream === true && options.model.capabilities.streaming;
    this.usedCallIds = new Set(step.ledger.map((record) => record.callId));
    this.journal = options.journal;
    this.replayer = options.journal?.replay
      ? new StepReplayer(options.journal.replay, plan.step(stepId).ledger)
      : undefined;

    const goal = options.context?.goal ?? plan.goal;
    this.request = `${goal.trim() === '' ? '' : `Goal: ${goal.trim()}\n`}Step ${step.id}: ${step.description}`;
    const system =
      options.systemPrompt !== undefined && options.systemPrompt.trim() !== ''
        ? `${executorSystemPrompt}\n\n${options.systemPrompt.trim()}`
        : executorSystemPrompt;
    const user = buildStepPrompt({
      step,
      goal,
      dependencyOutputs: options.context?.dependencyOutputs ?? defaultDependencyOutputs(plan, step),
      maxOutputChars: this.maxToolResultChars,
    });
    this.messages = [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ];
  }

  async run(): Promise<StepExecutionResult> {
    let stopReason: StepStopReason = 'aborted';
    let answer = '';
    let error: ModelError | undefined;
    let pendingCalls: ToolCallRecord[] = [];
    try {
      for (;;) {
        if (this.signal.aborted) {
          stopReason = 'aborted';
          break;
        }
        this.iterations++;
        const turn = await this.callModel('turn');
        if (turn.kind === 'aborted') {
          stopReason = 'aborted';
          break;
        }
        if (turn.kind === 'error') {
          stopReason = 'model-error';
          error = turn.error;
          break;
        }
        const result = turn.result;
        this.confidence = result.confidence;
        if (result.confidence !== undefined)
          this.lowestConfidence = Math.min(this.lowestConfidence ?? 1, result.confidence);
        const assistant: ChatMessage = { role: 'assistant', content: result.text };
        if (result.toolCalls.length > 0) assistant.toolCalls = result.toolCalls;
        if (result.reasoning !== undefined) assistant.reasoning = result.reasoning;
        this.messages.push(assistant);
        if (result.text.trim() !== '') this.lastText = result.text;
        if (result.toolCalls.length === 0) {
          stopReason = 'no-tool-calls';
          answer = result.text;
          break;
        }

        const round = await this.runToolCalls(result.toolCalls);
        if (round === 'repeated-call') {
          stopReason = 'repeated-call';
          break;
        }
        if (this.signal.aborted) {
          stopReason = 'aborted';
          break;
        }
        if (this.marked !== undefined) {
          stopReason = 'marked';
          break;
        }
        if (this.successes >= this.limits.maxSuccesses) {
          const summary = await this.summarise();
          if (summary.kind === 'aborted') stopReason = 'aborted';
          else if (summary.kind === 'error') {
            stopReason = 'model-error';
            error = summary.error;
          } else {
            stopReason = 'success-cap';
            answer = summary.result.text.trim() !== '' ? summary.result.text : this.lastText;
          }
          break;
        }
        if (this.iterations >= this.limits.maxIterations) {
          stopReason = 'max-iterations';
          break;
        }
      }
      if (answer === '') answer = this.lastText;
      if (answer === '' && this.marked !== undefined) answer = this.marked.message;
    } finally {
      try {
        // A marked step wrote its answer with its notes (see `markStep`).
        if (answer.trim() !== '' && this.plan.readStep(this.stepId).output !== answer)
          markStepWithoutCopy(this.plan, this.stepId, { output: answer });
      } finally {
        pendingCalls = this.plan.finalizeStep(this.stepId);
      }
    }
    const outcome: StepExecutionResult = {
      stepId: this.stepId,
      stopReason,
      answer,
      iterations: this.iterations,
      successes: this.successes,
      usage: this.usage,
      pendingCalls,
      messages: this.messages,
    };
    if (this.marked !== undefined) outcome.marked = { status: this.marked.status, notes: this.marked.notes };
    if (error !== undefined) outcome.error = error;
    if (this.lowestConfidence !== undefined) outcome.confidence = this.lowestConfidence;
    return outcome;
  }

  private emit(event: ExecutorEvent): void {
    const listener = this.options.onEvent;
    if (listener === undefined) return;
    try {
      listener(event);
    } catch {
      // A listener's failure must not break the step.
    }
  }

  private async callModel(
    purpose: 'turn' | 'summary',
  ): Promise<
    { kind: 'ok'; result: GenerateResult } | { kind: 'aborted' } | { kind: 'error'; error: ModelError }
  > {
    if (this.signal.aborted) return { kind: 'aborted' };
    const recorded = this.replayer?.nextResponse(purpose);
    if (recorded !== undefined) {
      this.usage = addUsage(this.usage, recorded.usage);
      return { kind: 'ok', result: recorded };
    }
    // New results of non-idempotent tools are committed while the model works on them; its
    // answer is used only once they are durable. (Every result is durable before anything acts
    // on it anyway: the next tool runs only after a commit, and commits keep the event order.)
    let resultsDurable: Promise<void> | undefined;
    if (this.journal !== undefined && this.uncommittedResults) {
      this.uncommittedResults = false;
      resultsDurable = this.journal.commit();
    }
    const request: GenerateRequest = {
      ...this.options.callSettings,
      // A copy per turn: a model (or a recorder) may keep the request; the loop keeps appending.
      messages: this.messages.slice(),
      tools: this.specs,
      toolChoice: purpose === 'summary' ? 'none' : 'auto',
    };
    if (this.mode === 'single' && purpose === 'turn') request.parallelToolCalls = false;
    // A confidence signal for the guard and the verifier, from models that can give one.
    if (this.model.capabilities.logprobs && purpose === 'turn') request.logprobs = true;
    const iteration = this.iterations;
    const streaming = this.streaming && purpose === 'turn';
    this.emit({ type: 'model-call-started', stepId: this.stepId, iteration, purpose, streaming });
    const startedAt = performance.now();
    const generateOptions: GenerateOptions = { signal: this.signal };
    if (this.options.retry !== undefined) generateOptions.retry = this.options.retry;
    if (streaming) generateOptions.onPart = (part) => this.onStreamPart(part, iteration);
    let result: GenerateResult;
    try {
      // `generate` races every attempt against the signal itself (its retry policy rejects with
      // `aborted` as soon as the signal aborts, even for a model that ignores it): no second race.
      result = boundToolCallArguments(await generate(this.model, request, generateOptions));
    } catch (error) {
      if (this.signal.aborted) return { kind: 'aborted' };
      return {
        kind: 'error',
        error: ModelError.isInstance(error)
          ? error
          : new ModelError({
              code: 'invalid-response',
              message: `model call failed: ${describeError(error)}`,
              provider: this.model.provider,
              cause: error,
            }),
      };
    }
    if (this.signal.aborted) return { kind: 'aborted' };
    if (resultsDurable !== undefined) {
      await resultsDurable;
      if (this.signal.aborted) return { kind: 'aborted' };
    }
    this.usage = addUsage(this.usage, result.usage);
    const finished: Extract<ExecutorEvent, { type: 'model-call-finished' }> = {
      type: 'model-call-finished',
      stepId: this.stepId,
      iteration,
      purpose,
      usage: result.usage,
      finishReason: result.finishReason,
      toolCalls: result.toolCalls.length,
      durationMs: performance.now() - startedAt,
    };
    // Journaled before anything acts on it: a resume feeds it back instead of asking again. (Set,
    // not spread in: this runs for every model call.)
    if (this.journal !== undefined) finished.response = result;
    this.emit(finished);
    return { kind: 'ok', result };
  }

  private onStreamPart(part: StreamPart, iteration: number): void {
    if (part.type === 'text-delta') {
      this.emit({ type: 'text-delta', stepId: this.stepId, iteration, delta: part.delta });
    } else if (part.type === 'tool-call-delta') {
      const event: ExecutorEvent = {
        type: 'tool-call-delta',
        stepId: this.stepId,
        iteration,
        index: part.index,
        argumentsDelta: part.argumentsDelta,
      };
      if (part.id !== undefined) event.id = part.id;
      if (part.name !== undefined) event.name = part.name;
      this.emit(event);
    }
  }

  private async summarise() {
    this.messages.push({
      role: 'user',
      content: buildSummaryPrompt({ successes: this.successes, mode: this.mode }),
    });
    const summary = await this.callModel('summary');
    if (summary.kind === 'ok') this.messages.push({ role: 'assistant', content: summary.result.text });
    return summary;
  }

  /** A ledger id unique in the step: the provider's id, suffixed when a provider reuses one. */
  private ledgerIdFor(call: ToolCall): string {
    const base = call.id === '' ? `call-${this.usedCallIds.size + 1}` : call.id;
    let id = base;
    for (let n = 2; this.usedCallIds.has(id); n++) id = `${base}#${n}`;
    this.usedCallIds.add(id);
    return id;
  }

  private record(pending: PendingCall, outcome: CallOutcome): void {
    pending.outcome = outcome;
    if (outcome.recorded) return;
    // Journaled: an aborted call stays pending, so a resume can still run or reconcile it.
    if (outcome.aborted && this.journal !== undefined) return;
    // A result a resume could not get back (a command's output) is committed before the model's
    // answer to it is used; an idempotent tool is simply run again if its result is lost.
    const tool = this.registry.get(pending.call.name);
    if (tool !== undefined && !tool.idempotent) this.uncommittedResults = true;
    this.plan.recordToolResult(
      this.stepId,
      outcome.ok
        ? { callId: pending.ledgerId, tool: pending.call.name, status: 'success', result: outcome.text }
        : { callId: pending.ledgerId, tool: pending.call.name, status: 'error', error: outcome.text },
    );
  }

  private async runToolCalls(calls: ToolCall[]): Promise<'done' | 'repeated-call'> {
    // 1. The ledger first: every call of the response is `pending` before anything runs.
    const pending: PendingCall[] = calls.map((call) => {
      const replayed = this.replayer?.claim(call);
      if (replayed !== undefined) {
        const recorded = StepReplayer.outcomeOf(replayed);
        return {
          call,
          ledgerId: replayed.callId,
          ...(recorded ? { outcome: { ...recorded, recorded: true } } : {}),
        };
      }
      const ledgerId = this.ledgerIdFor(call);
      this.plan.recordToolCall(this.stepId, { callId: ledgerId, tool: call.name, args: call.arguments });
      return { call, ledgerId };
    });

    // 2. Identical repeated calls stop the step before anything of this response runs.
    const keys = new Map<string, number>();
    let repeated: string | undefined;
    for (const { call } of pending) {
      if (call.name === markStepToolName) continue;
      const key = `${call.name}\u0000${canonicalJson(normalizeToolArguments(call.arguments))}`;
      const count = (keys.get(key) ?? this.repeats.get(key) ?? 0) + 1;
      keys.set(key, count);
      if (count >= this.limits.maxRepeatedCalls && repeated === undefined) repeated = call.name;
    }
    for (const [key, count] of keys) this.repeats.set(key, count);
    if (repeated !== undefined) {
      for (const item of pending) {
        if (item.outcome?.recorded) continue;
        this.record(item, {
          ok: false,
          text: errorText(
            'repeated-call',
            `Not run: "${repeated}" was called with identical arguments ${this.limits.maxRepeatedCalls} times in this step, so the step was stopped.`,
          ),
        });
      }
      this.pushToolMessages(pending);
      return 'repeated-call';
    }

    // 3. Run the real calls: sequential, or non-destructive ones concurrently then destructive ones.
    const real = pending.filter((item) => item.call.name !== markStepToolName);
    const marks = pending.filter((item) => item.call.name === markStepToolName);
    if (this.parallelTools <= 1) {
      for (const item of real) await this.runOne(item);
    } else {
      const isDestructive = (item: PendingCall) => this.registry.get(item.call.name)?.destructive === true;
      await this.runPool(
        real.filter((item) => !isDestructive(item)),
        this.parallelTools,
      );
      for (const item of real.filter(isDestructive)) await this.runOne(item);
    }

    // 4. mark_step last: it may not claim success over sibling calls that failed.
    const siblingFailed = real.some((item) => item.outcome?.ok !== true);
    for (const item of marks) this.applyMarkStep(item, siblingFailed);

    this.pushToolMessages(pending);
    if (real.length > 0 && !siblingFailed) this.successes++;
    return 'done';
  }

  private pushToolMessages(pending: PendingCall[]): void {
    for (const item of pending) {
      const outcome = item.outcome ?? { ok: false, text: errorText('internal', 'no result') };
      const message: ChatMessage = {
        role: 'tool',
        toolCallId: item.call.id,
        toolName: item.call.name,
        content: truncateText(outcome.text, this.maxToolResultChars),
      };
      if (!outcome.ok) message.isError = true;
      this.messages.push(message);
    }
  }

  private async runPool(items: PendingCall[], concurrency: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await this.runOne(item);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  }

  private async runOne(item: PendingCall): Promise<void> {
    // A replayed call with a recorded result is fed back, never run again.
    if (item.outcome?.recorded) return;
    let outcome: CallOutcome;
    try {
      outcome = await this.execute(item);
    } catch (error) {
      // A registry or guard that throws is a failed call, never a crashed loop.
      outcome = {
        ok: false,
        text: errorText('execution-failed', this.registry.redact(describeError(error))),
      };
    }
    try {
      this.record(item, outcome);
    } finally {
      // After the result is staged: the next call's dispatch commit makes it durable first.
      const release = item.release;
      item.release = undefined;
      release?.();
    }
  }

  private async execute(item: PendingCall): Promise<CallOutcome> {
    const { call } = item;
    if (this.signal.aborted) {
      return {
        ok: false,
        aborted: true,
        text: errorText('aborted', `Not run: the step was aborted before "${call.name}" started.`),
      };
    }
    if (!this.registry.has(call.name)) {
      // The registry does not know mark_step: the list the model sees comes from the specs.
      const available = this.specs.map((spec) => spec.name).join(', ');
      return {
        ok: false,
        text: errorText(
          'unknown-tool',
          `There is no tool named ${JSON.stringify(call.name)}. Available tools: ${available}.`,
        ),
      };
    }
    if (call.arguments === refusedArguments) {
      return {
        ok: false,
        text: errorText(
          'invalid-arguments',
          `Invalid arguments for "${call.name}": they are nested deeper than ${argumentBounds.maxDepth} levels or hold more than ${argumentBounds.maxNodes} values, so they were not kept. Send smaller, flatter arguments.`,
        ),
      };
    }
    // Validated once, here: the guard sees the parsed input and the tool runs exactly that.
    const checked = this.registry.validate(call.name, call.arguments);
    if (checked.status === 'error') return { ok: false, text: checked.text };
    if (this.options.guard !== undefined) {
      const denial = await this.checkGuard(item, checked.tool, checked.input);
      if (denial !== undefined) return denial;
    }
    return this.runTool(item, checked);
  }

  /** Returns an error outcome when the call may not run, `undefined` when it may. */
  private async checkGuard(
    item: PendingCall,
    tool: AnyTool,
    args: unknown,
  ): Promise<CallOutcome | undefined> {
    const guard = this.options.guard!;
    const { call, ledgerId } = item;
    const input: Parameters<ToolCallGuard['check']>[0] = { tool, args, request: this.request };
    if (this.confidence !== undefined) input.confidence = this.confidence;
    let decision: GuardDecision | typeof aborted;
    try {
      decision = await raceAbort(guard.check(input, { signal: this.signal }), this.signal);
    } catch (error) {
      // Fail closed: a guard that cannot decide does not let the call through.
      decision = this.signal.aborted
        ? aborted
        : { action: 'deny', reason: `the guard failed: ${describeError(error)}` };
    }
    if (decision === aborted) {
      return {
        ok: false,
        aborted: true,
        text: errorText('aborted', `Not run: the step was aborted while "${call.name}" was being checked.`),
      };
    }
    // A guard's reason may quote tool output or arguments: it reaches events and the model redacted.
    if (decision.action !== 'allow')
      decision = { ...decision, reason: this.registry.redact(decision.reason) };
    if (decision.action === 'allow') {
      this.emit({ type: 'guard-decided', stepId: this.stepId, callId: ledgerId, tool: call.name, decision });
      return undefined;
    }
    if (decision.action === 'deny') {
      this.emit({ type: 'guard-decided', stepId: this.stepId, callId: ledgerId, tool: call.name, decision });
      return {
        ok: false,
        text: errorText(
          'denied',
          `The tool-call guard denied this call: ${decision.reason}. Choose another way to do the step.`,
        ),
      };
    }
    let approved = false;
    const ask = this.options.onAskHuman;
    if (ask !== undefined) {
      try {
        const answer = await raceAbort(
          Promise.resolve(
            ask({
              stepId: this.stepId,
              callId: ledgerId,
              tool,
              args,
              reason: decision.reason,
              signal: this.signal,
            }),
          ),
          this.signal,
        );
        if (answer === aborted) {
          return {
            ok: false,
            aborted: true,
            text: errorText(
              'aborted',
              `Not run: the step was aborted while waiting for approval of "${call.name}".`,
            ),
          };
        }
        approved = answer === true;
      } catch {
        approved = false;
      }
    }
    this.emit({
      type: 'guard-decided',
      stepId: this.stepId,
      callId: ledgerId,
      tool: call.name,
      decision,
      approved,
    });
    if (approved) return undefined;
    return {
      ok: false,
      text: errorText(
        'denied',
        `This call needs a human's approval (${decision.reason}) and was ${ask === undefined ? 'denied: no one is available to approve it' : 'not approved'}. Choose another way to do the step.`,
      ),
    };
  }

  private async runTool(item: PendingCall, checked: ValidToolCall): Promise<CallOutcome> {
    const { call, ledgerId } = item;
    const context: ToolExecuteContext = {
      signal: this.signal,
      callId: ledgerId,
      // The registry redacts progress messages before they get here.
      onProgress: (progress) =>
        this.emit({
          type: 'tool-call-progress',
          stepId: this.stepId,
          callId: ledgerId,
          tool: call.name,
          progress,
        }),
    };
    // The registry applies it to tools without their own timeout and answers `timeout`.
    if (this.toolTimeoutMs !== undefined) context.timeoutMs = this.toolTimeoutMs;
    if (this.journal !== undefined) context.onProcess = ({ pid }) => this.processStarted(item, pid);
    if (this.journal !== undefined) {
      // Chosen and journaled before the call runs: the call's processes carry it, so a resume
      // finds them even when the run died before their pids were journaled.
      context.processTag = randomUUID();
      const dispatched = await this.dispatch(item, checked, context.processTag);
      if (dispatched !== undefined) return dispatched;
    }
    // The registry answers an abort at once; the race also covers a registry that would not.
    const outcome: ToolOutcome | typeof aborted = await raceAbort(
      this.registry.executeValidated(checked, context),
      this.signal,
    );
    if (this.signal.aborted || outcome === aborted) {
      return {
        ok: false,
        aborted: true,
        text: errorText('aborted', `The call to "${call.name}" was aborted while it ran.`),
      };
    }
    return { ok: outcome.status === 'success', text: outcome.text };
  }

  /**
   * Journals that the call is about to run (with the snapshot of what it will change) and waits
   * until that, the model's response and the ledger entry are durable. Returns an outcome only
   * when the step was aborted meanwhile (the call did not start).
   */
  private async dispatch(
    item: PendingCall,
    checked: ValidToolCall,
    processTag: string,
  ): Promise<CallOutcome | undefined> {
    const journal = this.journal!;
    if (journal.acquire !== undefined) {
      try {
        item.release = await journal.acquire({
          stepId: this.stepId,
          callId: item.ledgerId,
          tool: checked.tool,
          input: checked.input,
        });
      } catch (error) {
        // A wait given up because the step was aborted (a lock that stops waiting when its
        // holder must stop): the call never started, so it is left `pending` like any call the
        // abort cut off — not recorded as failed, which a resume would replay as its result.
        if (!this.signal.aborted) throw error;
        return {
          ok: false,
          aborted: true,
          text: errorText('aborted', `Not run: the step was aborted before "${item.call.name}" started.`),
        };
      }
    }
    let before: unknown;
    try {
      before = await journal.snapshot?.({
        stepId: this.stepId,
        callId: item.ledgerId,
        tool: checked.tool,
        input: checked.input,
      });
    } catch {
      before = undefined;
    }
    this.emit({
      type: 'tool-call-dispatched',
      stepId: this.stepId,
      callId: item.ledgerId,
      tool: item.call.name,
      ...(before !== undefined ? { before } : {}),
      processTag,
    });
    await journal.commit();
    if (!this.signal.aborted) return undefined;
    return {
      ok: false,
      aborted: true,
      text: errorText('aborted', `Not run: the step was aborted before "${item.call.name}" started.`),
    };
  }

  /** Journals a process the call started, at once: it may outlive this process if it is killed. */
  private processStarted(item: PendingCall, pid: number): void {
    const journal = this.journal!;
    let identity: unknown;
    try {
      identity = journal.identifyProcess?.(pid);
    } catch {
      identity = undefined;
    }
    this.emit({
      type: 'tool-call-process-started',
      stepId: this.stepId,
      callId: item.ledgerId,
      tool: item.call.name,
      pid,
      ...(identity !== undefined ? { identity } : {}),
    });
    void journal.commit().catch(() => undefined);
  }

  private applyMarkStep(item: PendingCall, siblingFailed: boolean): void {
    if (item.outcome?.recorded) {
      // Replayed: the plan already holds the notes this call wrote.
      if (item.outcome.ok && this.marked === undefined) {
        const notes = this.plan.readStep(this.stepId).notes;
        const tagged = parseStepNotes(notes);
        this.marked = {
          status: tagged.status === 'fail' ? 'fail' : 'success',
          notes,
          message: tagged.message,
        };
      }
      return;
    }
    this.record(item, this.markStep(item.call, siblingFailed));
  }

  private markStep(call: ToolCall, siblingFailed: boolean): CallOutcome {
    const fail = (code: string, message: string): CallOutcome => ({
      ok: false,
      text: errorText(code, message),
    });
    if (this.signal.aborted) return { ...fail('aborted', 'Not run: the step was aborted.'), aborted: true };
    if (this.marked !== undefined) {
      return fail('already-marked', 'mark_step was already called in this response; only the first counts.');
    }
    const parsed = parseToolInput(markStepInputSchema, call.arguments);
    if (!parsed.success) {
      return fail(
        'invalid-arguments',
        `Invalid arguments for "mark_step":\n${z.prettifyError(parsed.error)}\nFix the arguments and call mark_step again.`,
      );
    }
    const input = parsed.data;
    const tagged = parseStepNotes(input.notes);
    // The more pessimistic of `status` and the notes' own tag wins.
    const status: 'success' | 'fail' =
      input.status === 'fail' || tagged.status === 'fail' ? 'fail' : 'success';
    if (status === 'success' && siblingFailed) {
      return fail(
        'mark-refused',
        'mark_step with success was refused: another tool call in the same response failed (see its result). Look at the results, then call mark_step again on its own.',
      );
    }
    if (tagged.message === '') {
      return fail(
        'invalid-arguments',
        'mark_step notes need a message after the tag: say what was done, or why not.',
      );
    }
    const notes = formatStepNotes(status, tagged.message);
    // A marked step's loop ends with this response, so its answer is known now (the last text,
    // else the notes' message): written with the notes, one plan event instead of two.
    const output = this.lastText !== '' ? this.lastText : tagged.message;
    const update: MarkStepOptions = { notes };
    if (output.trim() !== '') update.output = output;
    if (input.claims !== undefined) update.claims = input.claims;
    try {
      markStepWithoutCopy(this.plan, this.stepId, update);
    } catch (error) {
      return fail(
        'execution-failed',
        `The plan refused the notes: ${this.registry.redact(describeError(error))}`,
      );
    }
    this.marked = { status, notes, message: tagged.message };
    return { ok: true, text: `Step ${this.stepId} marked ${status}: ${notes}` };
  }
}
