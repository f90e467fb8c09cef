import { describe, expect, it } from 'vitest';
import { askedEdgeCases, edgeCaseMissed, passesEdgeValue } from './asked-edge-tests';

describe('askedEdgeCases', () => {
  it.each([
    ['Add a test that sum([]) returns 0', [{ kind: 'empty list', asked: 'sum([])', name: 'sum' }]],
    ["Add a test that format(null) returns 'n/a'", [{ kind: 'null', asked: 'format(null)', name: 'format' }]],
    ['Write a test that factorial(0) is 1', [{ kind: 'zero', asked: 'factorial(0)', name: 'factorial' }]],
    [
      'Add a test that slugify returns "" for an empty string',
      [{ kind: 'empty string', asked: 'an empty string' }],
    ],
    ['Add a test for parse with an empty list', [{ kind: 'empty list', asked: 'an empty list' }]],
    ['Make sum([]) return 0', []],
  ])('%s → %j', (description, cases) => {
    expect(askedEdgeCases(description)).toEqual(cases);
  });
});

describe('passesEdgeValue', () => {
  const sum = { kind: 'empty list', asked: 'sum([])', name: 'sum' } as const;
  const zero = { kind: 'zero', asked: 'factorial(0)', name: 'factorial' } as const;
  const empty = { kind: 'empty string', asked: 'an empty string' } as const;
  it.each([
    ['assert.equal(sum([]), 0);', sum, true],
    ['const none = [];\nassert.equal(sum(none), 0);', sum, true],
    ['assert.equal(sum([0]), 0);', sum, false],
    ['assert factorial(0) == 1', zero, true],
    ['assert factorial(1) == 1', zero, false],
    ['assert slugify("") == ""', empty, true],
    ['assert slugify("a b") == "a-b"', empty, false],
  ])('%s', (code, edge, passes) => {
    expect(passesEdgeValue(code, edge)).toBe(passes);
  });
});

describe('edgeCaseMissed', () => {
  const edge = { kind: 'null', asked: 'format(null)', name: 'format' } as const;
  it('names the test files that never pass the value', async () => {
    const after = "test('null', () => {\n  assert.equal(format('x'), 'x');\n});\n";
    expect(await edgeCaseMissed([{ file: 'test/f.test.js', before: undefined, after }], edge)).toEqual([
      'test/f.test.js',
    ]);
  });

  it('reads only the lines the step added, not a comment', async () => {
    const before = "test('x', () => {\n  assert.equal(format(null), 'n/a');\n});\n";
    const after = `${before}// format(null)\ntest('y', () => {\n  assert.equal(format(1), '1');\n});\n`;
    expect(await edgeCaseMissed([{ file: 'test/f.test.js', before, after }], edge)).toEqual([
      'test/f.test.js',
    ]);
  });

  it('gives no finding without a changed test', async () => {
    expect(await edgeCaseMissed([], edge)).toBeUndefined();
  });
});

describe('passesEdgeValue in parameter rows', () => {
  it.each([
    [
      'test.each([[[], 0], [[1, 2], 3]])("sum", (xs, total) => {\n  assert.equal(sum(xs), total);\n});',
      'empty list',
    ],
    [
      '@pytest.mark.parametrize("n,expected", [(0, 1), (5, 120)])\ndef test_f(n, expected):\n    assert factorial(n) == expected',
      'zero',
    ],
  ] as const)('%s', (code, kind) => {
    expect(passesEdgeValue(code, { kind, asked: 'x', name: kind === 'zero' ? 'factorial' : 'sum' })).toBe(
      true,
    );
  });
});
