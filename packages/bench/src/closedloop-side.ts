import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCortex, createJsonlRunStore, createMemoryRunStore, type RunStore } from '@closedloop/cortex';
import { executeStep } from '@closedloop/executor';
import { ScriptedModel, type ScriptedTurn } from '@closedloop/model/testing';
import { Plan } from '@closedloop/plan';
import { defineTool } from '@closedloop/tools';
import { z } from 'zod';
import { type DagStep, sleep, type TimedRun } from './workload';

/** Where closedloop journals a run: its in-memory store, or the JSONL journal with fsynced group commits. */
export type ClosedloopJournal = 'memory' | 'jsonl-fsync';

/** Options of {@link runClosedloopDag}. */
export interface ClosedloopDagOptions {
  steps: readonly DagStep[];
  /** Steps running at once (cortex `concurrency`). */
  concurrency: number;
  journal: ClosedloopJournal;
}

const stepHeading = /# Your step: (\S+)/;

/**
 * Runs a DAG through `createCortex` the way a user would: a scripted, zero-latency model plans it
 * (its first call, the planner's, gets the DAG; later calls outside a step, the aggregator's,
 * `done`), each step calls the `wait` tool once (sleeping the step's duration, none for a no-op
 * step) and then `mark_step`, the verifier judges every step on its evidence (the `wait` call its
 * description names — real verification, no `acceptUnverified`), and the aggregator answers. The
 * figure is the whole `cortex.run`, request to answer.
 */
export async function runClosedloopDag(options: ClosedloopDagOptions): Promise<TimedRun> {
  const { steps, concurrency, journal } = options;
  const durations = new Map(steps.map((step) => [step.id, step.ms]));
  const starts = new Map<string, number>();
  const ends = new Map<string, number>();
  let t0 = 0;
  const wait = defineTool({
    name: 'wait',
    description: 'Waits the given number of milliseconds (0: returns at once).',
    input: z.object({ step: z.string(), ms: z.number().int().min(0) }),
    idempotent: true,
    execute: async ({ step, ms }) => {
      starts.set(step, performance.now() - t0);
      if (ms > 0) await sleep(ms);
      ends.set(step, performance.now() - t0);
      return `waited ${ms} ms`;
    },
  });
  const planned = steps.map((step) => ({
    id: step.id,
    description: `Wait for step ${step.id}.`,
    dependsOn: [...step.dependsOn],
    requiredTools: [],
    successCriteria: [],
    protocols: [],
  }));
  let nonStepCalls = 0;
  const model = new ScriptedModel({
    recordRequests: false,
    matchers: [
      {
        match: () => true,
        respond: (request) => {
          const user = request.messages[1];
          const id = user?.role === 'user' ? stepHeading.exec(String(user.content))?.[1] : undefined;
          // Not a step's request: the planner's (the run's first call), then the aggregator's.
          if (id === undefined)
            return nonStepCalls++ === 0
              ? { text: JSON.stringify({ title: 'benchmark', steps: planned }) }
              : { text: 'done' };
          if (!durations.has(id)) throw new Error(`benchmark model: unknown step ${id}`);
          const turn = request.messages.filter((message) => message.role === 'assistant').length;
          return turn === 0
            ? { toolCalls: [{ name: 'wait', arguments: { step: id, ms: durations.get(id) } }] }
            : {
                toolCalls: [
                  { name: 'mark_step', arguments: { status: 'success', notes: '[SUCCESS]: waited' } },
                ],
              };
        },
      },
    ],
  });
  let dir: string | undefined;
  let store: RunStore;
  let close = async () => {};
  if (journal === 'jsonl-fsync') {
    dir = mkdtempSync(join(tmpdir(), 'closedloop-bench-'));
    const jsonl = createJsonlRunStore({ dir, durability: 'fsync' });
    store = jsonl;
    close = () => jsonl.close();
  } else store = createMemoryRunStore();
  const cortex = createCortex({
    model,
    tools: [wait],
    planning: 'always',
    concurrency,
    store,
    planner: { maxSteps: steps.length },
    replanWindowMs: 0,
  });
  try {
    t0 = performance.now();
    const result = await cortex.run('Run the benchmark plan.');
    const makespan = performance.now() - t0;
    if (result.stopReason !== 'completed')
      throw new Error(`closedloop run ended ${result.stopReason}: ${result.reason.slice(0, 300)}`);
    // Every step ran once and was verified on its evidence: nothing was retried, replanned or waved through.
    const odd = result.report.steps.filter(
      (step) => step.status !== 'completed' || step.verdict !== 'success' || step.runs !== 1,
    );
    if (result.report.steps.length !== steps.length || odd.length > 0)
      throw new Error(
        `closedloop run: ${result.report.steps.length} steps reported, not verified once: ${odd
          .slice(0, 3)
          .map((step) => `${step.id} ${step.status} ${step.verdict} ×${step.runs}`)
          .join(', ')}`,
      );
    return { makespan, starts, ends };
  } finally {
    await close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  input: z.object({ i: z.number().int() }),
  execute: () => 'ok',
});

/**
 * The executor's tool loop (`executeStep`), as packages/executor/bench/loop.bench.ts runs it: one
 * step of `iterations` turns of a zero-latency `ScriptedModel` calling a no-op tool, then a final
 * text turn. Returns µs per iteration (wall time of the step ÷ iterations).
 */
export async function closedloopToolLoop(iterations: number): Promise<number> {
  const turns: ScriptedTurn[] = Array.from({ length: iterations }, (_, i) => ({
    toolCalls: [{ name: 'noop', arguments: { i } }],
    usage: { inputTokens: 1, outputTokens: 1 },
  }));
  turns.push({ text: 'done', usage: { inputTokens: 1, outputTokens: 1 } });
  const model = new ScriptedModel({ turns, recordRequests: false });
  const plan = Plan.create({
    goal: 'benchmark',
    steps: [{ id: 'loop', description: 'Call noop many times.' }],
  });
  plan.markStep('loop', { status: 'in_progress' });
  const started = performance.now();
  const result = await executeStep(plan, 'loop', {
    model,
    tools: [noop],
    limits: { maxIterations: iterations + 1, maxSuccesses: iterations + 1 },
    retry: false,
  });
  const elapsed = performance.now() - started;
  if (result.stopReason !== 'no-tool-calls' || result.successes !== iterations)
    throw new Error(`closedloop tool loop: ${result.stopReason}, ${result.successes} successes`);
  return (elapsed * 1000) / iterations;
}
