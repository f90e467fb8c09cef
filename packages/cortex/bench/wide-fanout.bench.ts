/**
 * Per-step CPU benchmark (issue 16): `pnpm bench:fanout` in packages/cortex (or
 * `npx tsx --conditions=@closedloop/source bench/wide-fanout.bench.ts`).
 *
 * Everything runs through `createCortex` — planner, scheduler, executor, tool registry, the real
 * verifier, a `ScriptedModel` — and, where stated, the JSONL journal with fsynced group commits.
 *
 * 1. A 500-wide fan-out (root → 500 children, unlimited concurrency) of 150 ms steps (two model
 *    turns of 75 ms each: a tool call, then `mark_step`), fsynced journal. Critical path: root +
 *    one child = 300 ms of model latency (planning and aggregation answer at once). Printed:
 *    makespan ÷ critical path, median of `FANOUT_SAMPLES` (5), for the whole run and for the step
 *    phase (first `step-started` to last `step-finished`). Target: ≤ 1.10.
 * 2. Chains of 1,000 and 10,000 zero-latency steps (each depends on the one before), without a
 *    journal and with the fsynced JSONL journal: CPU per step (`process.cpuUsage`, user + system)
 *    and wall time per step. Target: ≤ 0.1 ms in memory, ≤ 1 ms fsynced, linear in the size.
 * 3. `MaxListenersExceededWarning`s emitted during all of the above, plus one more fan-out run
 *    without a step deadline (`process.on('warning')`). Target: 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCortex } from '../src/create-cortex';
import { createJsonlRunStore } from '../src/jsonl-run-store';
import type { RunEvent } from '../src/run-events';
import { type BenchDraft, benchDraft, benchModel, chainDrafts, recordTool } from './fixture';

const fanoutSamples = Number(process.env.FANOUT_SAMPLES ?? 5);
const width = Number(process.env.FANOUT_WIDTH ?? 500);
const stepMs = Number(process.env.FANOUT_STEP_MS ?? 150);
const chainSizes = (process.env.CHAIN_SIZES ?? '1000,10000').split(',').map(Number);
const skipFanout = process.env.SKIP_FANOUT === '1';

let maxListenerWarnings = 0;
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning') maxListenerWarnings++;
});

const results: { name: string; value: string; target: string; pass: boolean }[] = [];
function report(name: string, value: string, target: string, pass: boolean): void {
  results.push({ name, value, target, pass });
  console.log(`${pass ? 'PASS' : 'FAIL'}  ${name}: ${value} (target ${target})`);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Measured {
  wallMs: number;
  cpuMs: number;
  stepPhaseMs: number;
}

async function run(
  steps: BenchDraft[],
  turnMs: number,
  dir: string | undefined,
  stepDeadline = true,
): Promise<Measured> {
  const store = dir === undefined ? undefined : createJsonlRunStore({ dir, durability: 'fsync' });
  let firstStart = Number.POSITIVE_INFINITY;
  let lastEnd = 0;
  const cortex = createCortex({
    model: benchModel(steps, { turnMs }),
    tools: [recordTool],
    planning: 'always',
    concurrency: steps.length,
    store: store ?? false,
    planner: { maxSteps: steps.length },
    // The tool is opaque to the verifier: its steps are accepted unverified, with a warning.
    acceptUnverified: 'warn',
    ...(stepDeadline ? {} : { deadlines: { stepMs: Number.POSITIVE_INFINITY } }),
    onEvent: (event: RunEvent) => {
      if (event.type === 'step-started') firstStart = Math.min(firstStart, performance.now());
      else if (event.type === 'step-finished') lastEnd = performance.now();
    },
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await cortex.run('Run the bench');
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await store?.close();
  if (result.stopReason !== 'completed' && result.stopReason !== 'completed-with-warnings')
    throw new Error(`${result.stopReason} — ${result.reason.slice(0, 300)}`);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, stepPhaseMs: lastEnd - firstStart };
}

const root = mkdtempSync(join(tmpdir(), 'cortex-fanout-bench-'));
let counter = 0;
const freshDir = () => join(root, `run-${counter++}`);
try {
  // Warm-up: JIT, module loading.
  await run(chainDrafts(200), 0, undefined);

  if (!skipFanout) {
    const steps = [
      benchDraft('root'),
      ...Array.from({ length: width }, (_, index) => benchDraft(`c${index}`, ['root'])),
    ];
    const criticalPath = 2 * stepMs;
    console.log(
      `\n# 1. ${width}-wide fan-out of ${stepMs} ms steps, fsynced JSONL journal, critical path ${criticalPath} ms, ${fanoutSamples} samples`,
    );
    const runRatios: number[] = [];
    const phaseRatios: number[] = [];
    const cpuPerStep: number[] = [];
    for (let sample = 0; sample < fanoutSamples; sample++) {
      const measured = await run(steps, stepMs / 2, freshDir());
      runRatios.push(measured.wallMs / criticalPath);
      phaseRatios.push(measured.stepPhaseMs / criticalPath);
      cpuPerStep.push(measured.cpuMs / steps.length);
    }
    console.log(`  run makespan / critical path:        ${runRatios.map((r) => r.toFixed(2)).join(', ')}`);
    console.log(`  step-phase makespan / critical path: ${phaseRatios.map((r) => r.toFixed(2)).join(', ')}`);
    console.log(
      `  CPU per step (whole run):            ${cpuPerStep.map((r) => r.toFixed(3)).join(', ')} ms`,
    );
    // Without a step deadline a step has no controller of its own in some designs: one more run
    // for the warning count only.
    await run(steps, stepMs / 2, freshDir(), false);
    const ratio = median(runRatios);
    report(
      `${width}-wide fan-out: run makespan / critical path (median)`,
      ratio.toFixed(3),
      '≤ 1.10',
      ratio <= 1.1,
    );
  }

  console.log('\n# 2. Chains of zero-latency steps: CPU and wall time per step');
  const perStep = new Map<string, number>();
  for (const size of chainSizes) {
    const steps = chainDrafts(size);
    for (const journal of [false, true]) {
      const measured = await run(steps, 0, journal ? freshDir() : undefined);
      const cpu = measured.cpuMs / size;
      const wall = measured.wallMs / size;
      const label = journal ? 'fsynced journal' : 'in memory';
      perStep.set(`${size} ${label}`, cpu);
      console.log(
        `  ${String(size).padStart(6)} steps, ${label.padEnd(15)}: CPU ${cpu.toFixed(3)} ms/step, wall ${wall.toFixed(3)} ms/step`,
      );
      const target = journal ? 1 : 0.1;
      report(
        `CPU per step, ${size}-step chain, ${label}`,
        `${cpu.toFixed(3)} ms`,
        `≤ ${target} ms`,
        cpu <= target,
      );
    }
  }
  if (chainSizes.length >= 2) {
    const [small, large] = [chainSizes[0]!, chainSizes.at(-1)!];
    for (const label of ['in memory', 'fsynced journal']) {
      const growth = perStep.get(`${large} ${label}`)! / perStep.get(`${small} ${label}`)!;
      report(
        `linear growth ${small} → ${large} steps, ${label}: per-step CPU ratio`,
        growth.toFixed(2),
        '≤ 1.5',
        growth <= 1.5,
      );
    }
  }

  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  console.log('');
  report('MaxListenersExceededWarning emitted', String(maxListenerWarnings), '0', maxListenerWarnings === 0);
  const failed = results.filter((result) => !result.pass).length;
  console.log(`\n${failed === 0 ? 'ALL PASS' : `${failed} FAIL`}`);
  process.exitCode = failed === 0 ? 0 : 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
