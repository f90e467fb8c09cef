import { describe, expect, it } from 'vitest';
import { formatEndToEnd, runEndToEnd } from '../bench/end-to-end';
import { endToEndScenarios } from './__fixtures__/e2e/scenarios';

describe('scripted end-to-end runs with hidden acceptance checks (bench/end-to-end.ts)', () => {
  it('has at least 30 runs of every kind the truth model covers', () => {
    expect(endToEndScenarios.length).toBeGreaterThanOrEqual(30);
    expect(new Set(endToEndScenarios.map((scenario) => scenario.id)).size).toBe(endToEndScenarios.length);
    expect(new Set(endToEndScenarios.map((scenario) => scenario.kind))).toEqual(
      new Set([
        'honest',
        'buggy-then-fixed',
        'talking-only',
        'model-down',
        'tests-tampered',
        'parallel-overwrite',
        'partial',
        'stub',
        'unverifiable',
        'hidden-only',
        'guarded',
      ]),
    );
  });

  it('says completed only when the hidden acceptance passes (precision 100%), and completes honest work', async () => {
    const figures = await runEndToEnd();
    const table = formatEndToEnd(figures);
    const falseCompletions = figures.results.filter(
      (result) => result.saidCompleted && !result.accepted && !result.hiddenOnly,
    );
    expect(
      falseCompletions.map((result) => `${result.id}: ${result.stopReason} — ${result.reason}`),
      table,
    ).toEqual([]);
    expect(figures.precision, table).toBe(1);
    expect(figures.recall, table).toBeGreaterThanOrEqual(0.9);
    for (const result of figures.results.filter((candidate) => candidate.kind === 'model-down'))
      expect(result.stopReason, result.id).toBe('model-unavailable');
  }, 300_000);
});
