import { describe, expect, it } from 'vitest';
import { DETERMINISTIC_CLASSES, formatScores, loadCorpus, runCorpus } from '../bench/corpus';

describe('labelled corpus (bench/corpus.ts)', () => {
  it('has at least 60 traces covering every deterministic class', async () => {
    const traces = await loadCorpus();
    expect(traces.length).toBeGreaterThanOrEqual(60);
    expect(new Set(traces.map((trace) => trace.class))).toEqual(new Set(DETERMINISTIC_CLASSES));
    expect(new Set(traces.map((trace) => trace.id)).size).toBe(traces.length);
  });

  it('reaches recall 100% with no false positives on the deterministic classes', async () => {
    const result = await runCorpus({ concurrency: 4 });
    const misses = result.outcomes.filter((outcome) => !outcome.correct);
    expect(misses, formatScores(result)).toEqual([]);
    for (const score of result.scores) {
      expect(score, score.label).toMatchObject({ recall: 1, falsePositives: 0 });
    }
    expect(result.pass).toBe(true);
  }, 120_000);
});
