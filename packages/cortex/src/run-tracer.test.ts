import { createRedactor, ModelError } from '@closedloop/model';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { failStep, type ScenarioOptions, scenarioModel, writeStep } from './__fixtures__/scenario-model';
import { createCortex } from './create-cortex';
import type { PlannerOutput } from './draft-plan';
import { createRunTracer, type RunTracerOptions } from './run-tracer';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
  context.disable();
});

const onePlan = (ids: string[]): PlannerOutput => ({
  title: 'plan',
  successCriteria: [],
  protocols: [],
  steps: ids.map((id) => ({
    id,
    description: `Write ${id}.txt`,
    dependsOn: [],
    requiredTools: [],
    successCriteria: [],
    protocols: [],
  })),
});

/** Runs a scripted cortex with the tracer on an in-memory exporter; returns the finished spans. */
async function tracedRun(scenario: ScenarioOptions, task: string, tracing: RunTracerOptions = {}) {
  const ws = await createTempWorkspace({ files: { 'README.md': '# test\n' }, git: true });
  workspaces.push(ws);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const cortex = createCortex({
    model: scenarioModel(scenario),
    tools: workspaceTools({ root: ws.root }),
    workspace: ws.root,
    planning: 'always',
    onEvent: createRunTracer({ tracerProvider, ...tracing }),
  });
  const result = await cortex.run(task);
  return { result, spans: exporter.getFinishedSpans() };
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe('createRunTracer', () => {
  it('nests run → plan/step → model call / tool call spans with GenAI attributes', async () => {
    const { result, spans } = await tracedRun(
      { plans: [onePlan(['a'])], steps: { a: writeStep('a.txt', 'alpha\n') } },
      'Write a.txt',
    );
    expect(result.stopReason).toBe('completed');
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);

    const [run] = named(spans, 'invoke_workflow closedloop');
    expect(run).toBeDefined();
    expect(parentOf(run!)).toBeUndefined();
    expect(run!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'closedloop',
      'closedloop.run.id': result.runId,
      'closedloop.run.stop_reason': 'completed',
    });
    expect(run!.status.code).not.toBe(SpanStatusCode.ERROR);

    const [plan] = named(spans, 'plan');
    expect(parentOf(plan!)).toBe(idOf(run!));
    expect(plan!.attributes).toMatchObject({
      'gen_ai.operation.name': 'plan',
      'closedloop.plan.source': 'planner',
    });

    const chats = named(spans, 'chat scripted-model');
    const plannerCall = chats.find((span) => span.attributes['closedloop.model_call.purpose'] === 'planner');
    expect(parentOf(plannerCall!)).toBe(idOf(plan!));

    const [step] = named(spans, 'invoke_agent step');
    expect(parentOf(step!)).toBe(idOf(run!));
    expect(step!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'closedloop.step.id': 'a',
      'closedloop.step.status': 'completed',
      'closedloop.step.unverified': false,
    });

    const stepCalls = chats.filter((span) => span.attributes['closedloop.model_call.purpose'] === 'step');
    expect(stepCalls).toHaveLength(2);
    for (const call of stepCalls) {
      expect(parentOf(call)).toBe(idOf(step!));
      expect(call.kind).toBe(2); // SpanKind.CLIENT
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.system': 'scripted',
        'gen_ai.request.model': 'scripted-model',
        'gen_ai.response.model': 'scripted-model',
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'closedloop.step.id': 'a',
      });
      expect(call.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
      expect(call.attributes['gen_ai.usage.output_tokens']).toEqual(expect.any(Number));
      expect(call.attributes['gen_ai.response.id']).toEqual(expect.any(String));
    }

    const [write] = named(spans, 'execute_tool write_file');
    expect(parentOf(write!)).toBe(idOf(step!));
    expect(write!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'write_file',
      'gen_ai.tool.type': 'function',
    });
    expect(write!.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
    expect(write!.status.code).not.toBe(SpanStatusCode.ERROR);

    // Every span ends inside its parent's time range.
    const byId = new Map(spans.map((span) => [idOf(span), span]));
    for (const span of spans) {
      const parent = parentOf(span) === undefined ? undefined : byId.get(parentOf(span)!);
      if (!parent) continue;
      expect(span.endTime[0] * 1e9 + span.endTime[1]).toBeLessThanOrEqual(
        parent.endTime[0] * 1e9 + parent.endTime[1],
      );
    }
  });

  it('keeps content off spans by default, and redacts it when recordContent is on', async () => {
    const secret = 'sk-proj-abcdefghijklmnop1234';
    const scenario = (): ScenarioOptions => ({
      plans: [onePlan(['a'])],
      steps: { a: writeStep('a.txt', `key=${secret}\n`) },
    });
    const task = `Write a.txt with the key ${secret} and the word pelican`;

    const quiet = await tracedRun(scenario(), task);
    const quietText = JSON.stringify(quiet.spans.map((span) => [span.attributes, span.events, span.status]));
    expect(quietText).not.toContain('pelican');
    expect(quietText).not.toContain(secret);
    expect(quietText).not.toContain('gen_ai.tool.call.arguments');

    const loud = await tracedRun(scenario(), task, { recordContent: true });
    const loudText = JSON.stringify(loud.spans.map((span) => [span.attributes, span.events, span.status]));
    expect(loudText).toContain('pelican');
    expect(loudText).not.toContain(secret);
    const [run] = named(loud.spans, 'invoke_workflow closedloop');
    expect(String(run!.attributes['gen_ai.input.messages'])).toContain('[REDACTED');
    const [write] = named(loud.spans, 'execute_tool write_file');
    expect(String(write!.attributes['gen_ai.tool.call.arguments'])).toContain('a.txt');
  });

  it('marks failed steps, replans, failed model calls and a run that did not complete as errors', async () => {
    const { result, spans } = await tracedRun(
      {
        plans: [onePlan(['a'])],
        steps: { a: failStep('cannot do it') },
        replans: [{ action: 'give_up', reason: 'no way' }],
        answer: new ModelError({
          code: 'auth',
          message: 'scripted: bad key sk-ant-api03-abcdefghijk',
          provider: 'scripted',
        }),
      },
      'Write a.txt',
    );
    expect(result.stopReason).not.toMatch(/^completed/);

    const [run] = named(spans, 'invoke_workflow closedloop');
    expect(run!.status.code).toBe(SpanStatusCode.ERROR);
    expect(run!.attributes['error.type']).toBe(result.stopReason);

    const steps = named(spans, 'invoke_agent step');
    expect(steps.length).toBeGreaterThan(0);
    expect(steps[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(steps[0]!.attributes['error.type']).toBe('failed');

    const replan = named(spans, 'plan').find((span) => span.attributes['closedloop.plan.phase'] === 'replan');
    expect(replan?.attributes).toMatchObject({
      'closedloop.replan.action': 'give-up',
      'closedloop.replan.failed_steps': ['a'],
    });
    expect(parentOf(replan!)).toBe(idOf(run!));
    const replannerCall = named(spans, 'chat scripted-model').find(
      (span) => span.attributes['closedloop.model_call.purpose'] === 'replanner',
    );
    expect(parentOf(replannerCall!)).toBe(idOf(replan!));

    const failedCall = named(spans, 'chat scripted-model').find(
      (span) => span.attributes['closedloop.model_call.purpose'] === 'aggregate',
    );
    expect(failedCall?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failedCall?.attributes['error.type']).toBe('auth');
    expect(failedCall?.status.message).toContain('[REDACTED');
    expect(failedCall?.status.message).not.toContain('sk-ant-api03');
  });

  it('redacts content itself, whatever reaches it (events from any source)', () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const secret = 'my-local-token-0123456789';
    const onEvent = createRunTracer({
      tracerProvider,
      recordContent: true,
      redactor: createRedactor({ env: {}, secrets: [secret] }),
    });
    const base = { runId: 'r1', planId: 'p1', seq: 1 };
    onEvent({ type: 'run-started', runId: 'r1', at: 1_000, request: `use ${secret}`, resumed: true });
    onEvent({ type: 'step-started', runId: 'r1', at: 1_001, stepId: 's', attempt: 1 });
    onEvent({
      ...base,
      type: 'tool-call-started',
      at: 1_002,
      stepId: 's',
      callId: 'c1',
      generatedId: false,
      tool: 'run_command',
      args: { argv: ['curl', '-H', `token: ${secret}`] },
    });
    onEvent({
      ...base,
      type: 'tool-call-finished',
      at: 1_003,
      stepId: 's',
      callId: 'c1',
      status: 'error',
      error: `denied for ${secret}`,
    });
    onEvent({
      type: 'run-finished',
      runId: 'r1',
      at: 1_004,
      stopReason: 'failed',
      reason: `gave up on ${secret}`,
      answer: `the token is ${secret}`,
      answerSource: 'model',
    });
    const spans = exporter.getFinishedSpans();
    const text = JSON.stringify(spans.map((span) => [span.attributes, span.status, span.events]));
    expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED]');
    const [tool] = named(spans, 'execute_tool run_command');
    expect(tool!.attributes['error.type']).toBe('tool_error');
    expect(parentOf(tool!)).toBe(idOf(named(spans, 'invoke_agent step')[0]!));
    // The step never finished: the run's end closes it as interrupted.
    expect(named(spans, 'invoke_agent step')[0]!.attributes['closedloop.step.status']).toBe('interrupted');
  });

  it('parents the run span on the span active when the run started', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const ws = await createTempWorkspace({ files: { 'README.md': '# test\n' }, git: true });
    workspaces.push(ws);
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const cortex = createCortex({
      model: scenarioModel({ plans: [onePlan(['a'])], steps: { a: writeStep('a.txt', 'alpha\n') } }),
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
      onEvent: createRunTracer({ tracerProvider }),
    });
    const outer = tracerProvider.getTracer('app');
    await outer.startActiveSpan('handle request', async (span) => {
      await cortex.run('Write a.txt');
      span.end();
    });
    const spans = exporter.getFinishedSpans();
    const [request] = named(spans, 'handle request');
    const [run] = named(spans, 'invoke_workflow closedloop');
    expect(parentOf(run!)).toBe(idOf(request!));
    expect(run!.spanContext().traceId).toBe(request!.spanContext().traceId);
  });

  it('records nothing and costs nothing measurable without an SDK (the global no-op provider)', async () => {
    const tracer = createRunTracer();
    expect(trace.getTracerProvider().getTracer('x').startSpan('y').isRecording()).toBe(false);
    expect(() =>
      tracer({ type: 'run-started', runId: 'r', at: Date.now(), request: 'x', resumed: false }),
    ).not.toThrow();
  });
});
