import { describe, expect, it } from 'vitest';
import { type BenchmarkSizes, formatTable, runBenchmark } from './run-benchmark';

/** Every workload at a tiny size, one sample: catches a side that breaks, not a slow one. */
const tiny: BenchmarkSizes = {
  chainSteps: 5,
  longChainSteps: 20,
  wideSteps: 5,
  fanOutWidth: 5,
  fanOutMs: 20,
  fanOutSamples: 1,
  dagSteps: 12,
  dagLimit: 3,
  loopIterations: 5,
  samples: 1,
  warmUps: 1,
};

describe('runBenchmark', () => {
  it('runs every workload on closedloop and its anchor and reports sane figures', async () => {
    const rows = await runBenchmark(tiny);
    expect(rows.map((row) => row.workload.split('.')[0])).toEqual([
      '1',
      '1b',
      '1c',
      '1d',
      '1e',
      '2',
      '3',
      '3b',
      '3c',
      '4',
      '4',
      '5',
      '6',
    ]);
    for (const row of rows) {
      for (const value of [row.closedloop, row.anchor]) {
        expect(Number.isFinite(value), row.workload).toBe(true);
        expect(value, row.workload).toBeGreaterThanOrEqual(0);
      }
      expect(row.samples.closedloop).toHaveLength(row.workload.startsWith('5') ? 3 : 1);
    }
    // No schedule beats its lower bound: a makespan below it means the timing is wrong.
    for (const row of rows.filter((row) => row.unit === '×')) {
      expect(row.closedloop, row.workload).toBeGreaterThan(0.95);
      expect(row.anchor, row.workload).toBeGreaterThan(0.95);
    }
    // CPU per step: a chain step through createCortex takes some CPU on both sides.
    for (const row of rows.filter((row) => /^1[cde]\./.test(row.workload))) {
      expect(row.closedloop, row.workload).toBeGreaterThan(0);
      expect(row.anchor, row.workload).toBeGreaterThan(0);
    }
    const fanOut = rows.find((row) => row.workload.startsWith('3.'))!;
    expect(fanOut.closedloop).toBeGreaterThanOrEqual(20);
    expect(fanOut.anchor).toBeGreaterThanOrEqual(20);
    const table = formatTable(rows);
    expect(table.split('\n')).toHaveLength(rows.length + 2);
    expect(table).toContain('(AI SDK)');
  }, 60_000);
});
