import { createRedactor, type Redactor } from '@closedloop/model';
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TimeInput,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { RunEvent, RunEventOf } from './run-events';

/** Options of {@link createRunTracer}. */
export interface RunTracerOptions {
  /** Where spans go; defaults to the globally registered provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /**
   * Also record content on spans: the task (`gen_ai.input.messages` of the run), the answer
   * (`gen_ai.output.messages`), tool arguments and results (`gen_ai.tool.call.arguments` /
   * `.result`) and finding messages — each through the redactor first. Off by default: spans then
   * carry names, ids, models, token counts, statuses and error codes only.
   */
  recordContent?: boolean;
  /**
   * Applied to every text that goes on a span (content and error messages). Default
   * `createRedactor()` from `@closedloop/model`, the product's one redactor (secret-named
   * environment variables, registered API keys, key shapes).
   */
  redactor?: Redactor;
  /** `gen_ai.workflow.name` of the run span (default `closedloop`). */
  workflowName?: string;
}

/** An event listener that turns a run's events into OpenTelemetry spans. Pass it as `onEvent`. */
export type RunTracer = (event: RunEvent) => void;

/** The instrumentation scope of every span. */
export const tracerName = '@closedloop/cortex';

/** Spans of one run still open, by what they belong to. */
interface OpenRun {
  span: Span;
  context: Context;
  /** The initial plan drafting or a replan, while it runs (planner and replanner calls nest in it). */
  planning?: { span: Span; context: Context };
  steps: Map<string, { span: Span; context: Context }>;
  /** Tool calls by `stepId` + call id. */
  tools: Map<string, { span: Span; stepId: string }>;
}

/** OpenTelemetry GenAI finish reasons (`tool_calls`, `content_filter`) from closedloop's. */
function finishReasonAttribute(reason: string): string {
  return reason.replaceAll('-', '_');
}

function toolKey(stepId: string, callId: string): string {
  return `${stepId}\u0000${callId}`;
}

function fail(span: Span, errorType: string, message?: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus(
    message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message },
  );
}

/**
 * Creates an event listener that turns cortex's run events into OpenTelemetry spans following the
 * GenAI semantic conventions:
 *
 * ```
 * invoke_workflow closedloop        the run (INTERNAL), a child of the span active when it started
 * ├─ plan                           drafting the plan, and each replan (INTERNAL)
 * │  └─ chat gpt-4.1                planner / replanner model calls (CLIENT)
 * ├─ invoke_agent step              each step attempt (INTERNAL; `closedloop.step.id`)
 * │  ├─ chat gpt-4.1                the step's model calls, verifier calls about it
 * │  └─ execute_tool write_file     each tool call (INTERNAL)
 * └─ chat gpt-4.1                   goal verification and answer aggregation calls
 * ```
 *
 * Model-call spans carry `gen_ai.operation.name`, `gen_ai.provider.name` (and the older
 * `gen_ai.system`), `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.response.id`,
 * `gen_ai.usage.input_tokens` / `output_tokens` / `cache_read.input_tokens` and
 * `gen_ai.response.finish_reasons`; a failed call has `error.type` (the `ModelError` code). Spans
 * are built from the events alone (times from each event's `at`), so one listener serves every run
 * of a cortex, a replayed event log gives the same trace, and nothing is loaded or paid for unless
 * the application installs `@opentelemetry/api` and imports `@closedloop/cortex/telemetry`.
 *
 * @example
 * ```ts
 * import { createCortex } from '@closedloop/cortex';
 * import { createRunTracer } from '@closedloop/cortex/telemetry';
 *
 * const cortex = createCortex({ model, tools, onEvent: createRunTracer() });
 * ```
 */
export function createRunTracer(options: RunTracerOptions = {}): RunTracer {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(tracerName);
  const redactor = options.redactor ?? createRedactor();
  const redact = (text: string): string => redactor.redact(text);
  const recordContent = options.recordContent === true;
  const workflowName = options.workflowName ?? 'closedloop';
  const runs = new Map<string, OpenRun>();

  const start = (
    name: string,
    kind: SpanKind,
    startTime: TimeInput,
    attributes: Attributes,
    parent: Context,
  ): { span: Span; context: Context } => {
    const span = tracer.startSpan(name, { kind, startTime, attributes }, parent);
    return { span, context: trace.setSpan(parent, span) };
  };

  const content = (span: Span, key: string, value: unknown): void => {
    if (!recordContent || !span.isRecording()) return;
    span.setAttribute(key, redact(typeof value === 'string' ? value : JSON.stringify(value ?? null)));
  };

  /** The run's spans; a run first seen mid-way (a listener attached late) gets its run span then. */
  const openRun = (runId: string, at: number, attributes: Attributes = {}): OpenRun => {
    const existing = runs.get(runId);
    if (existing) return existing;
    const { span, context: runContext } = start(
      `invoke_workflow ${workflowName}`,
      SpanKind.INTERNAL,
      at,
      {
        'gen_ai.operation.name': 'invoke_workflow',
        'gen_ai.workflow.name': workflowName,
        'gen_ai.conversation.id': runId,
        'closedloop.run.id': runId,
        ...attributes,
      },
      context.active(),
    );
    const run: OpenRun = { span, context: runContext, steps: new Map(), tools: new Map() };
    runs.set(runId, run);
    return run;
  };

  const startPlanning = (run: OpenRun, at: number, attributes: Attributes): void => {
    run.planning?.span.end(at);
    run.planning = start(
      'plan',
      SpanKind.INTERNAL,
      at,
      { 'gen_ai.operation.name': 'plan', ...attributes },
      run.context,
    );
  };

  const endTools = (run: OpenRun, at: number, errorType: string, stepId?: string): void => {
    for (const [key, tool] of run.tools) {
      if (stepId !== undefined && tool.stepId !== stepId) continue;
      fail(tool.span, errorType);
      tool.span.end(at);
      run.tools.delete(key);
    }
  };

  /** The context a model call nests in: its step, else the planning span for planner/replanner calls, else the run. */
  const modelCallParent = (run: OpenRun, purpose: string, stepId: string | undefined): Context => {
    const step = stepId !== undefined ? run.steps.get(stepId) : undefined;
    if (step) return step.context;
    if ((purpose === 'planner' || purpose === 'replanner') && run.planning) return run.planning.context;
    return run.context;
  };

  const modelCall = (
    run: OpenRun,
    event: RunEventOf<'usage-recorded'> | RunEventOf<'model-call-failed'>,
  ): Span => {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'closedloop.model_call.purpose': event.purpose,
    };
    if (event.provider !== undefined) {
      attributes['gen_ai.provider.name'] = event.provider;
      attributes['gen_ai.system'] = event.provider;
    }
    if (event.modelId !== undefined) attributes['gen_ai.request.model'] = event.modelId;
    if (event.stepId !== undefined) attributes['closedloop.step.id'] = event.stepId;
    const startTime = event.durationMs !== undefined ? event.at - event.durationMs : event.at;
    const { span } = start(
      event.modelId !== undefined ? `chat ${event.modelId}` : 'chat',
      SpanKind.CLIENT,
      startTime,
      attributes,
      modelCallParent(run, event.purpose, event.stepId),
    );
    return span;
  };

  const stepEvent = (
    run: OpenRun,
    stepId: string | undefined,
    name: string,
    attributes: Attributes,
  ): void => {
    const target = (stepId !== undefined ? run.steps.get(stepId)?.span : undefined) ?? run.span;
    target.addEvent(name, attributes);
  };

  const handle = (event: RunEvent): void => {
    if (event.type === 'run-started') {
      const run = openRun(event.runId, event.at, { 'closedloop.run.resumed': event.resumed });
      content(run.span, 'gen_ai.input.messages', [
        { role: 'user', parts: [{ type: 'text', content: event.request }] },
      ]);
      if (!event.resumed) startPlanning(run, event.at, { 'closedloop.plan.phase': 'draft' });
      return;
    }
    const run = openRun(event.runId, event.at);
    switch (event.type) {
      case 'plan-drafted': {
        const planning = run.planning;
        if (!planning) break;
        planning.span.setAttributes({
          'closedloop.plan.id': event.planId,
          'closedloop.plan.source': event.source,
          'closedloop.plan.attempts': event.attempts,
        });
        planning.span.end(event.at);
        run.planning = undefined;
        break;
      }
      case 'replan-requested':
        startPlanning(run, event.at, {
          'closedloop.plan.phase': 'replan',
          'closedloop.replan.reason': event.reason,
          'closedloop.replan.batch': event.batch,
          'closedloop.replan.failed_steps': event.failed,
        });
        break;
      case 'replan-finished': {
        const planning = run.planning;
        if (!planning) break;
        planning.span.setAttributes({
          'closedloop.replan.action': event.action,
          'closedloop.replan.added_steps': event.added,
          'closedloop.replan.removed_steps': event.removed,
        });
        if (event.action === 'error')
          fail(planning.span, 'replan_error', event.message && redact(event.message));
        planning.span.end(event.at);
        run.planning = undefined;
        break;
      }
      case 'step-started': {
        run.steps.get(event.stepId)?.span.end(event.at);
        run.steps.set(
          event.stepId,
          start(
            'invoke_agent step',
            SpanKind.INTERNAL,
            event.at,
            {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.name': 'step',
              'gen_ai.agent.id': event.stepId,
              'closedloop.step.id': event.stepId,
              'closedloop.step.attempt': event.attempt,
            },
            run.context,
          ),
        );
        break;
      }
      case 'step-finished': {
        const step = run.steps.get(event.stepId);
        endTools(run, event.at, event.status === 'interrupted' ? 'interrupted' : 'no_result', event.stepId);
        if (!step) break;
        step.span.setAttribute('closedloop.step.status', event.status);
        step.span.setAttribute('closedloop.step.unverified', event.unverified);
        if (event.verdict !== undefined) step.span.setAttribute('closedloop.step.verdict', event.verdict);
        if (event.confidence !== undefined)
          step.span.setAttribute('closedloop.step.confidence', event.confidence);
        if (event.status === 'failed' || event.status === 'blocked') {
          fail(step.span, event.status, event.error === undefined ? undefined : redact(event.error));
        }
        step.span.end(event.at);
        run.steps.delete(event.stepId);
        break;
      }
      case 'tool-call-started': {
        const parent = run.steps.get(event.stepId)?.context ?? run.context;
        const { span } = start(
          `execute_tool ${event.tool}`,
          SpanKind.INTERNAL,
          event.at,
          {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': event.tool,
            'gen_ai.tool.call.id': event.callId,
            'gen_ai.tool.type': 'function',
            'closedloop.step.id': event.stepId,
          },
          parent,
        );
        content(span, 'gen_ai.tool.call.arguments', event.args);
        run.tools.set(toolKey(event.stepId, event.callId), { span, stepId: event.stepId });
        break;
      }
      case 'tool-call-finished': {
        const key = toolKey(event.stepId, event.callId);
        const tool = run.tools.get(key);
        if (!tool) break;
        if (event.result !== undefined) content(tool.span, 'gen_ai.tool.call.result', event.result);
        if (event.status === 'error') {
          fail(tool.span, 'tool_error', event.error === undefined ? undefined : redact(event.error));
        }
        tool.span.end(event.at);
        run.tools.delete(key);
        break;
      }
      case 'usage-recorded': {
        const span = modelCall(run, event);
        if (span.isRecording()) {
          const { usage } = event;
          span.setAttributes({
            'gen_ai.usage.input_tokens': usage.inputTokens,
            'gen_ai.usage.output_tokens': usage.outputTokens,
            'closedloop.cost_usd': event.costUsd,
          });
          if (usage.cachedInputTokens !== undefined) {
            span.setAttribute('gen_ai.usage.cache_read.input_tokens', usage.cachedInputTokens);
          }
          if (usage.reasoningTokens !== undefined) {
            span.setAttribute('closedloop.usage.reasoning_tokens', usage.reasoningTokens);
          }
          if (event.responseModelId !== undefined)
            span.setAttribute('gen_ai.response.model', event.responseModelId);
          if (event.responseId !== undefined) span.setAttribute('gen_ai.response.id', event.responseId);
          if (event.finishReason !== undefined) {
            span.setAttribute('gen_ai.response.finish_reasons', [finishReasonAttribute(event.finishReason)]);
          }
        }
        span.end(event.at);
        break;
      }
      case 'model-call-failed': {
        const span = modelCall(run, event);
        fail(span, event.error.code, redact(event.error.message));
        span.end(event.at);
        break;
      }
      case 'guard-decided':
        stepEvent(run, event.stepId, 'closedloop.guard_decided', {
          'gen_ai.tool.name': event.tool,
          'gen_ai.tool.call.id': event.callId,
          'closedloop.guard.action': event.decision.action,
          ...(event.approved !== undefined ? { 'closedloop.guard.approved': event.approved } : {}),
        });
        break;
      case 'approval-requested':
        stepEvent(run, event.stepId, 'closedloop.approval_requested', {
          'closedloop.approval.id': event.approvalId,
          'closedloop.approval.kind': event.kind,
          ...(event.tool !== undefined ? { 'gen_ai.tool.name': event.tool } : {}),
        });
        break;
      case 'approval-resolved':
        stepEvent(run, event.stepId, 'closedloop.approval_resolved', {
          'closedloop.approval.id': event.approvalId,
          'closedloop.approval.approved': event.approved,
        });
        break;
      case 'finding-reported':
        stepEvent(run, event.scope === 'step' ? event.stepId : undefined, 'closedloop.finding', {
          'closedloop.finding.check': event.finding.check,
          'closedloop.finding.priority': event.finding.priority,
          'closedloop.finding.status': event.finding.status,
          ...(recordContent ? { 'closedloop.finding.message': redact(event.finding.message) } : {}),
        });
        break;
      case 'goal-verified':
        run.span.addEvent('closedloop.goal_verified', {
          'closedloop.goal.iteration': event.iteration,
          'closedloop.goal.assessment': event.assessment,
        });
        break;
      case 'run-finished': {
        endTools(run, event.at, 'interrupted');
        for (const step of run.steps.values()) {
          step.span.setAttribute('closedloop.step.status', 'interrupted');
          step.span.end(event.at);
        }
        if (run.planning) {
          if (event.error) fail(run.planning.span, event.error.code ?? 'error');
          run.planning.span.end(event.at);
        }
        run.span.setAttributes({
          'closedloop.run.stop_reason': event.stopReason,
          'closedloop.run.answer_source': event.answerSource,
        });
        content(run.span, 'gen_ai.output.messages', [
          {
            role: 'assistant',
            parts: [{ type: 'text', content: event.answer }],
            finish_reason: event.stopReason,
          },
        ]);
        if (event.error) fail(run.span, event.error.code ?? 'error', redact(event.error.message));
        else if (event.stopReason !== 'completed' && event.stopReason !== 'completed-with-warnings') {
          fail(run.span, event.stopReason, redact(event.reason));
        }
        run.span.end(event.at);
        runs.delete(event.runId);
        break;
      }
      default:
        break;
    }
  };

  return (event) => {
    try {
      handle(event);
    } catch {
      // Telemetry never stops a run: a span that cannot be recorded is dropped.
    }
  };
}
