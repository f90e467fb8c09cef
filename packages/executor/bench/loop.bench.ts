/**
 * Loop overhead of `executeStep`: one step of 1,000 scripted iterations (a zero-latency
 * ScriptedModel calling a no-op tool with fresh arguments each turn, limits raised), several
 * runs. Per iteration it reports the wall time, the time spent inside the model's own
 * `doGenerate` (the ScriptedModel deep-copies every request it records, which grows with the
 * conversation), and the executor's overhead = wall − model. Target: median overhead < 100 µs.
 *
 * Also measures abort latency: a tool that ignores its signal for 5 s, aborted mid-call;
 * target < 100 ms from `abort()` to the result.
 *
 * Run: pnpm bench (or npx tsx --conditions=@closedloop/source bench/loop.bench.ts)
 */
import type {
  CallOptions,
  ChatModel,
  GenerateRequest,
  GenerateResult,
  ModelCapabilities,
  StreamPart,
} from '@closedloop/model';
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

/** A ScriptedModel that measures the time spent inside its own doGenerate. */
class TimedScriptedModel extends ScriptedModel {
  modelMs = 0;
  readonly perCallMs: number[] = [];
  override async doGenerate(request: GenerateRequest, options?: CallOptions): Promise<GenerateResult> {
    const started = performance.now();
    try {
      return await super.doGenerate(request, options);
    } finally {
      const ms = performance.now() - started;
      this.modelMs += ms;
      this.perCallMs.push(ms);
    }
  }
}

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

interface RunFigures {
  /** Wall time per iteration, µs. */
  wallUs: number;
  /** Time inside the model's doGenerate per iteration, µs. */
  modelUs: number;
  /** wall − model, per iteration, µs. */
  overheadUs: number;
  /** wall − model over iterations 1–100 and 901–1000: flat means no O(n) per turn. */
  firstUs: number;
  lastUs: number;
}

async function runOnce(kind: 'scripted' | 'instant'): Promise<RunFigures> {
  let model: ChatModel;
  let modelMs: () => number;
  let perCallMs: (i: number) => number;
  if (kind === 'scripted') {
    const turns: ScriptedTurn[] = Array.from({ length: ITERATIONS }, (_, i) => ({
      toolCalls: [{ name: 'noop', arguments: { i } }],
      usage: { inputTokens: 1, outputTokens: 1 },
    }));
    turns.push({ text: 'done', usage: { inputTokens: 1, outputTokens: 1 } });
    const scripted = new TimedScriptedModel({ turns });
    model = scripted;
    modelMs = () => scripted.modelMs;
    perCallMs = (i) => scripted.perCallMs[i]!;
  } else {
    model = new InstantModel(ITERATIONS);
    modelMs = () => 0;
    perCallMs = () => 0;
  }
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
  const slice = (from: number, to: number) => {
    let wall = 0;
    let inModel = 0;
    for (let i = from; i < to; i++) {
      wall += turnStarts[i + 1]! - turnStarts[i]!;
      inModel += perCallMs(i);
    }
    return ((wall - inModel) / (to - from)) * 1000;
  };
  return {
    wallUs: (wallMs / ITERATIONS) * 1000,
    modelUs: (modelMs() / ITERATIONS) * 1000,
    overheadUs: ((wallMs - modelMs()) / ITERATIONS) * 1000,
    firstUs: slice(0, 100),
    lastUs: slice(ITERATIONS - 100, ITERATIONS),
  };
}

async function measure(kind: 'scripted' | 'instant'): Promise<RunFigures> {
  await runOnce(kind); // warm-up
  const runs: RunFigures[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await runOnce(kind));
  const fmt = (value: number) => value.toFixed(1).padStart(8);
  console.log('run  wall µs/it  model µs/it  wall−model µs/it  iterations 1–100  iterations 901–1000');
  runs.forEach((run, index) => {
    console.log(
      `${String(index + 1).padStart(3)}  ${fmt(run.wallUs)}     ${fmt(run.modelUs)}      ${fmt(run.overheadUs)}          ${fmt(run.firstUs)}          ${fmt(run.lastUs)}`,
    );
  });
  const figures: RunFigures = {
    wallUs: median(runs.map((run) => run.wallUs)),
    modelUs: median(runs.map((run) => run.modelUs)),
    overheadUs: median(runs.map((run) => run.overheadUs)),
    firstUs: median(runs.map((run) => run.firstUs)),
    lastUs: median(runs.map((run) => run.lastUs)),
  };
  console.log(
    `median: wall ${figures.wallUs.toFixed(1)} µs/it, model ${figures.modelUs.toFixed(1)} µs/it, wall−model ${figures.overheadUs.toFixed(1)} µs/it ` +
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
  console.log('1) ScriptedModel (zero latency). Its doGenerate deep-copies every request it records, so its');
  console.log('   time grows with the conversation; the garbage it makes is collected during the loop too.');
  const scripted = await measure('scripted');
  console.log('\n2) Instant model (prebuilt results, no copies): the executor alone — generate() + retry');
  console.log('   wrapper, ledger writes, guardless tool execution through the registry, events.');
  const instant = await measure('instant');
  const loopPass = instant.overheadUs < TARGET_US;
  console.log(
    `\nexecutor overhead per iteration: ${instant.overheadUs.toFixed(1)} µs (instant model), ` +
      `${scripted.overheadUs.toFixed(1)} µs wall−model with ScriptedModel (includes its GC); target < ${TARGET_US} µs: ${loopPass ? 'PASS' : 'FAIL'}`,
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
