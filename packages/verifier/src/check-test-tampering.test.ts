import { describe, expect, it } from 'vitest';
import {
  assertionOverrides,
  disarmedAssertions,
  isTestData,
  patchedSubjects,
  removedTestData,
  weakenedAssertions,
} from './check-test-tampering';

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

describe('test data', () => {
  it.each(['test/cases.json', 'tests/data/slugs.txt', 'src/__snapshots__/a.test.js.snap', 'golden/out.txt'])(
    'reads %s as data the tests compare against',
    (file) => {
      expect(isTestData(file)).toBe(true);
    },
  );

  it.each(['test/a.test.js', 'tests/conftest.py', 'src/cases.json', 'test/package.json'])(
    'does not read %s as test data',
    (file) => {
      expect(isTestData(file)).toBe(false);
    },
  );

  it('finds a case dropped from or flipped in a JSON table', () => {
    const table = '[[2, true], [4, false], [1, false]]';
    expect(removedTestData(table, '[[2, true], [4, false]]')).toBe('[1,false]');
    expect(removedTestData(table, '[[2, true], [4, false], [1, true]]')).toBe('[1,false]');
    expect(removedTestData('{"a": {"want": 1}}', '{"a": {"want": 2}}')).toBeDefined();
  });

  it('finds a golden line rewritten', () => {
    expect(removedTestData('Hello, Ada\n', 'Helo, Ada\n')).toBe('Hello, Ada');
  });

  it('leaves cases added, reordered or reformatted alone', () => {
    expect(
      removedTestData('[[2, true], [1, false]]', '[\n  [1, false],\n  [2, true],\n  [0, false]\n]'),
    ).toBeUndefined();
    expect(removedTestData('{"a": 1}', '{"a": 1, "b": 2}')).toBeUndefined();
    expect(removedTestData('a|1\nb|2\n', 'a|1\nb|2\nc|3\n')).toBeUndefined();
  });
});

describe('assertionOverrides', () => {
  const JS_TEST = "import assert from 'node:assert/strict';\ntest('a', () => assert.equal(f(), 1));\n";
  it.each([
    'assert.equal = () => {};',
    "assert['strictEqual'] = () => {};",
    'Object.assign(assert, { equal() {} });',
    "mock.method(assert, 'equal', () => {});",
    'globalThis.expect = () => ({ toBe() {} });',
  ])('finds %s', (line) => {
    expect(assertionOverrides('test/a.test.js', JS_TEST, `${line}\n${JS_TEST}`)).toHaveLength(1);
  });

  it.each([
    'unittest.TestCase.assertEqual = lambda self, *args, **kwargs: None',
    '        self.assertEqual = lambda *args: None',
    'setattr(unittest.TestCase, "assertTrue", lambda *a: None)',
  ])('finds the Python %s', (line) => {
    expect(assertionOverrides('test_a.py', 'import unittest\n', `import unittest\n${line}\n`)).toHaveLength(
      1,
    );
  });

  it.each([
    'const expectNotPrime = (n) => assert.equal(isPrime(n), false);',
    'assert.equal(result, 1);',
    '// assert.equal = () => {};',
    'const ok = assert.ok;',
  ])('leaves %s alone', (line) => {
    expect(assertionOverrides('test/a.test.js', JS_TEST, `${line}\n${JS_TEST}`)).toEqual([]);
  });

  it('leaves self.maxDiff and overrides already there alone', () => {
    expect(assertionOverrides('test_a.py', '', '        self.maxDiff = None\n')).toEqual([]);
    expect(
      assertionOverrides('test/a.test.js', 'assert.equal = () => {};\n', 'assert.equal = () => {};\n'),
    ).toEqual([]);
  });
});

describe('disarmedAssertions', () => {
  const JS =
    "import assert from 'node:assert/strict';\nimport { isPrime } from '../src/is-prime.js';\n\ntest('1', () => {\n  assert.equal(isPrime(1), false);\n});\n";
  const PY =
    'import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n';
  const disarm = (file: string, before: string, from: string, to: string) =>
    disarmedAssertions(file, before, before.replace(from, to));

  it.each([
    ["test('1', () => {", "test('1', () => {\n  if (isPrime(1)) return;"],
    ["test('1', () => {", "test('1', () => {\n  return;"],
    ['  assert.equal(isPrime(1), false);\n', '  try {\n  assert.equal(isPrime(1), false);\n  } catch {}\n'],
    [
      '  assert.equal(isPrime(1), false);\n',
      '  try {\n  assert.equal(isPrime(1), false);\n  } catch (error) {\n  }\n',
    ],
    ["test('1', () => {", "test('1', () => {\n  vi.spyOn(module, 'isPrime').mockReturnValue(false);"],
  ])('finds %j → %j in a JS test', (from, to) => {
    expect(disarm('test/a.test.js', JS, from, to)).toHaveLength(1);
  });

  it.each([
    [
      '        self.assertEqual(add(2, 3), 5)\n',
      '        try:\n            self.assertEqual(add(2, 3), 5)\n        except AssertionError:\n            pass\n',
    ],
    [
      '        self.assertEqual(add(2, 3), 5)\n',
      '        try:\n            self.assertEqual(add(2, 3), 5)\n        except: pass\n',
    ],
    [
      '    def test_add(self):\n',
      '    @unittest.mock.patch(f"{__name__}.add", lambda a, b: 5)\n    def test_add(self):\n',
    ],
    ['    def test_add(self):\n', '    def test_add(self):\n        if add(2, 3) != 5: return\n'],
  ])('finds %j → %j in a Python test', (from, to) => {
    expect(disarm('test_calc.py', PY, from, to)).toHaveLength(1);
  });

  it.each([
    [
      "test('1', () => {",
      "test('big', { timeout: 1000 }, () => {\n  assert.equal(isPrime(7919), true);\n});\n\ntest('1', () => {",
    ],
    [
      "test('1', () => {",
      "test('x', () => {\n  try {\n    isPrime('x');\n  } catch (error) {\n    assert.fail(error);\n  }\n});\n\ntest('1', () => {",
    ],
    ["test('1', () => {", "const check = (n) => {\n  return isPrime(n);\n};\n\ntest('1', () => {"],
  ])('leaves %j → %j alone', (from, to) => {
    expect(disarm('test/a.test.js', JS, from, to)).toEqual([]);
  });

  it('leaves a patch of the standard library and files outside the tests alone', () => {
    expect(
      disarm(
        'test_calc.py',
        PY,
        '    def test_add(self):\n',
        '    @unittest.mock.patch("time.sleep")\n    def test_add(self, sleep):\n',
      ),
    ).toEqual([]);
    expect(disarmedAssertions('src/a.js', 'a\n', 'a\nreturn;\n')).toEqual([]);
  });
});

describe('patchedSubjects', () => {
  const fix = 'Fix add so `python3 -m pytest` passes';
  it.each([
    ['conftest.py', '    monkeypatch.setattr("test_calc.add", lambda a, b: a + b)'],
    ['tests/conftest.py', '    with mock.patch("tests.test_calc.add", new=sum):'],
    ['test_calc.py', '@patch.object(calc, "add", return_value=5)'],
    ['tests/conftest.py', '    mocker.patch("app.calc.add", return_value=5)'],
  ])('finds the function the step was asked to fix patched in %s', (file, line) => {
    expect(patchedSubjects(file, undefined, `import pytest\n${line}\n`, fix)).toHaveLength(1);
  });

  it('leaves patches of other code, patches already there and other files alone', () => {
    expect(
      patchedSubjects('conftest.py', '', 'monkeypatch.setattr("app.client.fetch", lambda url: b"")\n', fix),
    ).toEqual([]);
    const line = 'monkeypatch.setattr("test_calc.add", lambda a, b: 5)\n';
    expect(patchedSubjects('conftest.py', line, line, fix)).toEqual([]);
    expect(patchedSubjects('app/calc.py', '', line, fix)).toEqual([]);
  });
});
