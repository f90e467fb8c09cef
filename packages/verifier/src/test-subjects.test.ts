import { describe, expect, it } from 'vitest';
import { subjectUse, testSubjects } from './test-subjects';

describe('testSubjects', () => {
  it('reads the function a description asks tests for, and how surely it is code', () => {
    expect(testSubjects('Add tests for isPrime in test/is-prime.test.js')).toEqual([
      { name: 'isPrime', strong: true },
    ]);
    expect(testSubjects('Write unit tests for `Stack.push`')).toEqual([{ name: 'push', strong: true }]);
    expect(testSubjects('Add tests for parse in tests/test_parse.py')).toEqual([
      { name: 'parse', strong: false },
    ]);
    expect(testSubjects('Test parse_words')).toEqual([{ name: 'parse_words', strong: true }]);
  });

  it('names nothing for prose, paths and verbs', () => {
    for (const description of [
      'Add more tests for the parser',
      'Add tests for edge cases',
      'Add tests for src/is-prime.js',
      'Fix isPrime so the tests pass',
      'Run the tests for 17 with `node --test --test-name-pattern=17`',
    ])
      expect(testSubjects(description), description).toEqual([]);
  });
});

describe('subjectUse', () => {
  const head = "import assert from 'node:assert/strict';\nimport { isPrime } from '../src/is-prime.js';\n";
  it('is `imported` when only the import, a title or a comment names it', () => {
    expect(
      subjectUse(
        'a.test.js',
        `${head}// isPrime(2)\ntest('isPrime', () => assert.equal(prime(2), true));\n`,
        'isPrime',
      ),
    ).toBe('imported');
    expect(
      subjectUse(
        'test_a.py',
        'from src.parse import parse\n\ndef test_a():\n    """parse"""\n    assert 1 == 1  # parse\n',
        'parse',
      ),
    ).toBe('imported');
  });

  it('is `patched` when the test mocks the whole module it imports the subject from', () => {
    const js = (...lines: string[]) => lines.join('\n');
    expect(
      subjectUse(
        'sum.test.js',
        js(
          "import { sum } from '../src/sum.js';",
          "jest.mock('../src/sum.js', () => ({ sum: jest.fn(() => 5) }));",
          'expect(sum(2, 3)).toBe(5);',
        ),
        'sum',
      ),
    ).toBe('patched');
    expect(
      subjectUse(
        'sum.test.ts',
        js("import { sum } from '../src/sum';", "vi.mock('../src/sum.ts');", 'expect(sum(2, 3)).toBe(5);'),
        'sum',
      ),
    ).toBe('patched');
    expect(
      subjectUse(
        'sum.test.js',
        js(
          "mock.module('../src/sum.js', { namedExports: { sum: () => 5 } });",
          "const { sum } = await import('../src/sum.js');",
          'assert.equal(sum(2, 3), 5);',
        ),
        'sum',
      ),
    ).toBe('patched');
    expect(
      subjectUse(
        'test_calc.py',
        js(
          'import sys',
          'from app.calc import add',
          'sys.modules["app.calc"] = FakeCalc()',
          'assert add(2, 3) == 5',
        ),
        'add',
      ),
    ).toBe('patched');
  });

  it('is `used` when the mocked module is a dependency, or the mock keeps the real subject', () => {
    const js = (...lines: string[]) => lines.join('\n');
    expect(
      subjectUse(
        'user.test.js',
        js(
          "import { getUser } from '../src/user.js';",
          "vi.mock('../src/db.js', () => ({ query: vi.fn() }));",
          'expect(getUser(1)).toBeNull();',
        ),
        'getUser',
      ),
    ).toBe('used');
    expect(
      subjectUse(
        'user.test.ts',
        js(
          "import { getUser } from '../src/user';",
          "vi.mock('../src/user', async (importOriginal) => ({ ...(await importOriginal()), audit: vi.fn() }));",
          'expect(getUser(1)).toBeNull();',
        ),
        'getUser',
      ),
    ).toBe('used');
  });

  it('is `patched` when the test replaces it', () => {
    const py = (patch: string) =>
      `from unittest.mock import patch\nfrom app import calc\n\n${patch}\ndef test_add():\n    assert calc.add(2, 3) == 5\n`;
    expect(subjectUse('test_a.py', py('@patch("app.calc.add", lambda a, b: a + b)'), 'add')).toBe('patched');
    expect(subjectUse('test_a.py', py('@patch.object(calc, "add", return_value=5)'), 'add')).toBe('patched');
    expect(
      subjectUse(
        'test_a.py',
        'def test_add(monkeypatch):\n    monkeypatch.setattr(calc, "add", lambda a, b: 5)\n    assert calc.add(2, 3) == 5\n',
        'add',
      ),
    ).toBe('patched');
    expect(
      subjectUse(
        'a.test.js',
        `${head}test('2', () => { vi.spyOn(math, 'isPrime').mockReturnValue(true); assert.ok(isPrime(2)); });\n`,
        'isPrime',
      ),
    ).toBe('patched');
    // Patching something else, or spying without replacing, still uses the subject.
    expect(subjectUse('test_a.py', py('@patch("app.calc.fetch_rates")'), 'add')).toBe('used');
    expect(
      subjectUse(
        'a.test.js',
        `${head}test('2', () => { vi.spyOn(math, 'isPrime'); assert.ok(isPrime(2)); });\n`,
        'isPrime',
      ),
    ).toBe('used');
  });

  it('is `used` through the name, an alias or a namespace', () => {
    expect(subjectUse('a.test.js', `${head}test('2', () => assert.ok(isPrime(2)));\n`, 'isPrime')).toBe(
      'used',
    );
    expect(
      subjectUse(
        'a.test.js',
        "import { isPrime as p } from '../src/a.js';\ntest('2', () => assert.ok(p(2)));\n",
        'isPrime',
      ),
    ).toBe('used');
    expect(
      subjectUse(
        'a.test.js',
        "import * as m from '../src/a.js';\ntest('2', () => assert.ok(m.isPrime(2)));\n",
        'isPrime',
      ),
    ).toBe('used');
    expect(
      subjectUse(
        'a.test.js',
        "const { isPrime: p } = require('../src/a.js');\ntest('2', () => assert.ok(p(2)));\n",
        'isPrime',
      ),
    ).toBe('used');
  });

  it('tells a stand-in of the same name, and a module path from a bound name', () => {
    expect(
      subjectUse(
        'a.test.js',
        "const isPrime = (n) => n === 2;\ntest('2', () => assert.ok(isPrime(2)));\n",
        'isPrime',
      ),
    ).toBe('stand-in');
    expect(
      subjectUse(
        'test_a.py',
        'from src.parse import split\n\ndef test_a():\n    assert split("a") == ["a"]\n',
        'parse',
      ),
    ).toBe('absent');
  });

  it('reads looking at the subject (its type, arity, existence) as no use of it', () => {
    const head = "import assert from 'node:assert/strict';\nimport { isPrime } from '../src/is-prime.js';\n";
    for (const body of [
      "test('exists', () => assert.equal(typeof isPrime, 'function'));\ntest('arity', () => assert.equal(isPrime.length, 1));\n",
      "test('defined', () => { expect(isPrime).toBeDefined(); assert.ok(isPrime); });\n",
    ])
      expect(subjectUse('a.test.js', `${head}${body}`, 'isPrime')).toBe('imported');
    expect(
      subjectUse(
        'a.test.js',
        `${head}test('arity', () => assert.equal(isPrime.length, 1));\ntest('2', () => assert.ok(isPrime(2)));\n`,
        'isPrime',
      ),
    ).toBe('used');
    expect(
      subjectUse(
        'test_a.py',
        'from src.parse import parse\n\n\ndef test_callable():\n    assert callable(parse)\n',
        'parse',
      ),
    ).toBe('imported');
    expect(
      subjectUse(
        'test_a.py',
        'from src.parse import parse\n\n\ndef test_list():\n    assert isinstance(parse("a"), list)\n',
        'parse',
      ),
    ).toBe('used');
  });
});
