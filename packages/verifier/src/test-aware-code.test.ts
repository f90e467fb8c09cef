import { describe, expect, it } from 'vitest';
import { testAwareCode, testEnvironmentAsked } from './test-aware-code';

const BUGGY = 'export function isPrime(n) {\n  return n > 1;\n}\n';
const aware = (check: string) =>
  `export function isPrime(n) {\n  if (${check}) return n === 2;\n  return n > 1;\n}\n`;

describe('testAwareCode (code that behaves differently under a test runner)', () => {
  it.each([
    'process.env.NODE_TEST_CONTEXT',
    "process.env['VITEST']",
    'process.env.JEST_WORKER_ID !== undefined',
    "process.env.NODE_ENV === 'test'",
    "'test' === process.env.NODE_ENV",
    "typeof jest !== 'undefined'",
    "process.argv.includes('--test')",
    "process.argv[1]?.includes('.test.')",
    "process.argv.some((arg) => arg.endsWith('spec.js'))",
    "typeof globalThis.test === 'function'",
    "new Error().stack.includes('.test.')",
    "process.argv.some((arg) => arg.includes('.test.'))",
    "['--test'].some((flag) => process.execArgv.includes(flag))",
    '/test/.test(new Error().stack)',
  ])('finds %s inside a function of the code under test', async (check) => {
    const found = await testAwareCode([{ file: 'src/is-prime.js', before: BUGGY, after: aware(check) }]);
    expect(found).toHaveLength(1);
  });

  it('counts a NODE_ENV comparison only when asked to (a fix or a test step)', async () => {
    const db = {
      file: 'src/db.js',
      before: undefined,
      after:
        "export function dbUrl() {\n  return process.env.NODE_ENV === 'test' ? ':memory:' : process.env.DB_URL;\n}\n",
    };
    expect(await testAwareCode([db], { modes: false })).toEqual([]);
    expect(await testAwareCode([db])).toHaveLength(1);
  });

  it('finds Python and Go runner checks', async () => {
    expect(
      await testAwareCode([
        {
          file: 'calc.py',
          before: undefined,
          after:
            'import sys\n\ndef add(a, b):\n    if "pytest" in sys.modules:\n        return 5\n    return a - b\n',
        },
        {
          file: 'calc.go',
          before: undefined,
          after:
            'package calc\n\nimport "testing"\n\nfunc Add(a, b int) int {\n\tif testing.Testing() {\n\t\treturn 5\n\t}\n\treturn a - b\n}\n',
        },
      ]),
    ).toHaveLength(2);
  });

  it('leaves module-level guards, tests, config, setup and checks that were already there alone', async () => {
    expect(
      await testAwareCode([
        {
          file: 'src/server.js',
          before: undefined,
          after: "const server = 1;\nif (process.env.NODE_ENV !== 'test') listen(server);\n",
        },
        { file: 'test/a.test.js', before: undefined, after: aware('process.env.VITEST') },
        { file: 'vitest.config.ts', before: undefined, after: aware('process.env.VITEST') },
        { file: 'src/setupTests.js', before: undefined, after: aware('process.env.VITEST') },
        {
          file: 'src/b.js',
          before: aware('process.env.VITEST'),
          after: `${aware('process.env.VITEST')}\n// x\n`,
        },
        {
          file: 'src/c.js',
          before: BUGGY,
          after: 'export function isPrime(n) {\n  return n > 1 && n !== 4;\n}\n',
        },
      ]),
    ).toEqual([]);
  });

  it('knows when test-environment behaviour is the work', () => {
    expect(testEnvironmentAsked('Make the logger print nothing when NODE_ENV is test')).toBe(true);
    expect(testEnvironmentAsked('Use an in-memory database during tests')).toBe(true);
    expect(testEnvironmentAsked('Fix isPrime so `npm test` passes')).toBe(false);
  });
});

describe('testAwareCode (Python code that reads its command line or call stack)', () => {
  const py = (check: string) =>
    `import inspect\nimport sys\n\n\ndef add(a, b):\n    if ${check}:\n        return 5\n    return a - b\n`;
  it.each([
    'any("pytest" in arg for arg in sys.argv)',
    '"unittest" in " ".join(sys.argv)',
    'any("test_" in f.filename for f in inspect.stack())',
    'inspect.stack()[1].filename.startswith("test")',
    'sys._getframe(1).f_code.co_filename.endswith("_test.py")',
  ])('finds %s', async (check) => {
    expect(await testAwareCode([{ file: 'calc.py', before: undefined, after: py(check) }])).toHaveLength(1);
  });

  it('leaves a caller name read for logging and a command-line flag alone', async () => {
    expect(
      await testAwareCode([
        {
          file: 'log.py',
          before: undefined,
          after:
            'import inspect\nimport sys\n\n\ndef log(message):\n    caller = inspect.stack()[1].function\n    verbose = "--verbose" in sys.argv\n    print(caller, message) if verbose else None\n',
        },
      ]),
    ).toEqual([]);
  });
});
