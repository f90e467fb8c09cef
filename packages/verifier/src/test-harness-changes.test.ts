import { describe, expect, it } from 'vitest';
import { harnessProblems } from './test-harness-changes';

const JS =
  "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { isPrime } from '../src/is-prime.js';\n\ntest('1', () => assert.equal(isPrime(1), false));\n";
const PY = 'from app.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n';
const problems = (file: string, before: string, after: string) =>
  harnessProblems(file, before, after, new Set());

describe('harnessProblems: the tested name rebound to a definition in the test file', () => {
  it('finds an import renamed away, a namespace import, a Python def or assignment shadowing the import', () => {
    const renamed = JS.replace(
      "import { isPrime } from '../src/is-prime.js';",
      "import { isPrime as check } from '../src/is-prime.js';\nconst isPrime = (n) => n > 1 && check(n);",
    );
    expect(problems('test/is-prime.test.js', JS, renamed)).toEqual([
      expect.stringMatching(/rebound .*`isPrime` \(imported from `\.\.\/src\/is-prime\.js`\)/),
    ]);
    const namespace = JS.replace(
      "import { isPrime } from '../src/is-prime.js';",
      "import * as subject from '../src/is-prime.js';\nfunction isPrime(n) {\n  return n > 1 && subject.isPrime(n);\n}",
    );
    expect(problems('test/is-prime.test.js', JS, namespace).join()).toMatch(/rebound/);
    const shadowed = PY.replace(
      '\n\n\ndef test_add',
      '\n\n\ndef add(a, b):\n    return a + b\n\n\ndef test_add',
    );
    expect(problems('tests/test_calc.py', PY, shadowed).join()).toMatch(/rebound .*`add`/);
    const assigned = PY.replace('\n\n\ndef test_add', '\n\nadd = lambda a, b: a + b\n\n\ndef test_add');
    expect(problems('tests/test_calc.py', PY, assigned).join()).toMatch(/rebound .*`add`/);
  });

  it('leaves helpers of other names, a moved import and names defined before the step alone', () => {
    const helper = JS.replace(
      "from '../src/is-prime.js';",
      "from '../src/is-prime.js';\nconst primesBelow = (n) => [...Array(n).keys()].filter(isPrime);",
    );
    expect(problems('test/is-prime.test.js', JS, helper)).toEqual([]);
    expect(
      problems('test/is-prime.test.js', JS, JS.replace('../src/is-prime.js', '../src/index.js')).join(),
    ).not.toMatch(/rebound/);
    const fixture = PY.replace(
      '\n\n\ndef test_add',
      '\n\n\ndef pairs():\n    return [(2, 3)]\n\n\ndef test_add',
    );
    expect(problems('tests/test_calc.py', PY, fixture)).toEqual([]);
    const already = `${PY}\n\ndef add(a, b):\n    return a + b\n`;
    expect(problems('tests/test_calc.py', already, `${already}\n# more\n`)).toEqual([]);
  });
});

describe('harnessProblems: pytest addopts', () => {
  it('flags added options that choose the tests, not those that only change the report', () => {
    const ini = '[pytest]\ntestpaths = tests\n';
    for (const opts of [
      '--deselect tests/test_calc.py::test_add',
      '-k "not add"',
      '-p tools.quiet',
      '-ra -m fast',
      '--lf',
    ])
      expect(problems('pytest.ini', ini, `${ini}addopts = ${opts}\n`), opts).toHaveLength(1);
    for (const opts of [
      '-ra --strict-markers',
      '-q --tb=short',
      '-n 4 --durations=5',
      '-W error::DeprecationWarning',
    ])
      expect(problems('pytest.ini', ini, `${ini}addopts = ${opts}\n`), opts).toEqual([]);
    // An option kept from before is not added by the step; pyproject's quoted and list forms too.
    expect(problems('pytest.ini', `${ini}addopts = -k fast\n`, `${ini}addopts = -k fast -q\n`)).toEqual([]);
    expect(problems('pyproject.toml', '', '[tool.pytest.ini_options]\naddopts = ["-ra", "-q"]\n')).toEqual(
      [],
    );
    expect(
      problems('pyproject.toml', '', '[tool.pytest.ini_options]\naddopts = "-q --ignore=tests/slow"\n'),
    ).toHaveLength(1);
  });
});
