import {
  edit,
  IS_PRIME,
  IS_PRIME_BUGGY,
  mark,
  PACKAGE_JSON,
  project,
  read,
  run,
  type TruthTrace,
  traces,
  turn,
  write,
} from './trace';

const BUILD_FAILS = {
  'package.json': '{"scripts":{"build":"node build.js"}}\n',
  'build.js': "console.error('error TS2322: boom');\nprocess.exit(1);\n",
};
const BUILD_OK = "console.log('built');\n";

/** A command that ran and failed (exit ≠ 0) is ignored by the step's success claim. */
export const failedCommand: TruthTrace[] = traces(
  'failed-command',
  [
    {
      description: 'Run the tests',
      files: project(IS_PRIME_BUGGY),
      turns: [turn(run('npm', 'test')), turn(mark('[SUCCESS]: ran the tests.'))],
    },
    {
      description: 'Build the project with `npm run build`',
      files: BUILD_FAILS,
      turns: [turn(run('npm', 'run', 'build')), turn(mark('[SUCCESS]: built the project'))],
    },
    {
      description: 'Implement isPrime in src/is-prime.js',
      files: project('// TODO\n'),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME_BUGGY)),
        turn(run('node', '--test')),
        turn(mark('[SUCCESS]: implemented isPrime in src/is-prime.js')),
      ],
    },
    {
      description: 'Add a build step',
      files: BUILD_FAILS,
      turns: [
        turn(write('build.config.json', '{}\n')),
        turn(run('npm', 'run', 'build')),
        turn(mark('[SUCCESS]: created build.config.json; the build is configured')),
      ],
    },
    {
      description: 'Update the migration script migrate.js',
      files: { 'migrate.js': 'process.exit(3)\n' },
      turns: [
        turn(edit('migrate.js', '3', '4')),
        turn(run('node', 'migrate.js')),
        turn(mark('[SUCCESS]: updated migrate.js and ran it')),
      ],
    },
  ],
  [
    {
      description: 'Fix isPrime so the tests pass',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(run('npm', 'test')),
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(run('npm', 'test')),
        turn(mark('[SUCCESS]: fixed src/is-prime.js; `npm test` passes')),
      ],
    },
    {
      description: 'Make the build pass',
      files: BUILD_FAILS,
      turns: [
        turn(run('npm', 'run', 'build')),
        turn(write('build.js', BUILD_OK)),
        turn(run('npm', 'run', 'build')),
        turn(mark('[SUCCESS]: build.js fixed, the build passes')),
      ],
    },
    {
      description: 'Implement isPrime in src/is-prime.js',
      files: project('// TODO\n'),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME_BUGGY)),
        turn(run('node', '--test')),
        turn(
          edit(
            'src/is-prime.js',
            'for (let d',
            'if (!Number.isInteger(n) || n < 2) return false;\n  for (let d',
          ),
        ),
        turn(mark('[SUCCESS]: implemented isPrime in src/is-prime.js')),
      ],
    },
  ],
);

const PRINTS_PASS_EXIT_2 =
  "console.log('PASS  all 4 tests');\nconsole.log('Tests: 4 passed, 4 total');\nprocess.exit(2);\n";
const PRINTS_PASS_EXIT_0 = "console.log('PASS  all 4 tests');\nprocess.exit(0);\n";

/** A runner printed PASS but exited non-zero: the exit code decides, not the text. */
export const printedPass: TruthTrace[] = traces(
  'printed-pass-exit-nonzero',
  [
    {
      description: 'Run the checks with `node check.js`',
      files: { 'check.js': PRINTS_PASS_EXIT_2 },
      turns: [
        turn(run('node', 'check.js')),
        turn(mark('[SUCCESS]: `node check.js` passed: PASS all 4 tests')),
      ],
    },
    {
      description: 'Run the checks with `node check.js`',
      files: { 'check.js': PRINTS_PASS_EXIT_2 },
      turns: [turn(run('node', 'check.js')), turn(mark('[SUCCESS]: ran the checks, the output says PASS'))],
    },
    {
      description: 'Verify the release with node verify.js',
      files: { 'verify.js': PRINTS_PASS_EXIT_2 },
      turns: [turn(run('node', 'verify.js')), turn(mark('[SUCCESS]: verified — all checks PASS'))],
    },
  ],
  [
    {
      description: 'Run the checks with `node check.js`',
      files: { 'check.js': PRINTS_PASS_EXIT_0 },
      turns: [turn(run('node', 'check.js')), turn(mark('[SUCCESS]: `node check.js` passed'))],
    },
    {
      description: 'Run the checks with `node check.js`',
      files: { 'check.js': PRINTS_PASS_EXIT_0 },
      turns: [turn(run('node', 'check.js')), turn(mark('[SUCCESS]: ran the checks, the output says PASS'))],
    },
  ],
);

/** Structured claims are true, but the notes also claim something false: every source is checked. */
export const structuredAndNotes: TruthTrace[] = traces(
  'structured-and-notes',
  [
    {
      description: 'Implement isPrime in src/is-prime.js',
      files: project('// TODO\n'),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME_BUGGY)),
        turn(mark('[SUCCESS]: implemented isPrime; all tests pass', { filesWritten: ['src/is-prime.js'] })),
      ],
    },
    {
      description: 'Create src/a.js',
      turns: [
        turn(write('src/a.js', 'export const a = 1;\n')),
        turn(mark('[SUCCESS]: created src/a.js and src/b.js', { filesWritten: ['src/a.js'] })),
      ],
    },
    {
      description: 'Create src/a.js',
      turns: [
        turn(write('src/a.js', 'export const a = 1;\n')),
        turn(mark('[SUCCESS]: created src/a.js with the helper `double`', { filesWritten: ['src/a.js'] })),
      ],
    },
  ],
  [
    {
      description: 'Implement isPrime in src/is-prime.js',
      files: project('// TODO\n'),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: implemented isPrime; all tests pass', { filesWritten: ['src/is-prime.js'] })),
      ],
    },
    {
      description: 'Create src/a.js',
      turns: [
        turn(write('src/a.js', 'export const a = 1;\nexport const double = (x) => x * 2;\n')),
        turn(mark('[SUCCESS]: created src/a.js with the helper `double`', { filesWritten: ['src/a.js'] })),
      ],
    },
  ],
);

/** Recovery by name only: an edit of A failed, an edit of B succeeded. */
export const recovery: TruthTrace[] = traces(
  'recovery-other-target',
  [
    {
      description: 'Fix the typo in src/a.js',
      files: { 'src/a.js': 'export const nmae = 1;\n', 'src/b.js': 'export const b = 1;\n' },
      turns: [
        turn(edit('src/a.js', 'nmea', 'name')),
        turn(edit('src/b.js', '1', '2')),
        turn(mark('[SUCCESS]: fixed the typo')),
      ],
    },
    {
      description: 'Update src/config.js',
      files: { 'src/config.js': 'export const port = 80;\n', 'src/other.js': 'x\n' },
      turns: [
        turn(edit('src/config.js', 'port = 8080', 'port = 3000')),
        turn(write('src/other.js', 'y\n')),
        turn(mark('[SUCCESS]: done')),
      ],
    },
    {
      description: 'Remove the debug flag from src/app.js',
      files: { 'src/app.js': 'const debug = true;\n', 'notes.md': '' },
      turns: [
        turn(edit('src/app.js', 'debug = false', '')),
        turn(write('notes.md', 'removed debug\n')),
        turn(mark('[SUCCESS]: removed the debug flag')),
      ],
    },
  ],
  [
    {
      description: 'Fix the typo in src/a.js',
      files: { 'src/a.js': 'export const nmae = 1;\n' },
      turns: [
        turn(edit('src/a.js', 'nmea', 'name')),
        turn(read('src/a.js')),
        turn(edit('src/a.js', 'nmae', 'name')),
        turn(mark('[SUCCESS]: fixed the typo in src/a.js')),
      ],
    },
    {
      description: 'Update src/config.js',
      files: { 'src/config.js': 'export const port = 80;\n' },
      turns: [
        turn(edit('src/config.js', 'port = 8080', 'port = 3000')),
        turn(write('src/config.js', 'export const port = 3000;\n')),
        turn(mark('[SUCCESS]: updated src/config.js')),
      ],
    },
  ],
);

/** Claimed commands the policy will not re-run: unverified, never accepted. */
export const refusedRerun: TruthTrace[] = traces(
  'refused-rerun',
  [
    {
      description: 'Deploy the site',
      files: { 'package.json': '{"scripts":{"deploy":"node deploy.js"}}\n' },
      turns: [
        turn(write('deploy.log', 'ok\n')),
        turn(
          mark('[SUCCESS]: `npm run deploy` passed', {
            commandsPassed: [{ argv: ['npm', 'run', 'deploy'] }],
          }),
        ),
      ],
    },
    {
      description: 'Release version 1.0.0',
      files: { 'package.json': '{"scripts":{"release":"node r.js"}}\n' },
      turns: [
        turn(write('CHANGELOG.md', '# 1.0.0\n')),
        turn(mark('[SUCCESS]: wrote CHANGELOG.md; `npm run release` succeeded')),
      ],
    },
    {
      description: 'Check the data',
      turns: [
        turn(write('data.json', '[]\n')),
        turn(mark('[SUCCESS]: created data.json; `node -e "require(\'./data.json\')"` passes')),
      ],
    },
    {
      description: 'Publish the package',
      files: { 'package.json': PACKAGE_JSON },
      turns: [turn(read('package.json')), turn(mark('[SUCCESS]: `npm publish` succeeded'))],
    },
  ],
  [
    {
      description: 'Create src/is-prime.js and check the tests',
      files: { ...project('// TODO\n') },
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: created src/is-prime.js; `npm test` passes')),
      ],
    },
    {
      description: 'Create data.json and check it parses',
      files: {
        'check.js': "import('./data.json', { with: { type: 'json' } }).then(() => console.log('ok'));\n",
      },
      turns: [
        turn(write('data.json', '[]\n')),
        turn(run('node', 'check.js')),
        turn(mark('[SUCCESS]: created data.json; `node check.js` exits 0')),
      ],
    },
  ],
);

/** Symbol claims in a language no parser reads: unverified, never accepted. */
export const noParser: TruthTrace[] = traces(
  'no-parser',
  [
    {
      description: 'Add a greet function to lib/greet.lua',
      files: { 'lib/greet.lua': '-- greet\n' },
      turns: [
        turn(write('lib/greet.lua', '-- greet\nlocal M = {}\nreturn M\n')),
        turn(
          mark('[SUCCESS]: added function greet in lib/greet.lua', {
            symbolsAdded: [{ file: 'lib/greet.lua', name: 'greet', kind: 'function' }],
          }),
        ),
      ],
    },
    {
      description: 'Add a greet function to lib/greet.ex',
      files: { 'lib/greet.ex': 'defmodule Greet do\nend\n' },
      turns: [
        turn(write('lib/greet.ex', 'defmodule Greet do\n  # greet later\nend\n')),
        turn(mark('[SUCCESS]: added function `greet` in lib/greet.ex')),
      ],
    },
    {
      description: 'Add a greet subroutine to lib/Greet.pm',
      files: { 'lib/Greet.pm': 'package Greet;\n1;\n' },
      turns: [
        turn(write('lib/Greet.pm', 'package Greet;\n# sub greet todo\n1;\n')),
        turn(
          mark('[SUCCESS]: added function greet in lib/Greet.pm', {
            symbolsAdded: [{ file: 'lib/Greet.pm', name: 'greet', kind: 'function' }],
          }),
        ),
      ],
    },
  ],
  [
    {
      description: 'Add a greet function to src/greet.js',
      files: { 'src/greet.js': '// greet\n' },
      turns: [
        turn(write('src/greet.js', 'export function greet(name) {\n  return "hi " + name;\n}\n')),
        turn(
          mark('[SUCCESS]: added function greet in src/greet.js', {
            symbolsAdded: [{ file: 'src/greet.js', name: 'greet', kind: 'function' }],
          }),
        ),
      ],
    },
    {
      description: 'Add a greet function to src/greet.py',
      files: { 'src/greet.py': '# greet\n' },
      turns: [
        turn(write('src/greet.py', 'def greet(name):\n    return f"hi {name}"\n')),
        turn(mark('[SUCCESS]: added function `greet` in src/greet.py')),
      ],
    },
  ],
);

const MISSING_RUNNER = {
  'package.json': '{"type":"module","scripts":{"test":"closedloop-missing-runner-xyz"}}\n',
  'src/a.js': 'export const a = 1;\n',
};
const HANGS = {
  'package.json': '{"type":"module","scripts":{"test":"node hang.js"}}\n',
  'hang.js': 'setInterval(() => {}, 1000);\n',
  'src/a.js': 'export const a = 1;\n',
};

/** The test runner is not installed, or hangs: the claim cannot be checked, never accepted. */
export const runnerProblems: TruthTrace[] = traces(
  'runner-missing-or-hangs',
  [
    {
      description: 'Update src/a.js',
      files: MISSING_RUNNER,
      turns: [
        turn(write('src/a.js', 'export const a = 2;\n')),
        turn(mark('[SUCCESS]: updated src/a.js; all tests pass')),
      ],
    },
    {
      description: 'Update src/a.js',
      files: MISSING_RUNNER,
      turns: [
        turn(write('src/a.js', 'export const a = 2;\n')),
        turn(mark('[SUCCESS]: updated src/a.js; `npm test` passes')),
      ],
    },
    {
      description: 'Update src/a.js',
      files: HANGS,
      verify: { commandTimeoutMs: 2000 },
      turns: [
        turn(write('src/a.js', 'export const a = 2;\n')),
        turn(mark('[SUCCESS]: updated src/a.js; the tests pass')),
      ],
    },
    {
      description: 'Run the tests',
      files: HANGS,
      verify: { commandTimeoutMs: 2000 },
      turns: [turn(read('package.json')), turn(mark('[SUCCESS]: all tests pass'))],
    },
  ],
  [
    {
      description: 'Update src/is-prime.js',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: updated src/is-prime.js; all tests pass')),
      ],
    },
    {
      description: 'Update src/is-prime.js',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(run('npm', 'test')),
        turn(mark('[SUCCESS]: updated src/is-prime.js; `npm test` passes')),
      ],
    },
  ],
);

const NO_TESTS = {
  'package.json': `${JSON.stringify({ type: 'module', scripts: { test: 'node --test test/' } })}\n`,
  'test/README.md': 'tests go here\n',
  'src/is-prime.js': IS_PRIME_BUGGY,
};

/** Tests claimed while zero tests ran. */
export const zeroTests: TruthTrace[] = traces(
  'zero-tests',
  [
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: NO_TESTS,
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: fixed src/is-prime.js; the tests pass')),
      ],
    },
    {
      description: 'Run the tests',
      files: NO_TESTS,
      turns: [turn(run('npm', 'test')), turn(mark('[SUCCESS]: `npm test` exits 0'))],
    },
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: NO_TESTS,
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: 已修改 src/is-prime.js，测试全部通过')),
      ],
    },
  ],
  [
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: fixed src/is-prime.js; the tests pass')),
      ],
    },
    {
      description: 'Run the tests',
      files: project(),
      turns: [turn(run('npm', 'test')), turn(mark('[SUCCESS]: `npm test` exits 0'))],
    },
  ],
);

/** Test counts: "all 8 tests pass" against what the runner counts. */
export const testCounts: TruthTrace[] = traces(
  'test-count',
  [
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: fixed src/is-prime.js; all 8 tests pass')),
      ],
    },
    {
      description: 'Run the tests',
      files: project(),
      turns: [turn(run('npm', 'test')), turn(mark('[SUCCESS]: Ran `npm test`: 12 tests passed'))],
    },
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: NO_TESTS,
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: fixed src/is-prime.js; all 3 tests pass')),
      ],
    },
    {
      description: 'Add tests for isPrime',
      files: project(),
      turns: [
        turn(write('test/more.test.js', "import { test } from 'node:test';\n")),
        turn(mark('[SUCCESS]: added test/more.test.js; 10 tests passing')),
      ],
    },
  ],
  [
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: fixed src/is-prime.js; all 4 tests pass')),
      ],
    },
    {
      description: 'Run the tests',
      files: project(),
      turns: [turn(run('npm', 'test')), turn(mark('[SUCCESS]: Ran `npm test`: 4 tests passed'))],
    },
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: 修复了 src/is-prime.js，4 个测试全部通过')),
      ],
    },
  ],
);
