import { describe, expect, it } from 'vitest';
import { parseTestCounts } from './parse-test-counts';

describe('parseTestCounts', () => {
  it('parses node --test TAP and spec summaries', () => {
    expect(
      parseTestCounts(
        'ok 1\n1..2\n# tests 3\n# suites 0\n# pass 2\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n',
      ),
    ).toEqual({
      format: 'node-test',
      passed: 2,
      failed: 1,
      skipped: 0,
      total: 3,
    });
    expect(parseTestCounts('ℹ tests 4\nℹ pass 4\nℹ fail 0\nℹ skipped 0\n')).toMatchObject({
      passed: 4,
      failed: 0,
      total: 4,
    });
  });

  it('parses vitest, with colours', () => {
    const out =
      '\u001b[2m Test Files \u001b[22m 1 failed | 2 passed (3)\n\u001b[2m      Tests \u001b[22m 1 failed | 5 passed | 1 skipped (7)\n';
    expect(parseTestCounts(out)).toEqual({ format: 'vitest', passed: 5, failed: 1, skipped: 1, total: 7 });
  });

  it('parses jest, pytest and mocha', () => {
    expect(
      parseTestCounts('Test Suites: 1 failed, 1 total\nTests:       1 failed, 2 passed, 3 total\n'),
    ).toEqual({
      format: 'jest',
      passed: 2,
      failed: 1,
      skipped: 0,
      total: 3,
    });
    expect(parseTestCounts('===== 1 failed, 3 passed, 1 skipped in 0.12s =====')).toEqual({
      format: 'pytest',
      passed: 3,
      failed: 1,
      skipped: 1,
      total: 5,
    });
    expect(parseTestCounts('3 passed in 0.01s')).toMatchObject({ format: 'pytest', passed: 3, failed: 0 });
    expect(parseTestCounts('  4 passing (12ms)\n  1 failing\n')).toEqual({
      format: 'mocha',
      passed: 4,
      failed: 1,
      skipped: 0,
      total: 5,
    });
  });

  it('returns undefined without a known summary', () => {
    expect(parseTestCounts('all good!')).toBeUndefined();
  });
});

describe('parseTestCounts: more runners', () => {
  it.each([
    [
      'test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured\n',
      { format: 'cargo', passed: 3, failed: 0, skipped: 1, total: 4 },
    ],
    [
      '=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\n',
      { format: 'go', passed: 1, failed: 1, total: 2 },
    ],
    [
      '..\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nOK\n',
      { format: 'unittest', passed: 2, failed: 0, total: 2 },
    ],
    ['5 examples, 1 failure, 1 pending\n', { format: 'rspec', passed: 3, failed: 1, skipped: 1, total: 5 }],
    [
      '1..3\nok 1 - a\nnot ok 2 - b\nok 3 - c # SKIP\n',
      { format: 'tap', passed: 1, failed: 1, skipped: 1, total: 3 },
    ],
  ])('%j', (output, expected) => {
    expect(parseTestCounts(output)).toMatchObject(expected);
  });
});

describe('parseTestCounts on Node 22+ (a file that ran no test is reported as a test)', () => {
  it('counts a filtered-out file as zero tests (TAP)', () => {
    const output = [
      'TAP version 13',
      '1..0',
      '# Subtest: test/a.test.mjs',
      'ok 1 - test/a.test.mjs',
      '  ---',
      '  duration_ms: 36.5',
      "  type: 'test'",
      '  ...',
      '1..1',
      '# tests 1',
      '# suites 0',
      '# pass 1',
      '# fail 0',
      '# cancelled 0',
      '# skipped 0',
      '# todo 0',
    ].join('\n');
    expect(parseTestCounts(output)).toMatchObject({ format: 'node-test', passed: 0, failed: 0, total: 0 });
  });

  it('keeps the real tests and drops only the empty file (TAP and spec)', () => {
    const tap = [
      '# Subtest: adds',
      'ok 1 - adds',
      '1..0',
      '# Subtest: test/b.test.mjs',
      'ok 2 - test/b.test.mjs',
      '1..2',
      '# tests 2',
      '# pass 2',
      '# fail 0',
    ].join('\n');
    expect(parseTestCounts(tap)).toMatchObject({ passed: 1, total: 1 });
    const spec = [
      '✔ adds (0.405663ms)',
      '✔ test/b.test.mjs (33.72474ms)',
      'ℹ tests 2',
      'ℹ pass 2',
      'ℹ fail 0',
    ].join('\n');
    expect(parseTestCounts(spec)).toMatchObject({ passed: 1, total: 1 });
  });
});
