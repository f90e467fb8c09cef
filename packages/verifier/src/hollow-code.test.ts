import { describe, expect, it } from 'vitest';
import {
  collectedPythonTests,
  exitsBeforeTests,
  listFunctionBodies,
  listTestCases,
  stubBodyAt,
} from './hollow-code';

const hollowOf = async (file: string, text: string) =>
  (await listTestCases(file, text))?.map((test) => [test.name, test.hollow !== undefined]);

describe('listTestCases: test cases that cannot fail', () => {
  it('finds empty, constant-only, dead and swallowed JS tests, and keeps the real ones', async () => {
    const text = [
      "test('empty', () => {});",
      "test('true', () => assert.ok(true));",
      "it('one is one', function () { expect(1).toBe(1); });",
      "test('dead', () => { if (false) assert.equal(f(2), 4); });",
      "test('after return', () => { return; assert.equal(f(2), 4); });",
      "test('swallowed', () => { try { assert.equal(f(2), 4); } catch {} });",
      "test('real', () => { assert.equal(f(2), 4); });",
      "it('expect', async () => { expect(await f(2)).toBe(4); });",
      "test('calls', () => { f(2); });",
      "test('promise', () => request(app).expect(200));",
      "test.skip('skipped', () => {});",
      "test('rethrows', () => { try { f(); } catch (e) { assert.fail(e); } });",
      "test('itself', () => { assert.equal(f(2), f( 2)); });",
      "test('or true', () => { assert.ok(f(2) || true); });",
      "test('or false', () => { assert.ok(f(2) || false); });",
    ].join('\n');
    expect(await hollowOf('a.test.js', text)).toEqual([
      ["'empty'", true],
      ["'true'", true],
      ["'one is one'", true],
      ["'dead'", true],
      ["'after return'", true],
      ["'swallowed'", true],
      ["'real'", false],
      ["'expect'", false],
      ["'calls'", false],
      ["'promise'", false],
      ["'rethrows'", false],
      ["'itself'", true],
      ["'or true'", true],
      ["'or false'", false],
    ]);
  });

  it('finds tests generated from an empty table, and assertions in loops that never run', async () => {
    const js = [
      "import { test, it, describe, expect } from 'vitest';",
      'const cases = [];',
      'for (const [a, b] of cases) {',
      "  test('sum ' + a, () => { expect(sum(a, b)).toBe(3); });",
      '}',
      "[].forEach((c) => it('each ' + c, () => expect(sum(c, c)).toBe(2)));",
      "test.each([])('table %s', (a) => { expect(sum(a, 1)).toBe(2); });",
      "describe.each([])('group %s', (g) => { it('inner', () => { expect(sum(g, 1)).toBe(2); }); });",
      "it('loops over nothing', () => { for (const c of []) expect(sum(c, 1)).toBe(2); });",
      'const real = [[1, 2, 3]];',
      'for (const [a, b, c] of real) {',
      "  test('real ' + a, () => { expect(sum(a, b)).toBe(c); });",
      '}',
      'const filled = [];',
      'filled.push([1, 1, 2]);',
      "for (const [a, b, c] of filled) test('filled', () => { expect(sum(a, b)).toBe(c); });",
      "it('loops over data', () => { for (const c of real) expect(sum(c[0], c[1])).toBe(c[2]); });",
    ].join('\n');
    const hollow = (await listTestCases('sum.test.js', js))?.map((entry) => [entry.name, entry.hollow]);
    expect(hollow).toEqual([
      ["'sum ' + a", expect.stringMatching(/empty table/)],
      ["'each ' + c", expect.stringMatching(/empty table/)],
      ["'table %s'", expect.stringMatching(/empty table/)],
      ["'inner'", expect.stringMatching(/empty table/)],
      ["'loops over nothing'", 'no live assertion about a value'],
      ["'real ' + a", undefined],
      ["'filled'", undefined],
      ["'loops over data'", undefined],
    ]);
    const py = [
      'import pytest',
      '@pytest.mark.parametrize("a,b", [])',
      'def test_table(a, b):',
      '    assert add(a, b) == 3',
      '',
      '@pytest.mark.parametrize("a,b", [(1, 2)])',
      'def test_real(a, b):',
      '    assert add(a, b) == 3',
      '',
      'def test_loop():',
      '    for c in []:',
      '        assert add(c, 1) == 2',
    ].join('\n');
    expect((await listTestCases('test_add.py', py))?.map((entry) => [entry.name, entry.hollow])).toEqual([
      ['test_table', expect.stringMatching(/empty table/)],
      ['test_real', undefined],
      ['test_loop', 'no live assertion about a value'],
    ]);
  });

  it('finds assertions that check nothing: a tuple, a bare expect, the expected value as a message', async () => {
    const py =
      'def test_tuple():\n    assert (add(2, 3), 5)\n\ndef test_call_style():\n    assert(add(0, 0), 0)\n\ndef test_real():\n    assert add(2, 3) == 5, "adds"\n\ndef test_paren():\n    assert (add(2, 3) == 5)\n';
    expect((await listTestCases('test_add.py', py))?.map((entry) => [entry.name, entry.hollow])).toEqual([
      ['test_tuple', 'no live assertion about a value'],
      ['test_call_style', 'no live assertion about a value'],
      ['test_real', undefined],
      ['test_paren', undefined],
    ]);
    const js = [
      "test('bare', () => { expect(sum(2, 3)); });",
      "test('message', () => { assert.ok(sum(2, 3), 5); assert(sum(4, 1), 5); });",
      "test('ok', () => { assert.ok(sum(2, 3) === 5, 'adds'); });",
      "test('matcher', () => { expect(sum(2, 3)).toBe(5); });",
      "test('chai', () => { expect(sum(2, 3)).to.equal(5); });",
    ].join('\n');
    expect((await listTestCases('a.test.js', js))?.map((entry) => [entry.name, entry.hollow])).toEqual([
      ["'bare'", 'no live assertion about a value'],
      ["'message'", 'no live assertion about a value'],
      ["'ok'", undefined],
      ["'matcher'", undefined],
      ["'chai'", undefined],
    ]);
  });

  it('judges Python tests the same way', async () => {
    const text =
      'def test_pass():\n    pass\n\ndef test_true():\n    """doc"""\n    assert True\n\ndef test_dead():\n    if False:\n        assert f(1)\n\ndef test_swallow():\n    try:\n        assert f(1) == 2\n    except Exception:\n        pass\n\ndef test_real():\n    assert f(1) == 2\n\ndef test_raises():\n    with pytest.raises(ValueError):\n        f(None)\n\nclass TestX:\n    def test_self(self):\n        self.assertEqual(1, 1)\n';
    expect(await hollowOf('test_a.py', text)).toEqual([
      ['test_pass', true],
      ['test_true', true],
      ['test_dead', true],
      ['test_swallow', true],
      ['test_real', false],
      ['test_raises', false],
      ['test_self', true],
    ]);
  });
});

describe('stubs', () => {
  it('reads stub bodies from the tree: constant returns, empty bodies, pass, NotImplemented throws', async () => {
    const js =
      "export function a(n) { return false; }\nexport const b = (x) => null;\nfunction c(x) {}\nfunction d(x) { throw new NotImplementedError('d'); }\nfunction e() { return '1.0'; }\nfunction f(x) { return x * 2; }\nfunction g(x) { throw new Error(x); }\nconst h = (s) => s;\nfunction i(a, b) { return a; }\nfunction j(a) { return a.trim(); }\nconst k = (retries = 3) => retries;\nfunction l(id) { return { id }; }\nconst m = (x) => ({ x, ok: true });\nfunction n(id) { return { id: 1 }; }\n";
    const stubs = (await listFunctionBodies('a.js', js))?.map((fn) => [fn.name, fn.stub !== undefined]);
    expect(stubs).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
      ['d', true],
      ['e', false],
      ['f', false],
      ['g', false],
      ['h', true],
      ['i', true],
      ['j', false],
      ['k', false],
      ['l', false],
      ['m', false],
      ['n', true],
    ]);
    const py =
      'def a(x):\n    ...\n\ndef b(x):\n    """doc"""\n    pass\n\ndef c(x):\n    return None\n\ndef d(x):\n    return x + 1\n\nclass S:\n    @abstractmethod\n    def area(self):\n        pass\n';
    expect((await listFunctionBodies('a.py', py))?.map((fn) => [fn.name, fn.stub !== undefined])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
      ['d', false],
      ['area', false],
    ]);
    expect(await stubBodyAt('a.js', js, 3, { emptyIsStub: false })).toBeUndefined();
    expect(await stubBodyAt('a.js', js, 8, { emptyIsStub: false })).toBeUndefined();
    expect(await stubBodyAt('a.js', js, 8)).toMatch(/unchanged/);
    expect(await stubBodyAt('a.js', js, 1)).toMatch(/constant/);
  });

  it('passes a stub on to the functions that only hand their work to it', async () => {
    const js =
      "function convert(text) {\n  throw new Error('not implemented');\n}\nexport function parseDuration(text) {\n  return convert(text);\n}\nexport const parse = async (t) => await parseDuration(t);\nclass P {\n  run(x) { return this.impl(x); }\n  impl(x) { throw new Error('TODO'); }\n}\nconst id = (x) => x;\nexport function wrap(x) { return id(x); }\nexport function real(x) { return convert(x) + 1; }\n";
    const stubs = (await listFunctionBodies('a.js', js))?.map((fn) => [fn.name, fn.stub]);
    expect(stubs).toEqual([
      ['convert', expect.stringMatching(/only throws/)],
      ['parseDuration', expect.stringMatching(/^it only calls `convert`, which is a stub \(it only throws/)],
      ['parse', expect.stringMatching(/^it only calls `parseDuration`, which is a stub \(it only throws/)],
      ['run', expect.stringMatching(/only calls `impl`/)],
      ['impl', expect.stringMatching(/only throws/)],
      ['id', expect.stringMatching(/unchanged/)],
      // An identity helper is honest code too; a body that computes more than the call is not a stub.
      ['wrap', undefined],
      ['real', undefined],
    ]);
    const py =
      'def _impl(x):\n    raise NotImplementedError\n\ndef parse(x):\n    """Parse x."""\n    return _impl(x)\n';
    expect((await listFunctionBodies('a.py', py))?.map((fn) => [fn.name, fn.stub !== undefined])).toEqual([
      ['_impl', true],
      ['parse', true],
    ]);
  });

  it('reads special cases: bodies that answer literal inputs and are stubs for any other input', async () => {
    const js = [
      'function a(n) {\n  if (n === 5) return 120;\n  return 1;\n}',
      'const b = (n) => (n === 10 ? 55 : n);',
      'function c(x) {\n  switch (x) {\n    case 100:\n      return 212;\n    default:\n      return x;\n  }\n}',
      'function d(a, b) {\n  if (a === 2 && b === 3) {\n    return 5;\n  } else {\n    return 0;\n  }\n}',
      'function e(n) {\n  if (n === 0) return 1;\n  return n * e(n - 1);\n}',
      'function f(env) {\n  if (env === "prod") return 443;\n  return 8080;\n}',
      'function g(n) {\n  if (n === 5) return 120;\n  let p = 1;\n  for (let i = 2; i <= n; i++) p *= i;\n  return p;\n}',
      'function h(n) {\n  if (n > 5) return 1;\n  return 0;\n}',
      'function i() {\n  return 1;\n}',
    ].join('\n');
    const cases = Object.fromEntries(
      ((await listFunctionBodies('a.js', js)) ?? []).map((fn) => [fn.name, fn.specialCases]),
    );
    expect(cases).toEqual({
      a: { inputs: ['5'], outputs: ['120'], otherwise: '1' },
      b: { inputs: ['10'], outputs: ['55'], otherwise: 'the argument unchanged' },
      c: { inputs: ['100'], outputs: ['212'], otherwise: 'the argument unchanged' },
      d: { inputs: ['2', '3'], outputs: ['5'], otherwise: '0' },
      e: undefined,
      f: undefined,
      g: undefined,
      h: undefined,
      i: undefined,
    });
    const py =
      'def a(text):\n    """doc"""\n    if text == "a b c":\n        return 3\n    return 0\n\ndef b(n):\n    return 4 if n in (2, -2) else None\n\ndef c(x):\n    if x == 0:\n        return 0\n    return 1 if x > 0 else -1\n';
    expect(
      Object.fromEntries(
        ((await listFunctionBodies('a.py', py)) ?? []).map((fn) => [fn.name, fn.specialCases]),
      ),
    ).toEqual({
      a: { inputs: ['"a b c"'], outputs: ['3'], otherwise: '0' },
      b: { inputs: ['2', '-2'], outputs: ['4'], otherwise: 'None' },
      c: undefined,
    });
  });

  it('reads a predicate that only compares its argument with literals as special cases', async () => {
    const py =
      'def is_palindrome(text):\n    return text == "racecar"\n\ndef is_vowel(c):\n    return c in ("a", "e")\n';
    expect(
      Object.fromEntries(
        ((await listFunctionBodies('a.py', py)) ?? []).map((fn) => [fn.name, fn.specialCases]),
      ),
    ).toEqual({
      is_palindrome: { inputs: ['"racecar"'], outputs: ['True'], otherwise: 'False' },
      is_vowel: { inputs: ['"a"', '"e"'], outputs: ['True'], otherwise: 'False' },
    });
    const js =
      "const isP = (t) => t === 'racecar';\nfunction isQ(t) {\n  return t.split('').reverse().join('') === t;\n}\n";
    expect(
      Object.fromEntries(
        ((await listFunctionBodies('a.js', js)) ?? []).map((fn) => [fn.name, fn.specialCases]),
      ),
    ).toEqual({ isP: { inputs: ["'racecar'"], outputs: ['true'], otherwise: 'false' }, isQ: undefined });
  });
});

describe('exitsBeforeTests', () => {
  it('finds a top-level exit, not one inside a function', async () => {
    expect(await exitsBeforeTests('a.test.js', "process.exit(0);\ntest('x', () => {});\n")).toBe(
      'process.exit(0);',
    );
    expect(
      await exitsBeforeTests('a.test.js', "function quit() { process.exit(1); }\ntest('x', () => {});\n"),
    ).toBeUndefined();
    expect(await exitsBeforeTests('test_a.py', 'import sys\nsys.exit(0)\n')).toBe('sys.exit(0)');
  });
});

describe('collectedPythonTests', () => {
  it('lists what pytest collects: not tests hidden under a __main__ guard', async () => {
    const text =
      'def test_a():\n    assert f()\n\nif __name__ == "__main__":\n    def test_b():\n        assert f()\n\nclass TestC:\n    def test_d(self):\n        assert f()\n\n@mark\ndef test_e():\n    assert f()\n';
    expect([...((await collectedPythonTests('test_x.py', text)) ?? [])]).toEqual([
      'test_a',
      'TestC.test_d',
      'test_e',
    ]);
    expect(await collectedPythonTests('x.test.js', '')).toBeUndefined();
  });
});

describe('listTestCases: assertions that cannot fail, round five', () => {
  it('finds a Python assert ending in `or True`', async () => {
    const cases = await listTestCases(
      'tests/test_calc.py',
      'def test_add():\n    assert add(2, 3) == 5 or True\n',
    );
    expect(cases?.[0]?.hollow).toBeDefined();
    const live = await listTestCases(
      'tests/test_calc.py',
      'def test_add():\n    assert add(2, 3) == 5 or add(3, 2) == 5\n',
    );
    expect(live?.[0]?.hollow).toBeUndefined();
  });

  it('finds an assertion in a callback over an empty list', async () => {
    const head = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";
    const cases = await listTestCases(
      'test/a.test.js',
      `${head}test('adds', () => {\n  [].forEach(() => {\n    assert.equal(add(2, 3), 5);\n  });\n});\n`,
    );
    expect(cases?.[0]?.hollow).toBeDefined();
    const live = await listTestCases(
      'test/a.test.js',
      `${head}test('adds', () => {\n  [[2, 3]].forEach(([a, b]) => {\n    assert.equal(add(a, b), 5);\n  });\n});\n`,
    );
    expect(live?.[0]?.hollow).toBeUndefined();
  });
});
