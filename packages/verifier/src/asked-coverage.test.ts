import { describe, expect, it } from 'vitest';
import { askedCoverage, shownCoverage } from './asked-coverage';

describe('asked coverage', () => {
  it('reads the coverage asked', () => {
    expect(askedCoverage('Raise the test coverage of src/math.js to at least 90%')).toBe(90);
    expect(askedCoverage('Get to 80% line coverage')).toBe(80);
    expect(askedCoverage('Add tests for sum')).toBeUndefined();
    expect(askedCoverage('Cut the bundle size by 30%')).toBeUndefined();
  });

  it('reads the total a coverage report shows, or none', () => {
    expect(shownCoverage(['ℹ # all files | 100.00 |  100.00 |  100.00 |'])).toBe(100);
    expect(shownCoverage(['All files |   85.5 |    70 |   90 |   85.5 |'])).toBe(85.5);
    expect(shownCoverage(['TOTAL                 20      1    95%'])).toBe(95);
    expect(shownCoverage(['ok  demo  0.1s  coverage: 92.3% of statements'])).toBe(92.3);
    expect(shownCoverage(['# pass 4\n# fail 0'])).toBeUndefined();
  });
});
