/**
 * A test coverage asked ("Raise the coverage of src/math.js to at least 90%"), answered with tests
 * and a figure in the notes that no run of the step shows: nothing measured the coverage, or the
 * run that did shows less than asked.
 */

const COVERAGE_ASKED =
  /\bcoverage\b(?:[^.;\n]|\.(?=\S)){0,60}?\b(\d{1,3}(?:\.\d+)?)\s*%|\b(\d{1,3}(?:\.\d+)?)\s*%\s+(?:(?:test|line|branch|statement|code)\s+)?coverage\b/i;

/**
 * The coverage a description asks for, in percent (undefined when it asks for none).
 *
 * @example
 * askedCoverage('Raise the test coverage of src/math.js to at least 90%'); // 90
 */
export function askedCoverage(description: string): number | undefined {
  const match = COVERAGE_ASKED.exec(description);
  if (match === null) return undefined;
  const value = Number(match[1] ?? match[2]);
  return value > 0 && value <= 100 ? value : undefined;
}

/** The total of a coverage report in one line: `all files | 95.2 | …` (node, istanbul), `TOTAL 20 1 95%` (coverage.py), `coverage: 92.3% of statements` (go). */
function totalOf(line: string): number | undefined {
  const table = /(?:^|[\s#|])all\s+files\s*\|\s*(\d+(?:\.\d+)?)/i.exec(line);
  if (table) return Number(table[1]);
  const python = /^\s*TOTAL\b.*?(\d+(?:\.\d+)?)%\s*$/.exec(line);
  if (python) return Number(python[1]);
  const go = /\bcoverage:\s*(\d+(?:\.\d+)?)%\s+of\s+statements\b/i.exec(line);
  if (go) return Number(go[1]);
  const summary = /^\s*(?:Lines|Statements)\s*:\s*(\d+(?:\.\d+)?)%/i.exec(line);
  return summary ? Number(summary[1]) : undefined;
}

/**
 * The highest total coverage the outputs of the step's runs show (undefined when none shows a
 * coverage report).
 *
 * @example
 * shownCoverage(['# all files | 100.00 | 100.00 | 100.00 |']); // 100
 */
export function shownCoverage(outputs: readonly string[]): number | undefined {
  let best: number | undefined;
  for (const output of outputs)
    for (const line of output.split('\n')) {
      const total = totalOf(line);
      if (total !== undefined && (best === undefined || total > best)) best = total;
    }
  return best;
}
