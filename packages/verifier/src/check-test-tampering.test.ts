import { describe, expect, it } from 'vitest';
import { weakenedAssertions } from './check-test-tampering';

const JS = "test('1 is not prime', () => assert.equal(isPrime(1), false));\n";
const weaken = (line: string) => weakenedAssertions(JS, JS.replace('assert.equal(isPrime(1), false)', line));

describe('weakenedAssertions', () => {
  it.each([
    "assert.equal(typeof isPrime(1), 'boolean')",
    'assert.ok(isPrime(1) !== undefined)',
    'assert.doesNotThrow(() => isPrime(1))',
    'assert.ok(isPrime(1))',
  ])('finds a value check turned into %s', (line) => {
    expect(weaken(line)).toHaveLength(1);
  });

  it('finds a Python equality turned into a truthiness check', () => {
    expect(
      weakenedAssertions(
        'def test_a():\n    assert slugify("A B") == "a-b"\n',
        'def test_a():\n    assert slugify("A B")\n',
      ),
    ).toHaveLength(1);
  });

  it.each([
    "assert.strictEqual(isPrime(1), false, '1 has one divisor')",
    'assert.equal(isPrime(1), true)',
    'assert.deepEqual(isPrime(1), false)',
    'assert.ok(isPrime(1) === false)',
  ])('leaves a value check rewritten as another value check alone: %s', (line) => {
    expect(weaken(line)).toEqual([]);
  });

  it('leaves added assertions alone', () => {
    expect(weakenedAssertions(JS, `${JS}test('0', () => assert.ok(isPrime(0) === false));\n`)).toEqual([]);
  });
});
