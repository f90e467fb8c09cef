import { ConformanceError } from './conformance-error';

/** Options of {@link measureOverhead}. */
export interface MeasureOverheadOptions {
  /** Shown in the printed line (`JSON (generate)`, `SSE (stream)`). */
  label: string;
  /** One call through the raw vendor SDK. */
  raw: () => Promise<unknown>;
  /** The same call through the adapter (same bytes on the wire). */
  adapter: () => Promise<unknown>;
  /** Measured calls per side. Default 1000. */
  calls?: number;
  /** Unmeasured calls per side first (JIT, connection pool). Default 200. */
  warmup?: number;
  /** The budget for the median overhead in ms. Default 0.5. */
  targetMs?: number;
}

/** What {@link measureOverhead} found. Times in milliseconds. */
export interface OverheadResult {
  label: string;
  calls: number;
  rawMedianMs: number;
  adapterMedianMs: number;
  /** `adapterMedianMs - rawMedianMs`: the figure compared with the target. */
  overheadMs: number;
  /** The median of the per-pair differences (a second, drift-resistant view). */
  pairedOverheadMs: number;
  targetMs: number;
  /** `overheadMs < targetMs`. */
  pass: boolean;
}

/** The median of a list of numbers (0 for an empty list). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0
    ? ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
    : (sorted[middle] ?? 0);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

function invalidOption(message: string): never {
  throw new ConformanceError({ code: 'invalid-options', message: `measureOverhead: ${message}` });
}

/**
 * Measures what an adapter adds on top of its vendor SDK: `calls` pairs of calls, raw SDK and
 * adapter interleaved (alternating which goes first, so drift and GC hit both sides alike),
 * after `warmup` pairs. Point both at the same loopback server reply so only the adapter's own
 * work differs.
 *
 * @example
 * const result = await measureOverhead({ label: 'JSON', raw: () => client.chat.completions.create(body),
 *   adapter: () => model.doGenerate(request) });
 * console.log(formatOverheadResult(result));
 */
export async function measureOverhead(options: MeasureOverheadOptions): Promise<OverheadResult> {
  const { label, raw, adapter, calls = 1000, warmup = 200, targetMs = 0.5 } = options;
  if (!Number.isInteger(calls) || calls < 1) invalidOption(`calls must be an integer >= 1, got ${calls}`);
  if (!Number.isInteger(warmup) || warmup < 0) invalidOption(`warmup must be an integer >= 0, got ${warmup}`);
  if (!Number.isFinite(targetMs) || targetMs <= 0)
    invalidOption(`targetMs must be a positive number, got ${targetMs}`);
  if (typeof raw !== 'function' || typeof adapter !== 'function') {
    invalidOption('raw and adapter must be functions returning promises');
  }
  for (let i = 0; i < warmup; i++) {
    await raw();
    await adapter();
  }
  const rawTimes: number[] = [];
  const adapterTimes: number[] = [];
  const differences: number[] = [];
  for (let i = 0; i < calls; i++) {
    let rawMs: number;
    let adapterMs: number;
    if (i % 2 === 0) {
      rawMs = await time(raw);
      adapterMs = await time(adapter);
    } else {
      adapterMs = await time(adapter);
      rawMs = await time(raw);
    }
    rawTimes.push(rawMs);
    adapterTimes.push(adapterMs);
    differences.push(adapterMs - rawMs);
  }
  const rawMedianMs = median(rawTimes);
  const adapterMedianMs = median(adapterTimes);
  const overheadMs = adapterMedianMs - rawMedianMs;
  return {
    label,
    calls,
    rawMedianMs,
    adapterMedianMs,
    overheadMs,
    pairedOverheadMs: median(differences),
    targetMs,
    pass: overheadMs < targetMs,
  };
}

/** One line: both medians, the overhead, the paired view and PASS/FAIL against the target. */
export function formatOverheadResult(result: OverheadResult): string {
  return (
    `${result.label.padEnd(16)} raw SDK median ${result.rawMedianMs.toFixed(3)} ms | ` +
    `adapter median ${result.adapterMedianMs.toFixed(3)} ms | overhead ${result.overheadMs.toFixed(3)} ms ` +
    `(median of paired differences ${result.pairedOverheadMs.toFixed(3)} ms) | ` +
    `target < ${result.targetMs} ms: ${result.pass ? 'PASS' : 'FAIL'}`
  );
}
