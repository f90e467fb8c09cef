import { ScriptedModel, textTurn, toolCallTurn } from '@closedloop/model/testing';
import { defineTool, workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, isProcessRunning } from '@closedloop/tools/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { echoTool, inProgressPlan } from './__fixtures__/step-plan';
import { executeStep } from './execute-step';
import type { ToolCallGuard } from './tool-call-guard';

/** Ignores its signal and takes 5 s (its timer is unref'd so it never holds the process). */
const stubborn = defineTool({
  name: 'stubborn',
  description: 'Works for five seconds and ignores cancellation.',
  input: z.object({}),
  execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('finished'), 5000).unref()),
});

/**
 * Every in-flight tool and request stops at the abort instead of running to its end (5–10 s here).
 * The product's budget is 100 ms on a quiet machine; tests assert behaviour, not speed, so they
 * allow a loaded CI machine's late timers and slow process exits.
 */
const ABORT_BUDGET_MS = 1_000;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Aborts once `ready` resolves; returns the step's result and how long it took to come back. */
async function abortWhen<T>(
  ready: Promise<unknown>,
  controller: AbortController,
  running: Promise<T>,
): Promise<{ result: T; elapsedMs: number }> {
  await ready;
  const abortedAt = performance.now();
  controller.abort();
  const result = await running;
  return { result, elapsedMs: performance.now() - abortedAt };
}

describe('executeStep: user interruption', () => {
  it('aborting mid-tool returns within 100 ms, records the call as aborted, and starts nothing new', async () => {
    const { plan, stepId, events } = inProgressPlan();
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const watched = defineTool({
      name: 'watched',
      description: 'Signals that it started, then ignores cancellation for 5 s.',
      input: z.object({}),
      execute: (input, context) => {
        started();
        return stubborn.execute(input, context);
      },
    });
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'echo', arguments: { text: 'before' } },
            { id: 'c2', name: 'watched', arguments: {} },
            { id: 'c3', name: 'echo', arguments: { text: 'after' } },
          ],
        },
        textTurn('never asked'),
      ],
    });
    const controller = new AbortController();
    const running = executeStep(plan, stepId, {
      model,
      tools: [echoTool, watched],
      signal: controller.signal,
    });
    const { result, elapsedMs } = await abortWhen(toolStarted, controller, running);

    expect(elapsedMs).toBeLessThan(ABORT_BUDGET_MS);
    expect(result.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(1); // no new request after the abort
    const ledger = plan.step(stepId).ledger;
    expect(ledger.map((call) => `${call.callId}:${call.status}`)).toEqual([
      'c1:success',
      'c2:error',
      'c3:error',
    ]);
    expect(ledger[1]!.error).toContain('aborted');
    expect(ledger[2]!.error).toContain('Not run');
    expect(result.pendingCalls).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'step-finalized', pendingCallIds: [] });
    expect(plan.step(stepId).status).toBe('in_progress');
  });

  it('aborting a tool that ignores the signal while parallel siblings run stops them all at once', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'stubborn', arguments: {} },
            { name: 'stubborn', arguments: {} },
          ],
        },
      ],
    });
    const controller = new AbortController();
    const running = executeStep(plan, stepId, {
      model,
      tools: [stubborn],
      signal: controller.signal,
      parallelTools: 2,
    });
    const { result, elapsedMs } = await abortWhen(wait(30), controller, running);
    expect(elapsedMs).toBeLessThan(ABORT_BUDGET_MS);
    expect(result.stopReason).toBe('aborted');
    expect(plan.step(stepId).ledger.map((call) => call.status)).toEqual(['error', 'error']);
  });

  it('aborting during a slow model request returns at once without touching the ledger', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({ latencyMs: 5000, turns: [toolCallTurn('echo', { text: 'x' })] });
    const controller = new AbortController();
    const running = executeStep(plan, stepId, { model, tools: [echoTool], signal: controller.signal });
    const { result, elapsedMs } = await abortWhen(wait(20), controller, running);
    expect(elapsedMs).toBeLessThan(ABORT_BUDGET_MS);
    expect(result.stopReason).toBe('aborted');
    expect(result.error).toBeUndefined();
    expect(result.iterations).toBe(1);
    expect(plan.step(stepId).ledger).toEqual([]);
  });

  it('stops promptly even if the model ignores the signal', async () => {
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [() => new Promise((resolve) => setTimeout(() => resolve(textTurn('late')), 5000).unref())],
    });
    const controller = new AbortController();
    const running = executeStep(plan, stepId, { model, tools: [], signal: controller.signal });
    const { result, elapsedMs } = await abortWhen(wait(20), controller, running);
    expect(elapsedMs).toBeLessThan(ABORT_BUDGET_MS);
    expect(result.stopReason).toBe('aborted');
  });

  it('aborting while the guard decides records the call as not run', async () => {
    const { plan, stepId } = inProgressPlan();
    const controller = new AbortController();
    const guard: ToolCallGuard = {
      check: () => {
        controller.abort();
        return new Promise(() => {});
      },
    };
    const model = new ScriptedModel({ turns: [toolCallTurn('echo', { text: 'x' })] });
    const result = await executeStep(plan, stepId, {
      model,
      tools: [echoTool],
      guard,
      signal: controller.signal,
    });
    expect(result.stopReason).toBe('aborted');
    expect(plan.step(stepId).ledger[0]).toMatchObject({ status: 'error' });
    expect(plan.step(stepId).ledger[0]!.error).toContain('aborted');
  });

  it('an already aborted signal runs nothing but still finalises the step', async () => {
    const { plan, stepId, events } = inProgressPlan();
    const model = new ScriptedModel({ turns: [textTurn('never')] });
    const result = await executeStep(plan, stepId, { model, tools: [], signal: AbortSignal.abort() });
    expect(result).toMatchObject({ stopReason: 'aborted', iterations: 0, answer: '', pendingCalls: [] });
    expect(model.requests).toHaveLength(0);
    expect(events.map((event) => event.type)).toEqual(['step-finalized']);
  });
});

describe('executeStep: interrupting a real command', () => {
  it('kills the running process within the budget and records exactly what ran', async () => {
    await using ws = await createTempWorkspace({
      files: {
        'long.cjs':
          'require("fs").writeFileSync("pid.txt", String(process.pid)); setTimeout(() => require("fs").writeFileSync("finished.txt", "x"), 10000);\n',
      },
    });
    const { plan, stepId } = inProgressPlan();
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'write_file', arguments: { path: 'before.txt', content: 'ran' } },
            { id: 'c2', name: 'run_command', arguments: { argv: ['node', 'long.cjs'] } },
            { id: 'c3', name: 'write_file', arguments: { path: 'after.txt', content: 'never' } },
          ],
        },
        textTurn('never asked'),
      ],
    });
    const controller = new AbortController();
    const running = executeStep(plan, stepId, {
      model,
      // Unsandboxed: the pid the script records must be a host pid (the sandbox has its own namespace).
      tools: workspaceTools({ root: ws.root, sandbox: 'off' }),
      signal: controller.signal,
    });
    const started = (async () => {
      // The file exists (empty) a moment before the pid is in it.
      while (!((await ws.exists('pid.txt')) && (await ws.read('pid.txt')) !== '')) await wait(10);
    })();
    const { result, elapsedMs } = await abortWhen(started, controller, running);
    expect(elapsedMs).toBeLessThan(ABORT_BUDGET_MS);
    expect(result.stopReason).toBe('aborted');
    expect(plan.step(stepId).ledger.map((call) => `${call.callId}:${call.status}`)).toEqual([
      'c1:success',
      'c2:error',
      'c3:error',
    ]);
    expect(await ws.exists('before.txt')).toBe(true);
    expect(await ws.exists('after.txt')).toBe(false);
    const pid = Number(await ws.read('pid.txt'));
    // Killed: gone, or dead and not yet reaped (a zombie still answers kill(pid, 0)); on a loaded
    // machine the exit can take more than a moment to show.
    const deadline = Date.now() + 5_000;
    while (isProcessRunning(pid) && Date.now() < deadline) await wait(20);
    expect(isProcessRunning(pid)).toBe(false);
    expect(await ws.exists('finished.txt')).toBe(false);
  });
});
