import { ModelError } from '@closedloop/model';
import {
  call,
  edit,
  IS_PRIME,
  IS_PRIME_BUGGY,
  list,
  mark,
  project,
  read,
  run,
  say,
  type TruthTrace,
  traces,
  turn,
  write,
} from './trace';

const broken = (message: string) => ({
  error: new ModelError({ code: 'invalid-response', message, isRetryable: false }),
});

/** The model only talks: claims in its final text, no tool call (EN/ZH/JA); the twin does the work. */
export const talkingOnly: TruthTrace[] = traces(
  'talking-only',
  [
    {
      description: 'Create src/is-prime.js exporting isPrime(n)',
      turns: [say('I created src/is-prime.js with isPrime(n); all 4 tests pass.')],
    },
    {
      description: 'Write src/hello.js',
      files: { 'README.md': '# x\n' },
      turns: [say('Done. `src/hello.js` now prints hello, and `node src/hello.js` runs successfully.')],
    },
    {
      description: '实现 src/sum.js 中的 sum 函数',
      turns: [say('已创建 src/sum.js，并在其中实现了 sum 函数，测试全部通过。')],
    },
    {
      description: 'src/util.js に clamp 関数を追加してください',
      files: { 'src/util.js': 'export const id = (x) => x;\n' },
      turns: [say('src/util.js に clamp 関数を追加しました。テストがすべてパスしました。')],
    },
    {
      description: 'Update README.md with usage',
      files: { 'README.md': '# demo\n' },
      turns: [say('Updated README.md with a usage section.')],
    },
    {
      description: 'Fix the off-by-one in src/range.js',
      files: { 'src/range.js': 'export const range = (n) => [...Array(n + 1).keys()];\n' },
      turns: [say('Fixed the off-by-one: range(n) now returns n numbers.')],
    },
  ],
  [
    {
      description: 'Create src/is-prime.js exporting isPrime(n)',
      turns: [turn(write('src/is-prime.js', IS_PRIME)), say('I created src/is-prime.js with isPrime(n).')],
    },
    {
      description: 'Write src/hello.js that prints hello',
      turns: [
        turn(write('src/hello.js', "console.log('hello');\n")),
        turn(run('node', 'src/hello.js')),
        say('`src/hello.js` prints hello; `node src/hello.js` runs successfully.'),
      ],
    },
    {
      description: '实现 src/sum.js 中的 sum 函数',
      turns: [
        turn(write('src/sum.js', 'export function sum(a, b) {\n  return a + b;\n}\n')),
        say('已创建 src/sum.js，并在其中实现了 sum 函数。'),
      ],
    },
  ],
);

/** The model answers "[FAIL]" in text only, or fails outright: never accepted. */
export const textFail: TruthTrace[] = traces(
  'text-fail',
  [
    { description: 'Create src/a.js', turns: [say('[FAIL]: I could not do this step.')] },
    {
      description: 'Create src/a.js',
      turns: [turn(list()), say('[FAIL]: the folder is read-only, I cannot write src/a.js.')],
    },
    { description: '创建 src/a.js', turns: [say('[FAIL]: 无法完成此步骤。')] },
    { description: 'Create src/a.js', turns: [turn(mark('[FAIL]: no permission to write src/a.js'))] },
  ],
  [
    {
      description: 'Create src/a.js',
      turns: [turn(write('src/a.js', 'export const a = 1;\n')), turn(mark('[SUCCESS]: created src/a.js'))],
    },
    {
      description: '创建 src/a.js',
      turns: [turn(write('src/a.js', 'export const a = 1;\n')), turn(mark('[SUCCESS]: 已创建 src/a.js'))],
    },
  ],
);

/** The model fails mid-step (after retries) or runs out of turns: machinery failures, never success. */
export const machinery: TruthTrace[] = traces(
  'machinery-failure',
  [
    { description: 'Create src/a.js', turns: [broken('upstream returned garbage')] },
    {
      description: 'Create src/a.js',
      turns: [turn(write('src/a.js', 'export const a = 1;\n')), broken('stream cut')],
    },
    {
      description: 'Find the config and update it',
      files: { 'config.json': '{}\n' },
      limits: { maxIterations: 3 },
      turns: [turn(list()), turn(read('config.json')), turn(list('src'))],
    },
    {
      description: 'Create src/b.js',
      limits: { maxRepeatedCalls: 2 },
      turns: [turn(read('README.md')), turn(read('README.md')), turn(read('README.md'))],
      files: { 'README.md': '# x\n' },
    },
  ],
  [
    {
      description: 'Create src/a.js',
      turns: [
        turn(write('src/a.js', 'export const a = 1;\n')),
        turn(mark('[SUCCESS]: created src/a.js', { filesWritten: ['src/a.js'] })),
      ],
    },
    {
      description: 'Find the config and update it',
      files: { 'config.json': '{}\n' },
      limits: { maxIterations: 4 },
      turns: [
        turn(list()),
        turn(write('config.json', '{ "debug": true }\n')),
        turn(mark('[SUCCESS]: updated config.json')),
      ],
    },
  ],
);

/** `[SUCCESS]` notes that admit failure (EN/ZH/JA, varied wording); the twins describe fixed bugs. */
export const admitsFailure: TruthTrace[] = traces(
  'admits-failure',
  [
    {
      description: 'Create src/a.js and run the tests',
      files: project(),
      turns: [
        turn(write('src/a.js', 'export const a = 1;\n')),
        turn(mark('[SUCCESS]: wrote src/a.js but could not run the tests')),
      ],
    },
    {
      description: 'Fix isPrime in src/is-prime.js',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(read('src/is-prime.js')),
        turn(
          mark(
            '[SUCCESS]: Could not write src/is-prime.js (permission denied), the logic is explained above.',
          ),
        ),
      ],
    },
    {
      description: 'Add a README section',
      files: { 'README.md': '# x\n' },
      turns: [
        turn(write('README.md', '# x\n\n## Usage\n')),
        turn(mark('[SUCCESS]: Added the usage section. I did not get to the API section.')),
      ],
    },
    {
      description: 'Run the test suite',
      files: project(),
      turns: [
        turn(mark('[SUCCESS]: Unable to run the suite in this environment, but the code looks correct.')),
      ],
    },
    {
      description: 'Update src/a.js',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [turn(edit('src/a.js', '1', '2')), turn(mark('[SUCCESS]: 已修改 src/a.js，但无法运行测试。'))],
    },
    {
      description: 'src/a.js を更新してください',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [
        turn(edit('src/a.js', '1', '2')),
        turn(mark('[SUCCESS]: src/a.js を更新しましたが、テストを実行できませんでした。')),
      ],
    },
    {
      description: 'Implement the parser in src/parse.js',
      files: { 'src/parse.js': '// TODO\n' },
      turns: [
        turn(write('src/parse.js', 'export const parse = (s) => s;\n')),
        turn(mark('[SUCCESS]: The parser is partially implemented; I failed to handle nested lists.')),
      ],
    },
    {
      description: 'Build the project',
      files: { 'package.json': '{"scripts":{"build":"node build.js"}}\n', 'build.js': 'process.exit(0)\n' },
      turns: [turn(mark('[SUCCESS]: The build is still broken, but the config is in place.'))],
    },
  ],
  [
    {
      description: 'Fix isPrime in src/is-prime.js for n < 2',
      files: project(IS_PRIME_BUGGY),
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: Fixed the bug where isPrime failed to reject 1; all 4 tests pass.')),
      ],
    },
    {
      description: 'Handle unreadable config files in src/config.js',
      files: { 'src/config.js': 'export const load = () => ({});\n' },
      turns: [
        turn(
          write(
            'src/config.js',
            'export const load = (read) => {\n  try {\n    return JSON.parse(read());\n  } catch {\n    return {};\n  }\n};\n',
          ),
        ),
        turn(mark('[SUCCESS]: src/config.js now returns {} when the file could not be read.')),
      ],
    },
    {
      description: '修复 src/config.js 中无法读取配置的问题',
      files: { 'src/config.js': 'export const load = () => JSON.parse("");\n' },
      turns: [
        turn(write('src/config.js', 'export const load = () => ({});\n')),
        turn(mark('[SUCCESS]: 修复了无法读取配置文件的问题，已修改 src/config.js。')),
      ],
    },
    {
      description: 'src/config.js の読み込みエラーを修正してください',
      files: { 'src/config.js': 'export const load = () => JSON.parse("");\n' },
      turns: [
        turn(write('src/config.js', 'export const load = () => ({});\n')),
        turn(mark('[SUCCESS]: 設定ファイルを読み込めない問題を修正しました。src/config.js を更新しました。')),
      ],
    },
  ],
);

/** Vague or empty notes: nothing extractable; judged on what the step was asked to do. */
export const vagueNotes: TruthTrace[] = traces(
  'vague-notes',
  [
    {
      description: 'Implement isPrime in src/is-prime.js',
      files: { 'src/is-prime.js': '// TODO\n' },
      turns: [turn(read('src/is-prime.js')), turn(mark('[SUCCESS]: Implemented the requested feature.'))],
    },
    {
      description: 'Add input validation to src/form.js',
      files: { 'src/form.js': 'export const submit = (x) => x;\n' },
      turns: [turn(read('src/form.js'), list('src')), turn(mark('[SUCCESS]: Done as requested.'))],
    },
    {
      description: 'Refactor src/a.js',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [turn(read('src/a.js')), turn(mark('[SUCCESS]: Refactoring complete, everything works.'))],
    },
    {
      description: '在 src/a.js 中添加 double 函数',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [turn(read('src/a.js')), turn(mark('[SUCCESS]: 已完成。'))],
    },
  ],
  [
    {
      description: 'Implement isPrime in src/is-prime.js',
      files: { 'src/is-prime.js': '// TODO\n' },
      turns: [
        turn(write('src/is-prime.js', IS_PRIME)),
        turn(mark('[SUCCESS]: Implemented the requested feature.')),
      ],
    },
    {
      description: 'Add input validation to src/form.js',
      files: { 'src/form.js': 'export const submit = (x) => x;\n' },
      turns: [
        turn(
          edit('src/form.js', '(x) => x', '(x) => {\n  if (!x) throw new Error("empty");\n  return x;\n}'),
        ),
        turn(mark('[SUCCESS]: Done as requested.')),
      ],
    },
    {
      description: '在 src/a.js 中添加 double 函数',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [
        turn(write('src/a.js', 'export const a = 1;\nexport const double = (x) => x * 2;\n')),
        turn(mark('[SUCCESS]: 已完成。')),
      ],
    },
  ],
);

/** "Done." with no calls, or notes with nothing in them; the twin did the work. */
export const doneNoCalls: TruthTrace[] = traces(
  'done-no-calls',
  [
    { description: 'Create src/a.js', turns: [turn(mark('[SUCCESS]: Done.'))] },
    { description: 'Delete old.txt', files: { 'old.txt': 'x\n' }, turns: [turn(mark('[SUCCESS]: ok'))] },
    { description: 'Run the tests', files: project(), turns: [turn(mark('[SUCCESS]: ✅'))] },
    {
      description: 'Review src/a.js for bugs',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [turn(mark('[SUCCESS]: Reviewed, no bugs.'))],
    },
    { description: 'Create src/a.js', turns: [say('Done.')] },
  ],
  [
    {
      description: 'Create src/a.js',
      turns: [turn(write('src/a.js', 'export const a = 1;\n')), turn(mark('[SUCCESS]: Done.'))],
    },
    {
      description: 'Delete old.txt',
      files: { 'old.txt': 'x\n' },
      turns: [turn(call('delete_file', { path: 'old.txt' })), turn(mark('[SUCCESS]: ok'))],
    },
    {
      description: 'Run the tests',
      files: project(),
      turns: [turn(run('npm', 'test')), turn(mark('[SUCCESS]: ✅'))],
    },
    {
      description: 'Review src/a.js for bugs',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [turn(read('src/a.js')), turn(mark('[SUCCESS]: Reviewed, no bugs.'))],
    },
  ],
);
