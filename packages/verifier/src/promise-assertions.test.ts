import { describe, expect, it } from 'vitest';
import { asyncNames, importedAsyncNames, truthyPromiseAssertions } from './promise-assertions';

describe('asyncNames', () => {
  it('reads async function declarations and async arrows', () => {
    expect([
      ...asyncNames(
        'export async function total(xs) {}\nexport const load = async () => 1;\nfunction sync() {}\n',
      ),
    ]).toEqual(['total', 'load']);
  });
});

describe('importedAsyncNames', () => {
  it('keeps the imported names the module declares async', () => {
    const files: Record<string, string> = {
      'src/total.js': 'export async function total(xs) {}\nexport function count(xs) {}\n',
    };
    expect([
      ...importedAsyncNames(
        'test/total.test.js',
        "import { total, count } from '../src/total.js';\n",
        (file) => files[file],
        (file) => file in files,
      ),
    ]).toEqual(['total']);
  });
});

describe('truthyPromiseAssertions', () => {
  const names = new Set(['total']);
  it('finds unawaited async calls tested for truthiness', () => {
    expect(
      truthyPromiseAssertions('assert.ok(total([1, 2]));\nexpect(total(x)).toBeDefined();\n', names),
    ).toEqual({
      lines: ['assert.ok(total([1, 2]));', 'expect(total(x)).toBeDefined();'],
      all: true,
    });
  });
  it('leaves awaited calls and value comparisons alone', () => {
    expect(
      truthyPromiseAssertions('assert.ok(await total([1, 2]));\nassert.equal(await total([1]), 1);\n', names)
        .lines,
    ).toEqual([]);
    expect(
      truthyPromiseAssertions('assert.ok(total([1]));\nassert.equal(await total([1]), 1);\n', names).all,
    ).toBe(false);
  });
});
