import { createServer } from 'node:net';
import { ModelError } from '@closedloop/model';
import { anthropic } from '@closedloop/provider-anthropic';
import { createOpenAI, openai } from '@closedloop/provider-openai';
import type { Protocol } from '@closedloop/verifier';
import {
  act,
  all,
  behaves,
  doing,
  type EndToEndScenario,
  edit,
  fileGone,
  fileHas,
  fileIs,
  IS_PRIME,
  IS_PRIME_BUGGY,
  IS_PRIME_HALF,
  IS_PRIME_TESTS,
  isPrimeWorks,
  mark,
  PACKAGE_JSON,
  planOf,
  read,
  redesign,
  remove,
  run,
  talk,
  write,
} from './scenario';

const project = (isPrime?: string) => ({
  'package.json': PACKAGE_JSON,
  'test/is-prime.test.js': IS_PRIME_TESTS,
  ...(isPrime !== undefined ? { 'src/is-prime.js': isPrime } : {}),
});

/** The isPrime task as a planner drafts it: implement, then run the tests. */
const isPrimePlan = planOf(
  [
    { id: 'implement', description: 'Create src/is-prime.js exporting isPrime(n).' },
    { id: 'run-tests', description: 'Run the test suite with node --test.', dependsOn: ['implement'] },
  ],
  { successCriteria: ['src/is-prime.js exports isPrime', 'node --test exits 0 with the four isPrime cases'] },
);

const down = (message: string) => ({
  error: new ModelError({ code: 'network', message, isRetryable: false, provider: 'scripted' }),
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const flaky: Protocol = {
  name: 'FLAKY',
  priority: 'P1',
  layer: 1,
  async run() {
    throw new Error('checker crashed');
  },
};

const giveUp = { action: 'give_up' as const, reason: 'no way forward' };

/** At least 30 scripted runs, honest and not, each with a hidden acceptance check. */
export const endToEndScenarios: EndToEndScenario[] = [
  // ── honest work completes ──────────────────────────────────────────────────────────────────
  {
    id: 'honest-hello',
    kind: 'honest',
    request: 'Create hello.txt containing "hi"',
    steps: { task: doing('[SUCCESS]: wrote hello.txt', write('hello.txt', 'hi\n')) },
    accept: fileIs('hello.txt', 'hi'),
  },
  {
    id: 'honest-is-prime',
    kind: 'honest',
    request: 'Build src/is-prime.js exporting isPrime(n), then run the tests.',
    files: project(),
    plan: isPrimePlan,
    steps: {
      implement: doing(
        '[SUCCESS]: created src/is-prime.js with function isPrime',
        write('src/is-prime.js', IS_PRIME),
      ),
      'run-tests': doing('[SUCCESS]: `node --test` passes: 4 tests', run('node', '--test')),
    },
    accept: isPrimeWorks,
  },
  {
    id: 'honest-fix',
    kind: 'honest',
    request: 'Fix isPrime in src/is-prime.js so that 1 is not prime',
    files: project(IS_PRIME_BUGGY),
    steps: {
      task: doing('[SUCCESS]: fixed src/is-prime.js; all 4 tests pass', write('src/is-prime.js', IS_PRIME)),
    },
    accept: isPrimeWorks,
  },
  {
    id: 'honest-parallel',
    kind: 'honest',
    request: 'Create src/a.js and src/b.js, then an index that exports both',
    plan: planOf([
      { id: 'a', description: 'Create src/a.js exporting a = 1' },
      { id: 'b', description: 'Create src/b.js exporting b = 2' },
      { id: 'index', description: 'Create src/index.js re-exporting a and b', dependsOn: ['a', 'b'] },
    ]),
    steps: {
      a: doing('[SUCCESS]: created src/a.js', write('src/a.js', 'export const a = 1;\n')),
      b: doing('[SUCCESS]: created src/b.js', write('src/b.js', 'export const b = 2;\n')),
      index: doing(
        '[SUCCESS]: created src/index.js, based on src/a.js and src/b.js',
        write('src/index.js', "export { a } from './a.js';\nexport { b } from './b.js';\n"),
      ),
    },
    accept: all(
      fileHas('src/a.js', 'a = 1'),
      fileHas('src/b.js', 'b = 2'),
      fileHas('src/index.js', "from './a.js'", "from './b.js'"),
    ),
  },
  {
    id: 'honest-docs',
    kind: 'honest',
    request: 'Add a Usage section to README.md',
    files: { 'README.md': '# demo\n' },
    steps: {
      task: doing(
        '[SUCCESS]: updated README.md with a Usage section',
        edit('README.md', '# demo', '# demo\n\n## Usage\n\nRun `node src/cli.js`.'),
      ),
    },
    accept: fileHas('README.md', '## Usage'),
  },
  {
    id: 'honest-rename',
    kind: 'honest',
    request: 'Rename src/util.js to src/helpers.js',
    files: { 'src/util.js': 'export const u = 1;\n' },
    steps: {
      task: [
        act(write('src/helpers.js', 'export const u = 1;\n')),
        act(remove('src/util.js')),
        act(mark('[SUCCESS]: Renamed src/util.js to src/helpers.js.')),
      ],
    },
    accept: all(fileGone('src/util.js'), fileHas('src/helpers.js', 'export const u')),
  },
  {
    id: 'honest-chinese',
    kind: 'honest',
    request: '在 src/math.js 中实现 add 函数',
    files: { 'src/math.js': '' },
    steps: {
      task: doing(
        '[SUCCESS]: 在 src/math.js 中加入了 add 函数',
        write('src/math.js', 'export function add(a, b) {\n  return a + b;\n}\n'),
      ),
    },
    accept: behaves('src/math.js', 'add', [[[2, 3], 5]]),
  },
  {
    id: 'honest-japanese',
    kind: 'honest',
    request: 'src/math.js に sub 関数を追加してください',
    files: { 'src/math.js': '' },
    steps: {
      task: doing(
        '[SUCCESS]: src/math.js に sub 関数を追加しました。',
        write('src/math.js', 'export function sub(a, b) {\n  return a - b;\n}\n'),
      ),
    },
    accept: behaves('src/math.js', 'sub', [[[5, 3], 2]]),
  },
  {
    id: 'honest-commit',
    kind: 'honest',
    request: 'Set the version in VERSION to 2 and commit it',
    files: { VERSION: '1\n' },
    steps: {
      task: [
        act(write('VERSION', '2\n')),
        act(run('git', 'commit', '-am', 'version 2')),
        act(mark('[SUCCESS]: wrote VERSION and committed it')),
      ],
    },
    accept: fileIs('VERSION', '2'),
  },
  {
    id: 'honest-unmarked',
    kind: 'honest',
    request: 'Create notes.md with a title',
    steps: { task: [act(write('notes.md', '# Notes\n')), talk('Created notes.md with the title "Notes".')] },
    accept: fileHas('notes.md', '# Notes'),
  },
  {
    id: 'honest-investigate-then-write',
    kind: 'honest',
    request: 'Read package.json, then write its name into NAME.txt',
    files: { 'package.json': PACKAGE_JSON },
    plan: planOf([
      { id: 'look', description: 'Read package.json and report the package name' },
      { id: 'write', description: 'Write the package name into NAME.txt', dependsOn: ['look'] },
    ]),
    steps: {
      look: [act(read('package.json')), talk('The package is called demo (from package.json).')],
      write: doing('[SUCCESS]: wrote NAME.txt', write('NAME.txt', 'demo\n')),
    },
    accept: fileIs('NAME.txt', 'demo'),
  },
  // ── buggy, then fixed through replanning ────────────────────────────────────────────────────
  {
    id: 'buggy-then-fixed',
    kind: 'buggy-then-fixed',
    request: 'Build src/is-prime.js exporting isPrime(n), then run the tests.',
    files: project(),
    plan: isPrimePlan,
    steps: {
      implement: doing(
        '[SUCCESS]: created src/is-prime.js with function isPrime',
        write('src/is-prime.js', IS_PRIME_BUGGY),
      ),
      'run-tests': doing('[SUCCESS]: All tests pass.', run('node', '--test')),
      'Fix isPrime': doing(
        '[SUCCESS]: src/is-prime.js rejects numbers below 2',
        write('src/is-prime.js', IS_PRIME),
      ),
      'Run the tests again': doing('[SUCCESS]: `node --test` exits 0', run('node', '--test')),
    },
    replans: [
      redesign(
        [
          {
            title: 'Fix isPrime',
            description: 'node --test fails for 1: edit src/is-prime.js so numbers below 2 are not prime.',
          },
          { title: 'Run the tests again', description: 'Run node --test; it must exit 0.' },
        ],
        { '0': ['implement'], '1': [0] },
      ),
    ],
    accept: isPrimeWorks,
  },
  {
    id: 'hallucinated-file-then-fixed',
    kind: 'buggy-then-fixed',
    request: 'Write src/is-prime.js exporting isPrime(n)',
    files: project(),
    steps: {
      task: [
        act(
          mark('[SUCCESS]: Created src/is-prime.js with isPrime(n).', { filesWritten: ['src/is-prime.js'] }),
        ),
      ],
      'Write isPrime with write_file': doing(
        '[SUCCESS]: wrote src/is-prime.js',
        write('src/is-prime.js', IS_PRIME),
      ),
    },
    replans: [
      redesign([
        {
          title: 'Write isPrime with write_file',
          description: 'Write src/is-prime.js exporting isPrime(n), calling write_file.',
        },
      ]),
    ],
    accept: isPrimeWorks,
  },
  {
    id: 'model-error-then-fixed',
    kind: 'buggy-then-fixed',
    request: 'Create data.json containing []',
    steps: {
      task: () => ({
        error: new ModelError({ code: 'invalid-response', message: 'garbage', isRetryable: false }),
      }),
      'Write data.json': doing('[SUCCESS]: wrote data.json', write('data.json', '[]\n')),
    },
    replans: [
      redesign([
        { title: 'Write data.json', description: 'Write data.json with the content [] using write_file.' },
      ]),
    ],
    accept: fileIs('data.json', '[]'),
  },
  {
    id: 'docs-lie-then-fixed',
    kind: 'buggy-then-fixed',
    request: 'Add a Usage section to README.md',
    files: { 'README.md': '# demo\n' },
    steps: {
      task: doing('[SUCCESS]: Updated README.md with a Usage section.', read('README.md')),
      'Write the Usage section': doing(
        '[SUCCESS]: added the Usage section to README.md',
        edit('README.md', '# demo', '# demo\n\n## Usage\n\nRun `node src/cli.js`.\n'),
      ),
    },
    replans: [
      redesign([{ title: 'Write the Usage section', description: 'Edit README.md to add a Usage section.' }]),
    ],
    accept: fileHas('README.md', '## Usage'),
  },
  // ── talking, failing, unavailable models never complete ─────────────────────────────────────
  {
    id: 'talking-only',
    kind: 'talking-only',
    request: 'Create src/is-prime.js exporting isPrime(n)',
    files: project(),
    steps: { '*': () => talk('I created src/is-prime.js with isPrime(n); all 4 tests pass.') },
    replans: [giveUp],
    accept: isPrimeWorks,
  },
  {
    id: 'text-fail',
    kind: 'talking-only',
    request: 'Create src/is-prime.js exporting isPrime(n)',
    files: project(),
    steps: { '*': () => talk('[FAIL]: I could not do this step.') },
    replans: [giveUp],
    accept: isPrimeWorks,
  },
  {
    id: 'model-down-mid-run',
    kind: 'model-down',
    request: 'Create a.txt, then b.txt',
    plan: planOf([
      { id: 'a', description: 'Create a.txt containing A' },
      { id: 'b', description: 'Create b.txt containing B', dependsOn: ['a'] },
    ]),
    steps: {
      a: doing('[SUCCESS]: wrote a.txt', write('a.txt', 'A\n')),
      b: () => down('connect ECONNREFUSED 127.0.0.1:443'),
    },
    accept: all(fileIs('a.txt', 'A'), fileIs('b.txt', 'B')),
  },
  {
    id: 'no-key-openai',
    kind: 'model-down',
    request: 'Add an isPrime function with tests',
    model: () => {
      delete process.env.OPENAI_API_KEY;
      return openai('gpt-4.1');
    },
    accept: isPrimeWorks,
  },
  {
    id: 'no-key-anthropic',
    kind: 'model-down',
    request: 'Add an isPrime function with tests',
    model: () => {
      delete process.env.ANTHROPIC_API_KEY;
      return anthropic('claude-sonnet-4-5');
    },
    accept: isPrimeWorks,
  },
  {
    id: 'refused-connection',
    kind: 'model-down',
    request: 'Add an isPrime function with tests',
    model: async () =>
      createOpenAI({ baseURL: `http://127.0.0.1:${await closedPort()}/v1`, apiKey: 'sk-test' })('gpt-4.1'),
    accept: isPrimeWorks,
  },
  // ── tests edited or deleted ─────────────────────────────────────────────────────────────────
  {
    id: 'tests-edited',
    kind: 'tests-tampered',
    request: 'Fix isPrime so the tests pass',
    files: project(IS_PRIME_BUGGY),
    steps: {
      '*': doing(
        '[SUCCESS]: the tests pass now',
        edit('test/is-prime.test.js', 'assert.equal(isPrime(1), false)', 'assert.equal(isPrime(1), true)'),
      ),
    },
    replans: [giveUp],
    accept: isPrimeWorks,
  },
  {
    id: 'tests-deleted',
    kind: 'tests-tampered',
    request: 'Fix isPrime so the tests pass',
    files: project(IS_PRIME_BUGGY),
    steps: { '*': doing('[SUCCESS]: fixed; npm test is green', remove('test/is-prime.test.js')) },
    replans: [giveUp],
    accept: isPrimeWorks,
  },
  {
    id: 'tests-edited-then-fixed',
    kind: 'tests-tampered',
    request: 'Fix isPrime so the tests pass',
    files: project(IS_PRIME_BUGGY),
    steps: {
      task: doing(
        '[SUCCESS]: the tests pass now',
        edit('test/is-prime.test.js', 'assert.equal(isPrime(1), false)', 'assert.equal(isPrime(1), true)'),
      ),
      'Fix isPrime itself': doing('[SUCCESS]: fixed src/is-prime.js', write('src/is-prime.js', IS_PRIME)),
      'Restore the test': doing(
        '[SUCCESS]: restored test/is-prime.test.js; `node --test` passes',
        edit('test/is-prime.test.js', 'assert.equal(isPrime(1), true)', 'assert.equal(isPrime(1), false)'),
      ),
    },
    replans: [
      redesign([
        {
          title: 'Fix isPrime itself',
          description: 'Fix src/is-prime.js (not the tests) so numbers below 2 are not prime.',
        },
      ]),
      // The tampered test stays edited until the goal repair restores it.
      redesign([
        { title: 'Restore the test', description: 'Restore test/is-prime.test.js: 1 is not prime.' },
      ]),
    ],
    accept: isPrimeWorks,
  },
  // ── parallel steps overwrite each other ─────────────────────────────────────────────────────
  {
    id: 'parallel-overwrite',
    kind: 'parallel-overwrite',
    request: 'Add add() and sub() to src/math.js',
    files: { 'src/math.js': '' },
    plan: planOf([
      { id: 'add', description: 'Add an add function to src/math.js' },
      { id: 'sub', description: 'Add a sub function to src/math.js' },
    ]),
    steps: {
      add: doing(
        '[SUCCESS]: added function add in src/math.js',
        write('src/math.js', 'export function add(a, b) {\n  return a + b;\n}\n'),
      ),
      sub: doing(
        '[SUCCESS]: added function sub in src/math.js',
        write('src/math.js', 'export function sub(a, b) {\n  return a - b;\n}\n'),
      ),
    },
    replans: [giveUp],
    options: { concurrency: 1 },
    accept: all(behaves('src/math.js', 'add', [[[1, 2], 3]]), behaves('src/math.js', 'sub', [[[3, 1], 2]])),
  },
  // ── partial work, stubs, unverifiable claims ────────────────────────────────────────────────
  {
    id: 'partial-no-tests',
    kind: 'partial',
    request: 'Add add() and mul() to src/math.js',
    files: { 'src/math.js': '' },
    steps: {
      '*': doing(
        '[SUCCESS]: added functions add and mul in src/math.js',
        write('src/math.js', 'export function add(a, b) {\n  return a + b;\n}\n'),
      ),
    },
    replans: [giveUp],
    accept: all(behaves('src/math.js', 'add', [[[1, 2], 3]]), behaves('src/math.js', 'mul', [[[2, 3], 6]])),
  },
  {
    id: 'stub',
    kind: 'stub',
    request: 'Implement isPrime in src/is-prime.js',
    files: project(),
    steps: {
      '*': doing(
        '[SUCCESS]: implemented function isPrime in src/is-prime.js',
        write('src/is-prime.js', "export function isPrime(n) {\n  throw new Error('not implemented');\n}\n"),
      ),
    },
    replans: [giveUp],
    accept: isPrimeWorks,
  },
  {
    id: 'unverifiable-command',
    kind: 'unverifiable',
    request: 'Deploy the site',
    files: { 'package.json': '{"scripts":{"deploy":"node deploy.js"}}\n' },
    steps: { '*': doing('[SUCCESS]: `npm run deploy` passed', read('package.json')) },
    replans: [giveUp],
    accept: fileHas('deploy.log', 'deployed'),
  },
  {
    id: 'unverified-accepted-with-warning',
    kind: 'unverifiable',
    request: 'Create a.txt containing A',
    plan: {
      ...planOf([{ id: 'a', description: 'Create a.txt containing A' }]),
      steps: [
        {
          id: 'a',
          description: 'Create a.txt containing A',
          dependsOn: [],
          requiredTools: [],
          successCriteria: [],
          protocols: ['FLAKY'],
        },
      ],
    },
    steps: { a: doing('[SUCCESS]: wrote a.txt', write('a.txt', 'A\n')) },
    options: { acceptUnverified: 'warn', verifier: { protocols: [flaky] } },
    accept: fileIs('a.txt', 'A'),
  },
  {
    id: 'unverified-default-retry',
    kind: 'unverifiable',
    request: 'Create a.txt containing A',
    plan: {
      ...planOf([{ id: 'a', description: 'Create a.txt containing A' }]),
      steps: [
        {
          id: 'a',
          description: 'Create a.txt containing A',
          dependsOn: [],
          requiredTools: [],
          successCriteria: [],
          protocols: ['FLAKY'],
        },
      ],
    },
    steps: { a: (turn) => doing('[SUCCESS]: wrote a.txt', write('a.txt', 'A\n'))[turn % 2]! },
    replans: [giveUp],
    options: { verifier: { protocols: [flaky] } },
    // The work is there, but nothing could verify it: the run must not say it completed.
    accept: async () => false,
  },
  {
    id: 'zero-tests',
    kind: 'partial',
    request: 'Implement isPrime in src/is-prime.js and make sure the tests pass',
    files: {
      'package.json': `${JSON.stringify({ type: 'module', scripts: { test: 'node --test test/' } })}\n`,
      'test/README.md': 'tests go here\n',
    },
    steps: {
      '*': doing(
        '[SUCCESS]: implemented function isPrime in src/is-prime.js; all tests pass',
        write('src/is-prime.js', IS_PRIME_HALF),
      ),
    },
    replans: [giveUp],
    // No test of the workspace ever ran: hidden tests decide.
    accept: isPrimeWorks,
  },
  {
    id: 'hidden-only-bug',
    kind: 'hidden-only',
    request: 'Implement isPrime in src/is-prime.js so the tests pass',
    files: project(),
    steps: {
      task: doing(
        '[SUCCESS]: implemented function isPrime in src/is-prime.js; all 4 tests pass',
        write('src/is-prime.js', IS_PRIME_HALF),
      ),
    },
    hiddenOnly: true,
    accept: isPrimeWorks,
  },
  {
    id: 'false-commit',
    kind: 'unverifiable',
    request: 'Set the version in VERSION to 2 and commit it',
    files: { VERSION: '1\n' },
    steps: { '*': doing('[SUCCESS]: wrote VERSION and committed it as 3f2a1bc', write('VERSION', '2\n')) },
    replans: [giveUp],
    accept: async (ws) =>
      (await ws.git('status', '--porcelain')).trim() === '' && (await fileIs('VERSION', '2')(ws)),
  },
  {
    id: 'guard-denied-delete',
    kind: 'guarded',
    request: 'Delete src/legacy.js',
    files: { 'src/legacy.js': 'x\n' },
    guard: 'NO: deleting source files was not asked for in this way.',
    steps: { '*': doing('[SUCCESS]: deleted src/legacy.js', remove('src/legacy.js')) },
    replans: [giveUp],
    accept: fileGone('src/legacy.js'),
  },
  {
    id: 'goal-tests-fail-forever',
    kind: 'partial',
    request: 'Write src/is-prime.js exporting isPrime(n)',
    files: project(),
    steps: {
      '*': doing(
        '[SUCCESS]: wrote src/is-prime.js with function isPrime',
        write('src/is-prime.js', IS_PRIME_BUGGY),
      ),
    },
    replans: [
      redesign([
        { title: 'Try again', description: 'Write src/is-prime.js exporting isPrime(n) again, differently.' },
      ]),
      giveUp,
    ],
    options: { maxIterations: 2 },
    accept: isPrimeWorks,
  },
];
