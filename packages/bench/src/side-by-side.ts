/**
 * The side-by-side benchmark: `pnpm --filter @closedloop/bench bench` (add `--quick` for a run
 * of under a minute, `--samples N` to override the sample count). Runs each workload on
 * closedloop and on its anchor (LangGraph JS, the AI SDK) in this one process, interleaved, and
 * prints workload, closedloop figure, anchor figure and their ratio. See README.md.
 */
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type BenchmarkRow, formatTable, fullSizes, quickSizes, runBenchmark } from './run-benchmark';

const { values } = parseArgs({
  // `pnpm … bench -- --quick` hands the script a literal `--`.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    samples: { type: 'string' },
  },
});
const sizes = { ...(values.quick ? quickSizes : fullSizes) };
if (values.samples !== undefined) {
  const samples = Number(values.samples);
  if (!Number.isInteger(samples) || samples < 1)
    throw new Error(`--samples needs a positive integer, got ${JSON.stringify(values.samples)}.`);
  sizes.samples = samples;
  sizes.fanOutSamples = samples;
}

const started = performance.now();
// A loaded machine slows both sides, but not alike: the load is printed with the figures.
const load = () => `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`;
console.log(
  `# closedloop vs LangGraph JS / AI SDK, ${values.quick ? 'quick' : 'full'} sizes, Node ${process.versions.node}, ${load()}; medians, lower is better`,
);
const show = (row: BenchmarkRow) =>
  console.log(
    `  ${row.workload}: closedloop ${row.samples.closedloop.map((value) => value.toFixed(3)).join(', ')} | ${row.anchorName} ${row.samples.anchor.map((value) => value.toFixed(3)).join(', ')} ${row.unit}`,
  );
const rows = await runBenchmark(sizes, show);
console.log(`\n${formatTable(rows)}`);
console.log(
  `\nratio = closedloop ÷ anchor (below 1: closedloop is faster). ${((performance.now() - started) / 1000).toFixed(0)} s, ${load()} at the end.`,
);
