/**
 * Journal benchmark: `pnpm bench:journal` in packages/cortex (or
 * `npx tsx --conditions=@closedloop/source bench/journal.bench.ts`).
 *
 * A 1,000-step chain (each step depends on the one before, so nothing overlaps and every commit
 * is on the critical path) through the full stack — executor, verifier, a zero-latency scripted
 * model, one tool call and `mark_step` per step — once without a journal and once per journal
 * kind: the in-memory store and the JSONL store in each durability mode. The figure is the
 * journal's overhead per step: (run time with it − run time without) ÷ 1,000, median of the
 * samples, runs interleaved so machine noise hits every mode alike. Target: ≤ 1 ms per step with
 * fsynced group commits (`durability: 'fsync'`, the default). Also printed: group commits (one
 * write, and one fdatasync in `fsync` mode) and journaled events per step, and this disk's own
 * fdatasync latency probed before each fsync sample (a shared disk's latency varies tenfold).
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCortex } from '../src/create-cortex';
import { createJsonlRunStore, type JournalDurability } from '../src/jsonl-run-store';
import { createMemoryRunStore, type RunStore } from '../src/run-store';
import { benchModel, chainDrafts, recordTool } from './fixture';

const size = Number(process.env.JOURNAL_BENCH_STEPS ?? 1_000);
const samples = Number(process.env.JOURNAL_BENCH_SAMPLES ?? 3);

const steps = chainDrafts(size);
const chainModel = () => benchModel(steps, { title: 'chain' });

/** Counts the group commits (appends) and records a store receives. */
function counting(store: RunStore): RunStore & { groups: number; records: number } {
  const counted = {
    ...store,
    groups: 0,
    records: 0,
    append(runId: string, records: Parameters<RunStore['append']>[1]) {
      counted.groups++;
      counted.records += records.length;
      return store.append(runId, records);
    },
  };
  return counted;
}

type Mode = 'none (no journal)' | 'memory' | `jsonl ${JournalDurability}`;
const modes: Mode[] = ['none (no journal)', 'memory', 'jsonl none', 'jsonl batch', 'jsonl fsync'];

async function runChain(mode: Mode, dir: string): Promise<{ ms: number; groups: number; records: number }> {
  let store: (RunStore & { groups: number; records: number }) | undefined;
  let close = async () => {};
  if (mode === 'memory') store = counting(createMemoryRunStore());
  else if (mode.startsWith('jsonl')) {
    const jsonl = createJsonlRunStore({ dir, durability: mode.slice('jsonl '.length) as JournalDurability });
    store = counting(jsonl);
    close = () => jsonl.close();
  }
  const cortex = createCortex({
    model: chainModel(),
    tools: [recordTool],
    planning: 'always',
    concurrency: 1,
    store: store ?? false,
    planner: { maxSteps: size },
    // The chain's tool is opaque to the verifier: its steps are accepted unverified, with a warning.
    acceptUnverified: 'warn',
  });
  const started = performance.now();
  const result = await cortex.run('Run the chain');
  const ms = performance.now() - started;
  await close();
  if (result.stopReason !== 'completed' && result.stopReason !== 'completed-with-warnings')
    throw new Error(`${mode}: ${result.stopReason} — ${result.reason.slice(0, 300)}`);
  return { ms, groups: store?.groups ?? 0, records: store?.records ?? 0 };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Median latency of a 2 KB append + fdatasync on this disk: what one fsynced group commit costs at least. */
function fdatasyncLatencyMs(dir: string, count = 100): number {
  const fd = openSync(join(dir, 'probe'), 'a');
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    writeSync(fd, `${'x'.repeat(2047)}\n`);
    fdatasyncSync(fd);
    times.push(performance.now() - started);
  }
  closeSync(fd);
  return median(times);
}

const root = mkdtempSync(join(tmpdir(), 'cortex-journal-bench-'));
try {
  console.log(`# Journal overhead per step: a ${size}-step chain, full stack, ${samples} samples per mode`);
  await runChain('none (no journal)', join(root, 'warm-up'));
  const times = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
  const counts = new Map<Mode, { groups: number; records: number }>();
  // The disk is shared: its fsync latency is probed right before each fsync sample, for context.
  const probes: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    for (const mode of modes) {
      if (mode === 'jsonl fsync') probes.push(fdatasyncLatencyMs(root, 30));
      const measured = await runChain(mode, join(root, `${mode.replace(/\W+/g, '-')}-${sample}`));
      times.get(mode)!.push(measured.ms);
      counts.set(mode, { groups: measured.groups, records: measured.records });
    }
  }
  const base = median(times.get('none (no journal)')!);
  console.log(
    `  fdatasync latency of this disk before the fsync samples: ${probes.map((probe) => probe.toFixed(3)).join(', ')} ms (median of 30 each)`,
  );
  console.log(`  without a journal: ${(base / size).toFixed(3)} ms per step`);
  let fsyncOverhead = Number.NaN;
  for (const mode of modes.slice(1)) {
    const perStep = (median(times.get(mode)!) - base) / size;
    if (mode === 'jsonl fsync') fsyncOverhead = perStep;
    const { groups, records } = counts.get(mode)!;
    console.log(
      `  ${mode.padEnd(12)} overhead ${perStep.toFixed(3)} ms per step  (${(groups / size).toFixed(2)} group commits, ${(records / size).toFixed(1)} events per step)`,
    );
  }
  const pass = fsyncOverhead <= 1;
  console.log(
    `${pass ? 'PASS' : 'FAIL'}  journal overhead per step with fsynced group commits: ${fsyncOverhead.toFixed(3)} ms (target ≤ 1 ms)`,
  );
  process.exitCode = pass ? 0 : 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
