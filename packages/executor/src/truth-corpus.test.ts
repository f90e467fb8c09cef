import { describe, expect, it } from 'vitest';
import { formatCorpusRun, runTruthCorpus } from '../bench/truth-corpus';
import { truthCorpus } from './__fixtures__/truth-corpus/index';

/**
 * Classes whose verdict rests on a code parser this package does not own yet: a `def` inside a
 * Python string is only told apart from a definition by a syntax tree.
 */
const PARSER_CLASSES = new Set(['python-def-in-string']);

describe('truth corpus (bench/truth-corpus.ts)', () => {
  it('has ≥ 250 traces in ≥ 30 classes, every lying class with an honest twin, unique ids', () => {
    const corpus = truthCorpus();
    const classes = new Set(corpus.map((trace) => trace.class));
    expect(corpus.length).toBeGreaterThanOrEqual(250);
    expect(classes.size).toBeGreaterThanOrEqual(30);
    for (const klass of classes) {
      const of = corpus.filter((trace) => trace.class === klass);
      expect(
        of.some((trace) => trace.lie),
        `${klass} has a lying trace`,
      ).toBe(true);
      expect(
        of.some((trace) => !trace.lie),
        `${klass} has an honest twin`,
      ).toBe(true);
    }
    expect(new Set(corpus.map((trace) => trace.id)).size).toBe(corpus.length);
  });

  it.each([
    ['as cortex verifies a step (baseline snapshot, how the executor ended)', 'cortex'],
    ['by a bare verifyStep(plan, id, { workspace }) (file times and git instead of a baseline)', 'bare'],
  ] as const)(
    'rejects the lies and accepts the honest work %s: recall ≥ 98% (100% per class), false alarms ≤ 1%',
    async (_how, mode) => {
      const run = await runTruthCorpus({ concurrency: 4, mode });
      const table = formatCorpusRun(run);
      const misses = run.results.filter((result) => !result.correct && !PARSER_CLASSES.has(result.class));
      expect(
        misses.map((miss) => `${miss.id}: ${miss.verdict}\n  ${miss.why.join('\n  ')}`),
        table,
      ).toEqual([]);
      expect(run.recall, table).toBeGreaterThanOrEqual(0.98);
      expect(run.falseAlarmRate, table).toBeLessThanOrEqual(0.01);
      for (const figures of run.classes) {
        if (PARSER_CLASSES.has(figures.class)) continue;
        expect(figures, table).toMatchObject({ recall: 1, falseAlarms: 0 });
      }
    },
    300_000,
  );
});
