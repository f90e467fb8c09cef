import { describe, expect, it } from 'vitest';
import { formatCrashTrialSummary, runCrashTrials } from './run-crash-trials';

describe('crash trials (short form; `pnpm crash-trials -- --trials 200` for the full run)', () => {
  it('SIGKILLed runs and resumes all complete with no duplicated effect and the uninterrupted final state', async () => {
    const summary = await runCrashTrials({
      trials: Number(process.env.CRASH_TRIALS ?? 6),
      ...(process.env.CRASH_SEED ? { seed: Number(process.env.CRASH_SEED) } : {}),
      parallel: 2,
      concurrentChance: 0.5,
    });
    const report = formatCrashTrialSummary(summary);
    expect(summary.failures, report).toEqual([]);
    expect(summary.resumed, report).toBe(summary.trials);
    expect(summary.stuck).toBe(0);
    expect(summary.duplicated).toBe(0);
    expect(summary.equal).toBe(summary.trials);
    expect(summary.concurrent.refused).toBe(summary.concurrent.tried);
    // The trials really crashed.
    expect(summary.killedDuringRun, report).toBeGreaterThanOrEqual(Math.ceil(summary.trials / 2));
  }, 600_000);
});
