import { aiSdkToolLoop } from './ai-sdk-side';
import { closedloopToolLoop, runClosedloopDag } from './closedloop-side';
import { runLangGraphDag, runLangGraphSend } from './langgraph-side';
import {
  chainDag,
  type DagStep,
  dagBounds,
  fanOutDag,
  lowerBound,
  median,
  randomDag,
  successorDag,
  type TimedRun,
} from './workload';

/** The sizes of one benchmark run. */
export interface BenchmarkSizes {
  /** Steps of the chain (workload 1). */
  chainSteps: number;
  /** Steps of the long chain whose CPU per step is compared with the chain's (workload 1e). */
  longChainSteps: number;
  /** Parallel no-op steps (workload 2). */
  wideSteps: number;
  /** Children of the fan-out (workload 3) and how long each sleeps. */
  fanOutWidth: number;
  fanOutMs: number;
  /** Samples of the fan-out (the figure is their median). */
  fanOutSamples: number;
  /** Steps of each random DAG (workload 4) and its concurrency limit. */
  dagSteps: number;
  dagLimit: number;
  /** Iterations of the tool loop (workload 6). */
  loopIterations: number;
  /** Samples of every other workload (the figure is their median). */
  samples: number;
  /**
   * Uncounted runs of each side before its samples. A long-lived process (a server running agent
   * runs) is warm; a fresh one keeps getting faster for a few runs while the JIT compiles its hot
   * paths, on both sides.
   */
  warmUps: number;
}

/** The issue's sizes: `pnpm --filter @closedloop/bench bench`. */
export const fullSizes: BenchmarkSizes = {
  chainSteps: 1_000,
  longChainSteps: 10_000,
  wideSteps: 500,
  fanOutWidth: 500,
  fanOutMs: 150,
  fanOutSamples: 5,
  dagSteps: 200,
  dagLimit: 8,
  loopIterations: 1_000,
  samples: 3,
  warmUps: 3,
};

/** A run of well under a minute (`--quick`): smaller sizes, one sample (three of the fan-out). */
export const quickSizes: BenchmarkSizes = {
  chainSteps: 200,
  longChainSteps: 2_000,
  wideSteps: 100,
  fanOutWidth: 100,
  fanOutMs: 150,
  fanOutSamples: 3,
  dagSteps: 60,
  dagLimit: 8,
  loopIterations: 200,
  samples: 1,
  warmUps: 1,
};

/** One line of the table: a workload's figure on closedloop and on the anchor (lower is better). */
export interface BenchmarkRow {
  workload: string;
  unit: string;
  closedloop: number;
  anchor: number;
  /**
   * Which framework the anchor figure comes from (`closedloop`: closedloop itself at another size,
   * row 1e).
   */
  anchorName: 'LangGraph' | 'AI SDK' | 'closedloop';
  /** Every sample of each side, in run order. */
  samples: { closedloop: number[]; anchor: number[] };
}

type Sample = () => Promise<number>;

/**
 * Runs one workload on both sides, interleaved (closedloop, anchor, closedloop, …) after
 * `counts.warmUps` uncounted runs each, so machine noise hits both alike; returns the median of
 * each side.
 */
async function sideBySide(
  row: Pick<BenchmarkRow, 'workload' | 'unit' | 'anchorName'>,
  counts: { samples: number; warmUps: number },
  closedloop: Sample,
  anchor: Sample,
  onRow: (row: BenchmarkRow) => void,
): Promise<BenchmarkRow> {
  const { samples, warmUps } = counts;
  for (let run = 0; run < warmUps; run++) {
    await closedloop();
    await anchor();
  }
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    ours.push(await closedloop());
    theirs.push(await anchor());
  }
  const result: BenchmarkRow = {
    ...row,
    closedloop: median(ours),
    anchor: median(theirs),
    samples: { closedloop: ours, anchor: theirs },
  };
  onRow(result);
  return result;
}

const perStepMs = (steps: readonly DagStep[]) => (run: TimedRun) => run.makespan / steps.length;

/**
 * CPU time per step of each run of a workload, both sides: `closedloop(steps, sample)` and
 * `anchor(steps, sample)` wrap a sample so it also records the CPU time (user + system, every
 * thread of the process: GC helpers and the thread pool's fsyncs included) it took, ÷ steps;
 * `row(label)` is the table row of the recorded samples, the first `warmUps` runs of each side
 * (its warm-ups) left out.
 */
function cpuSamples(warmUps: number) {
  const taken = { closedloop: [] as number[], anchor: [] as number[] };
  const wrap =
    (into: number[]) =>
    (steps: readonly DagStep[], sample: Sample): Sample =>
    async () => {
      const before = process.cpuUsage();
      const figure = await sample();
      const used = process.cpuUsage(before);
      into.push((used.user + used.system) / 1000 / steps.length);
      return figure;
    };
  return {
    closedloop: wrap(taken.closedloop),
    anchor: wrap(taken.anchor),
    row(workload: string): BenchmarkRow {
      const recorded = { closedloop: taken.closedloop.slice(warmUps), anchor: taken.anchor.slice(warmUps) };
      return {
        workload,
        unit: 'ms',
        anchorName: 'LangGraph',
        closedloop: median(recorded.closedloop),
        anchor: median(recorded.anchor),
        samples: recorded,
      };
    },
  };
}

/** A successor's start minus its dependency's end, ms (workload 5). */
function successorLatency(run: TimedRun): number {
  const end = run.ends.get('fast');
  const start = run.starts.get('next');
  if (end === undefined || start === undefined) throw new Error('successor workload: fast or next never ran');
  return start - end;
}

/**
 * Runs the six workloads, each side by side in this process, and returns the table's rows (also
 * passed to `onRow` as each finishes). Closedloop runs through `createCortex` (and the executor for
 * the tool loop); the anchor is LangGraph JS for the DAG workloads and the AI SDK for the tool loop.
 */
export async function runBenchmark(
  sizes: BenchmarkSizes,
  onRow: (row: BenchmarkRow) => void = () => {},
): Promise<BenchmarkRow[]> {
  const rows: BenchmarkRow[] = [];
  const counts = { samples: sizes.samples, warmUps: sizes.warmUps };
  const graph = 'LangGraph' as const;

  const chain = chainDag(sizes.chainSteps);
  // Rows 1 and 1b also measure the CPU time of every run (1c, 1d): the issue's per-step budget is
  // CPU, and on a shared machine CPU time swings less with the load than wall time does.
  const memoryCpu = cpuSamples(sizes.warmUps);
  const fsyncCpu = cpuSamples(sizes.warmUps);
  const chainRow = await sideBySide(
    { workload: `1. chain of ${chain.length} no-op steps, per step`, unit: 'ms', anchorName: graph },
    counts,
    memoryCpu.closedloop(chain, async () =>
      perStepMs(chain)(await runClosedloopDag({ steps: chain, concurrency: 1, journal: 'memory' })),
    ),
    memoryCpu.anchor(chain, async () => perStepMs(chain)(await runLangGraphDag({ steps: chain }))),
    onRow,
  );
  rows.push(chainRow);
  const journaledRow = await sideBySide(
    {
      workload: `1b. same chain, closedloop with the fsynced JSONL journal`,
      unit: 'ms',
      anchorName: graph,
    },
    counts,
    fsyncCpu.closedloop(chain, async () =>
      perStepMs(chain)(await runClosedloopDag({ steps: chain, concurrency: 1, journal: 'jsonl-fsync' })),
    ),
    fsyncCpu.anchor(chain, async () => perStepMs(chain)(await runLangGraphDag({ steps: chain }))),
    onRow,
  );
  rows.push(journaledRow);
  for (const row of [
    memoryCpu.row(`1c. chain of ${chain.length}: CPU per step (process.cpuUsage), in memory`),
    fsyncCpu.row('1d. same chain: CPU per step, closedloop with the fsynced JSONL journal'),
  ]) {
    rows.push(row);
    onRow(row);
  }
  // Growth: closedloop's CPU per step on a chain `longChainSteps` long against the chain of row 1
  // (the anchor column), interleaved; a ratio near 1 is linear growth. LangGraph has no figure
  // here: its cost per step grows with the graph (see README), 10,000 nodes would take minutes.
  const longChain = chainDag(sizes.longChainSteps);
  const cpuPerStep =
    (steps: readonly DagStep[]): Sample =>
    async () => {
      const before = process.cpuUsage();
      await runClosedloopDag({ steps, concurrency: 1, journal: 'memory' });
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000 / steps.length;
    };
  rows.push(
    await sideBySide(
      {
        workload: `1e. chain of ${longChain.length}: CPU per step, in memory (anchor: closedloop, ${chain.length} steps)`,
        unit: 'ms',
        anchorName: 'closedloop',
      },
      counts,
      cpuPerStep(longChain),
      cpuPerStep(chain),
      onRow,
    ),
  );

  const wide = Array.from({ length: sizes.wideSteps }, (_, index) => ({
    id: `w${index}`,
    dependsOn: [],
    ms: 0,
  }));
  rows.push(
    await sideBySide(
      { workload: `2. ${wide.length} parallel no-op steps, per step`, unit: 'ms', anchorName: graph },
      counts,
      async () =>
        perStepMs(wide)(await runClosedloopDag({ steps: wide, concurrency: wide.length, journal: 'memory' })),
      async () => perStepMs(wide)(await runLangGraphDag({ steps: wide })),
      onRow,
    ),
  );

  const fan = fanOutDag(sizes.fanOutWidth, sizes.fanOutMs);
  const criticalPath = dagBounds(fan).criticalPath;
  const fanLabel = `3. fan-out of ${sizes.fanOutWidth} × ${sizes.fanOutMs} ms`;
  // Root's start to join's end: the schedule alone, without closedloop's planning and answer.
  const spans = { closedloop: [] as number[], anchor: [] as number[] };
  const span = (run: TimedRun) =>
    (run.ends.get('join') ?? Number.NaN) - (run.starts.get('root') ?? Number.NaN);
  const fanRow = await sideBySide(
    { workload: `${fanLabel}: makespan`, unit: 'ms', anchorName: graph },
    { samples: sizes.fanOutSamples, warmUps: sizes.warmUps },
    async () => {
      const run = await runClosedloopDag({ steps: fan, concurrency: fan.length, journal: 'jsonl-fsync' });
      spans.closedloop.push(span(run));
      return run.makespan;
    },
    async () => {
      const run = await runLangGraphSend(sizes.fanOutWidth, sizes.fanOutMs);
      spans.anchor.push(span(run));
      return run.makespan;
    },
    onRow,
  );
  rows.push(fanRow);
  const fanRatio: BenchmarkRow = {
    workload: `3b. same fan-out: makespan ÷ critical path (${criticalPath} ms)`,
    unit: '×',
    anchorName: graph,
    closedloop: fanRow.closedloop / criticalPath,
    anchor: fanRow.anchor / criticalPath,
    samples: {
      closedloop: fanRow.samples.closedloop.map((ms) => ms / criticalPath),
      anchor: fanRow.samples.anchor.map((ms) => ms / criticalPath),
    },
  };
  rows.push(fanRatio);
  onRow(fanRatio);
  // The first spans of each side are its warm-up runs'.
  const spanSamples = {
    closedloop: spans.closedloop.slice(sizes.warmUps).map((ms) => ms / criticalPath),
    anchor: spans.anchor.slice(sizes.warmUps).map((ms) => ms / criticalPath),
  };
  const spanRow: BenchmarkRow = {
    workload: '3c. same fan-out: root start → join end ÷ critical path',
    unit: '×',
    anchorName: graph,
    closedloop: median(spanSamples.closedloop),
    anchor: median(spanSamples.anchor),
    samples: spanSamples,
  };
  rows.push(spanRow);
  onRow(spanRow);

  for (const limit of [sizes.dagLimit, undefined]) {
    const bounds: number[] = [];
    let seed = 0;
    // Each sample draws a new DAG (seeds 1, 2, …); both sides run the same one.
    let dag: DagStep[] = [];
    const draw = () => {
      seed++;
      dag = randomDag(sizes.dagSteps, seed);
      bounds.push(lowerBound(dag, limit ?? dag.length));
    };
    const row = await sideBySide(
      {
        workload: `4. random DAG of ${sizes.dagSteps} steps (5–20 ms), ${limit === undefined ? 'no limit' : `limit ${limit}`}: makespan ÷ lower bound`,
        unit: '×',
        anchorName: graph,
      },
      counts,
      async () => {
        draw();
        const run = await runClosedloopDag({
          steps: dag,
          concurrency: limit ?? dag.length,
          journal: 'memory',
        });
        return run.makespan / bounds.at(-1)!;
      },
      async () => {
        const run = await runLangGraphDag({
          steps: dag,
          ...(limit !== undefined ? { maxConcurrency: limit } : {}),
        });
        return run.makespan / bounds.at(-1)!;
      },
      onRow,
    );
    rows.push(row);
  }

  const successor = successorDag();
  rows.push(
    await sideBySide(
      {
        workload: '5. successor start after its dependency ends (10 ms branch, 200 ms sibling)',
        unit: 'ms',
        anchorName: graph,
      },
      { ...counts, samples: Math.max(counts.samples, 3) },
      async () =>
        successorLatency(await runClosedloopDag({ steps: successor, concurrency: 4, journal: 'memory' })),
      async () => successorLatency(await runLangGraphDag({ steps: successor })),
      onRow,
    ),
  );

  rows.push(
    await sideBySide(
      {
        workload: `6. tool loop, ${sizes.loopIterations} iterations (executor vs generateText), per iteration`,
        unit: 'µs',
        anchorName: 'AI SDK',
      },
      counts,
      () => closedloopToolLoop(sizes.loopIterations),
      () => aiSdkToolLoop(sizes.loopIterations),
      onRow,
    ),
  );
  return rows;
}

/** Formats a figure with three significant digits' worth of decimals. */
function figure(value: number): string {
  const abs = Math.abs(value);
  return value.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3);
}

/** The table: workload, closedloop figure, anchor figure, ratio (closedloop ÷ anchor; below 1: closedloop is faster). */
export function formatTable(rows: readonly BenchmarkRow[]): string {
  const header = ['workload', 'unit', 'closedloop', 'anchor', 'ratio'];
  const lines = rows.map((row) => [
    row.workload,
    row.unit,
    figure(row.closedloop),
    `${figure(row.anchor)} (${row.anchorName})`,
    row.anchor === 0 ? '∞' : `${(row.closedloop / row.anchor).toFixed(2)}×`,
  ]);
  const widths = header.map((_, column) =>
    Math.max(...[header, ...lines].map((line) => line[column]!.length)),
  );
  const format = (line: string[]) =>
    line
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [format(header), widths.map((width) => '─'.repeat(width)).join('  '), ...lines.map(format)].join(
    '\n',
  );
}
