/**
 * Loop overhead of `executeStep`: one step of 1,000 scripted iterations — a zero-latency
 * `ScriptedModel` (with `recordRequests: false`, so it keeps no copy of each request) calling a
 * no-op tool with fresh arguments each turn, limits raised — run several times after a warm-up.
 * Every iteration is timed from one `model-call-started` event to the next (model turn, ledger
 * writes, validation, tool run through the registry, events). Primary figure: the median
 * per-iteration time over all iterations of all runs. Target: < 100 µs.
 *
 * Secondary: the same with an "instant" model that answers from prebuilt results (the executor
 * alone, without the scripted model's own work), and the abort latency of a tool that ignores
 * its signal for 5 s (target < 100 ms from `abort()` to the result).
 *
 * Run: pnpm bench (or npx tsx --conditions=@closedloop/source bench/loop.bench.ts)
 */
import type { ChatModel, GenerateResult, ModelCapabilities, StreamPart } from '@closedloop/model';
import { ScriptedModel, type ScriptedTurn } from '@closedloop/model/testing';
import { Plan } from '@closedloop/plan';
import { defineTool } from '@closedloop/tools';
import { z } from 'zod';
import { executeStep } from '../src/index';

const ITERATIONS = 1000;
const RUNS = 7;
const TARGET_US = 100;
const ABORT_RUNS = 15;
const ABORT_TARGET_MS = 100;

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  input: z.object({ i: z.number().int() }),
  execute: () => 'ok',
});

/**
 * A zero-cost ChatModel: answers `noop({ i })` for `calls` turns, then `done`, from prebuilt
 * results, keeping no copies of requests. Isolates the executor's own cost from a test double's.
 */
class InstantModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'instant';
  readonly modelId = 'instant';
  readonly capabilities: ModelCapabilities = {
    toolCalling: true,
    parallelToolCalls: true,
    streaming: false,
    structuredOutput: false,
    logprobs: false,
    reasoning: false,
    vision: false,
    contextWindow: 1_000_000,
    maxOutputTokens: 1000,
  };
  private readonly results: GenerateResult[];
  private next = 0;
  constructor(calls: number) {
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    this.results = Array.from({ length: calls }, (_, i) => ({
      text: '',
      toolCalls: [{ id: `call_${i}`, name: 'noop', arguments: { i }, rawArguments: `{"i":${i}}` }],
      finishReason: 'tool-calls' as const,
      usage,
    }));
    this.results.push({ text: 'done', toolCalls: [], finishReason: 'stop', usage });
  }
  async doGenerate(): Promise<GenerateResult> {
    const result = this.results[this.next++];
    if (result === undefined) throw new Error('InstantModel: out of results');
    return result;
  }
  // biome-ignore lint/correctness/useYield: never streams (capabilities.streaming is false)
  async *doStream(): AsyncGenerator<StreamPart> {
    throw new Error('InstantModel does not stream');
  }
}

function freshPlan(): Plan {
  const plan = Plan.create({
    goal: 'benchmark',
    steps: [{ id: 'loop', description: 'Call noop many times.' }],
  });
  plan.markStep('loop', { status: 'in_progress' });
  return plan;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface RunFigures {
  /** Wall time of the whole step per iteration, µs. */
  meanUs: number;
  /** Per-iteration times (between consecutive model-call-started events), µs. */
  iterationUs: number[];
}

function scriptedModel(): ChatModel {
  const turns: ScriptedTurn[] = Array.from({ length: ITERATIONS }, (_, i) => ({
    toolCalls: [{ name: 'noop', arguments: { i } }],
    usage: { inputTokens: 1, outputTokens: 1 },
  }));
  turns.push({ text: 'done', usage: { inputTokens: 1, outputTokens: 1 } });
  return new ScriptedModel({ turns, recordRequests: false });
}

async function runOnce(kind: 'scripted' | 'instant'): Promise<RunFigures> {
  const model = kind === 'scripted' ? scriptedModel() : new InstantModel(ITERATIONS);
  const plan = freshPlan();
  const turnStarts: number[] = [];
  const started = performance.now();
  const result = await executeStep(plan, 'loop', {
    model,
    tools: [noop],
    limits: { maxIterations: ITERATIONS + 1, maxSuccesses: ITERATIONS + 1 },
    retry: false,
    onEvent: (event) => {
      if (event.type === 'model-call-started') turnStarts.push(performance.now());
    },
  });
  const wallMs = performance.now() - started;
  if (result.stopReason !== 'no-tool-calls' || result.successes !== ITERATIONS) {
    throw new Error(`unexpected result: ${result.stopReason}, ${result.successes} successes`);
  }
  if (plan.step('loop').ledger.length !== ITERATIONS) throw new Error('ledger incomplete');
  const iterationUs: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) iterationUs.push((turnStarts[i + 1]! - turnStarts[i]!) * 1000);
  return { meanUs: (wallMs / ITERATIONS) * 1000, iterationUs };
}

interface Figures {
  medianUs: number;
  p90Us: number;
  meanUs: number;
  /** Median of iterations 1–100 and 901–1000: equal means no per-turn cost that grows. */
  firstUs: number;
  lastUs: number;
}

async function measure(kind: 'scripted' | 'instant'): Promise<Figures> {
  await runOnce(kind); // warm-up
  const runs: RunFigures[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await runOnce(kind));
  const fmt = (value: number) => value.toFixed(1).padStart(8);
  console.log('run  median µs/it  p90 µs/it  mean µs/it  iterations 1–100  iterations 901–1000');
  for (const [index, run] of runs.entries()) {
    console.log(
      `${String(index + 1).padStart(3)}  ${fmt(median(run.iterationUs))}     ${fmt(percentile(run.iterationUs, 90))}   ${fmt(run.meanUs)}          ${fmt(median(run.iterationUs.slice(0, 100)))}          ${fmt(median(run.iterationUs.slice(-100)))}`,
    );
  }
  const all = runs.flatMap((run) => run.iterationUs);
  const figures: Figures = {
    medianUs: median(all),
    p90Us: percentile(all, 90),
    meanUs: median(runs.map((run) => run.meanUs)),
    firstUs: median(runs.flatMap((run) => run.iterationUs.slice(0, 100))),
    lastUs: median(runs.flatMap((run) => run.iterationUs.slice(-100))),
  };
  console.log(
    `all runs: median ${figures.medianUs.toFixed(1)} µs/it, p90 ${figures.p90Us.toFixed(1)} µs/it, mean ${figures.meanUs.toFixed(1)} µs/it ` +
      `(iterations 1–100: ${figures.firstUs.toFixed(1)}, 901–1000: ${figures.lastUs.toFixed(1)})`,
  );
  return figures;
}

async function abortLatencyMs(): Promise<number> {
  const stubborn = defineTool({
    name: 'stubborn',
    description: 'Ignores its signal for 5 s.',
    input: z.object({}),
    execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), 5000).unref()),
  });
  let started!: () => void;
  const toolStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const watched = defineTool({
    name: 'watched',
    description: 'Starts the stubborn work.',
    input: z.object({}),
    execute: (input, context) => {
      started();
      return stubborn.execute(input, context);
    },
  });
  const controller = new AbortController();
  const running = executeStep(freshPlan(), 'loop', {
    model: new ScriptedModel({ turns: [{ toolCalls: [{ name: 'watched', arguments: {} }] }] }),
    tools: [watched],
    signal: controller.signal,
  });
  await toolStarted;
  const abortedAt = performance.now();
  controller.abort();
  const result = await running;
  if (result.stopReason !== 'aborted') throw new Error(`expected aborted, got ${result.stopReason}`);
  return performance.now() - abortedAt;
}

async function main() {
  console.log(`executeStep loop: ${ITERATIONS} iterations per step, ${RUNS} runs after one warm-up run\n`);
  console.log(
    '1) ScriptedModel (zero latency, recordRequests: false) calling a no-op tool: the whole iteration —',
  );
  console.log('   model turn, ledger writes, argument validation, tool run through the registry, events.');
  const scripted = await measure('scripted');
  console.log(
    '\n2) Instant model (prebuilt results): the executor alone, without the scripted model’s work.',
  );
  const instant = await measure('instant');
  const loopPass = scripted.medianUs < TARGET_US;
  console.log(
    `\nper-iteration median with ScriptedModel: ${scripted.medianUs.toFixed(1)} µs (instant model: ${instant.medianUs.toFixed(1)} µs); ` +
      `target < ${TARGET_US} µs: ${loopPass ? 'PASS' : 'FAIL'}`,
  );

  const latencies: number[] = [];
  for (let run = 0; run < ABORT_RUNS; run++) latencies.push(await abortLatencyMs());
  const abortMedian = median(latencies);
  const abortMax = Math.max(...latencies);
  console.log(
    `\nabort latency (tool ignoring its signal for 5 s): median ${abortMedian.toFixed(2)} ms, max ${abortMax.toFixed(2)} ms over ${ABORT_RUNS} runs`,
  );
  const abortPass = abortMax < ABORT_TARGET_MS;
  console.log(`abort target < ${ABORT_TARGET_MS} ms: ${abortPass ? 'PASS' : 'FAIL'}`);
  if (!loopPass || !abortPass) process.exitCode = 1;
}

await main();
