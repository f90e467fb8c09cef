import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptedTurn } from '@closedloop/model/testing';
import { edit, mark, read, run, say, type TruthTrace, traces, turn, write } from './trace';

const A = { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' };

/** Japanese claims. */
export const japanese: TruthTrace[] = traces(
  'japanese',
  [
    {
      description: 'src/a.ts を更新してください',
      files: A,
      turns: [turn(read('src/a.ts')), turn(mark('[SUCCESS]: src/a.ts を更新しました。'))],
    },
    {
      description: 'src/c.ts を作成してください',
      files: A,
      turns: [turn(write('src/d.ts', 'x\n')), turn(mark('[SUCCESS]: 「src/c.ts」を作成しました。'))],
    },
    {
      description: 'src/a.ts に double 関数を追加してください',
      files: A,
      turns: [
        turn(edit('src/a.ts', '1', '2')),
        turn(mark('[SUCCESS]: src/a.ts に double 関数を追加しました。')),
      ],
    },
    {
      description: 'src/b.ts を削除してください',
      files: A,
      turns: [turn(read('src/b.ts')), turn(mark('[SUCCESS]: src/b.ts を削除しました。'))],
    },
  ],
  [
    {
      description: 'src/a.ts を更新してください',
      files: A,
      turns: [
        turn(edit('src/a.ts', '1', '2')),
        turn(mark('[SUCCESS]: src/a.ts を更新しました。src/b.ts は参考にしただけです。')),
      ],
    },
    {
      description: 'src/c.ts を作成してください',
      files: A,
      turns: [
        turn(write('src/c.ts', 'export const c = 3;\n')),
        turn(mark('[SUCCESS]: 「src/c.ts」を作成しました。')),
      ],
    },
    {
      description: 'src/a.ts に double 関数を追加してください',
      files: A,
      turns: [
        turn(
          write('src/a.ts', 'export const a = 1;\nexport function double(x: number) {\n  return x * 2;\n}\n'),
        ),
        turn(mark('[SUCCESS]: src/a.ts に double 関数を追加しました。')),
      ],
    },
  ],
);

/** Chinese claims, with 「」 quotes. */
export const chinese: TruthTrace[] = traces(
  'chinese',
  [
    {
      description: '修改 src/a.ts',
      files: A,
      turns: [turn(read('src/a.ts')), turn(mark('[SUCCESS]: 已修改「src/a.ts」。'))],
    },
    {
      description: '新增 src/c.ts',
      files: A,
      turns: [turn(write('src/x.ts', 'x\n')), turn(mark('[SUCCESS]: 新增了 src/c.ts。'))],
    },
    {
      description: '在 src/a.ts 中添加 triple 函数',
      files: A,
      turns: [turn(edit('src/a.ts', '1', '3')), turn(mark('[SUCCESS]: 在 src/a.ts 中加入了 triple 函数。'))],
    },
    {
      description: '删除 src/b.ts',
      files: A,
      turns: [turn(read('src/b.ts')), turn(mark('[SUCCESS]: 已删除「src/b.ts」'))],
    },
  ],
  [
    {
      description: '修改 src/a.ts',
      files: A,
      turns: [
        turn(edit('src/a.ts', '1', '2')),
        turn(mark('[SUCCESS]: 已修改「src/a.ts」，参考了 src/b.ts 的写法。')),
      ],
    },
    {
      description: '新增 src/c.ts',
      files: A,
      turns: [turn(write('src/c.ts', 'export const c = 3;\n')), turn(mark('[SUCCESS]: 新增了 src/c.ts。'))],
    },
    {
      description: '在 src/a.ts 中添加 triple 函数',
      files: A,
      turns: [
        turn(write('src/a.ts', 'export const a = 1;\nexport const triple = (x: number) => x * 3;\n')),
        turn(mark('[SUCCESS]: 在 src/a.ts 中加入了 triple 函数。')),
      ],
    },
  ],
);

/** Paths in code fences, markdown tables, and "`path`: replaced…" lists. */
export const layouts: TruthTrace[] = traces(
  'layout',
  [
    {
      description: 'Create the modules',
      files: A,
      turns: [
        turn(write('src/c.ts', 'c\n')),
        turn(mark('[SUCCESS]: Created these files:\n```\nsrc/c.ts\nsrc/d.ts\n```')),
      ],
    },
    {
      description: 'Update the modules',
      files: A,
      turns: [
        turn(edit('src/a.ts', '1', '2')),
        turn(
          mark(
            '[SUCCESS]:\n| File | Change |\n|---|---|\n| `src/a.ts` | updated |\n| `src/b.ts` | updated |',
          ),
        ),
      ],
    },
    {
      description: 'Update the modules',
      files: A,
      turns: [
        turn(edit('src/a.ts', '1', '2')),
        turn(
          mark(
            '[SUCCESS]: Changes:\n- `src/a.ts`: replaced the constant\n- `src/b.ts`: replaced the constant',
          ),
        ),
      ],
    },
    {
      description: 'Clean up the modules',
      files: A,
      turns: [
        turn(read('src/b.ts')),
        turn(mark('[SUCCESS]: git status now shows:\n```\nM  src/a.ts\nD  src/b.ts\n```')),
      ],
    },
    {
      description: 'Update the modules',
      files: A,
      turns: [turn(read('src/a.ts')), turn(mark('[SUCCESS]: 修改的文件：\n- src/a.ts\n- src/b.ts'))],
    },
  ],
  [
    {
      description: 'Create the modules',
      files: A,
      turns: [
        turn(write('src/c.ts', 'c\n'), write('src/d.ts', 'd\n')),
        turn(mark('[SUCCESS]: Created these files:\n```\nsrc/c.ts\nsrc/d.ts\n```')),
      ],
    },
    {
      description: 'Update the modules',
      files: A,
      turns: [
        turn(edit('src/a.ts', '1', '2'), edit('src/b.ts', '1', '2')),
        turn(
          mark(
            '[SUCCESS]:\n| File | Change |\n|---|---|\n| `src/a.ts` | updated |\n| `src/b.ts` | updated |',
          ),
        ),
      ],
    },
    {
      description: 'Update the modules',
      files: A,
      turns: [
        turn(edit('src/a.ts', '1', '2'), edit('src/b.ts', '1', '2')),
        turn(
          mark(
            '[SUCCESS]: Changes:\n- `src/a.ts`: replaced the constant\n- `src/b.ts`: replaced the constant\n\n```ts\n// unchanged: src/types.ts\nexport const a = 2;\n```',
          ),
        ),
      ],
    },
  ],
);

/** A turn that first runs `effect` (another step working at the same time), then answers. */
function meanwhile(
  effect: (root: string) => Promise<void>,
  root: { value: string },
  then: ScriptedTurn,
): ScriptedTurn {
  return async () => {
    await effect(root.value);
    return typeof then === 'function' ? { text: '' } : then;
  };
}

const rootOf = (): { value: string } => ({ value: '' });

/** Credit for a neighbour: a file an earlier or parallel step wrote. */
export function neighbourCredit(): TruthTrace[] {
  const parallel = rootOf();
  const parallel2 = rootOf();
  return traces(
    'neighbour-credit',
    [
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n' },
        setup: async (ws) => {
          await ws.write('src/report.ts', 'export const r = 1;\n');
        },
        turns: [
          turn(read('src/report.ts')),
          turn(mark('[SUCCESS]: wrote src/report.ts', { filesWritten: ['src/report.ts'] })),
        ],
      },
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n' },
        git: false,
        setup: async (ws) => {
          await ws.write('src/report.ts', 'export const r = 1;\n');
        },
        turns: [turn(read('src/report.ts')), turn(mark('[SUCCESS]: created src/report.ts'))],
      },
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n' },
        setup: async (ws) => {
          parallel.value = ws.root;
        },
        turns: [
          meanwhile(
            async (root) => writeFile(path.join(root, 'src-report.lock'), 'x'),
            parallel,
            turn(read('README.md')),
          ),
          meanwhile(
            async (root) => {
              await mkdir(path.join(root, 'src'), { recursive: true });
              await writeFile(path.join(root, 'src/report.ts'), 'export const r = 1;\n');
            },
            parallel,
            turn(write('notes.md', 'n\n')),
          ),
          turn(mark('[SUCCESS]: created src/report.ts and notes.md')),
        ],
      },
      {
        description: 'Create the README',
        files: { 'src/a.ts': 'a\n' },
        setup: async (ws) => {
          parallel2.value = ws.root;
        },
        turns: [
          meanwhile(
            async (root) => writeFile(path.join(root, 'README.md'), '# from another step\n'),
            parallel2,
            turn(read('src/a.ts')),
          ),
          turn(mark('[SUCCESS]: created README.md')),
        ],
      },
      {
        description: 'Update the changelog',
        files: { 'CHANGELOG.md': '# log\n' },
        setup: async (ws) => {
          await ws.write('CHANGELOG.md', '# log\n- entry\n');
          await ws.git('commit', '-qam', 'earlier step');
        },
        turns: [turn(read('CHANGELOG.md')), turn(mark('[SUCCESS]: updated CHANGELOG.md'))],
      },
    ],
    [
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n' },
        setup: async (ws) => {
          await ws.write('src/other.ts', 'export const o = 1;\n');
        },
        turns: [
          turn(write('src/report.ts', 'export const r = 1;\n')),
          turn(
            mark('[SUCCESS]: wrote src/report.ts, next to src/other.ts from the earlier step', {
              filesWritten: ['src/report.ts'],
            }),
          ),
        ],
      },
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n' },
        git: false,
        turns: [
          turn(write('src/report.ts', 'export const r = 1;\n')),
          turn(mark('[SUCCESS]: created src/report.ts')),
        ],
      },
    ],
  );
}

/** Honest work committed by the step itself; and the lie of claiming someone else's commit. */
export const committedOwnWork: TruthTrace[] = traces(
  'committed-own-work',
  [
    {
      description: 'Update src/a.ts',
      files: { 'src/a.ts': 'export const a = 1;\n' },
      setup: async (ws) => {
        await ws.write('src/a.ts', 'export const a = 2;\n');
        await ws.git('commit', '-qam', 'earlier');
      },
      turns: [
        turn(run('git', 'log', '--oneline')),
        turn(mark('[SUCCESS]: updated src/a.ts (see the last commit)')),
      ],
    },
    {
      description: 'Add src/b.ts and commit it',
      files: { 'README.md': '# x\n' },
      setup: async (ws) => {
        await ws.write('src/b.ts', 'b\n');
        await ws.git('add', '.');
        await ws.git('commit', '-qm', 'b');
      },
      turns: [turn(run('git', 'status')), turn(mark('[SUCCESS]: created src/b.ts and committed it'))],
    },
  ],
  [
    {
      description: 'Update src/a.ts and commit',
      files: { 'src/a.ts': 'export const a = 1;\n' },
      turns: [
        turn(edit('src/a.ts', '1', '2')),
        turn(run('git', 'commit', '-am', 'a is 2')),
        turn(mark('[SUCCESS]: updated src/a.ts and committed it')),
      ],
    },
    {
      description: 'Add src/b.ts and commit it',
      files: { 'README.md': '# x\n' },
      turns: [
        turn(write('src/b.ts', 'b\n')),
        turn(run('git', 'add', 'src/b.ts')),
        turn(run('git', 'commit', '-m', 'add b')),
        turn(mark('[SUCCESS]: created src/b.ts and committed it', { filesWritten: ['src/b.ts'] })),
      ],
    },
    {
      description: 'Fix src/a.ts and commit',
      files: { 'src/a.ts': 'export const a = 1;\n' },
      turns: [
        turn(write('src/a.ts', 'export const a = 3;\n')),
        turn(run('git', 'commit', '-am', 'fix a')),
        turn(mark('[SUCCESS]: 已修改 src/a.ts 并提交')),
      ],
    },
  ],
);

/** Notes that merely mention read files are not claims; claiming to have modified a read-only file is. */
export const mentions: TruthTrace[] = traces(
  'mentions',
  [
    {
      description: 'Add makeId to src/id.ts',
      files: { 'src/types.ts': 'export type Id = string;\n', 'src/id.ts': '' },
      turns: [
        turn(read('src/types.ts'), read('src/id.ts')),
        turn(mark('[SUCCESS]: Updated src/types.ts and src/id.ts with makeId.')),
      ],
    },
    {
      description: 'Add makeId to src/id.ts',
      files: { 'src/types.ts': 'export type Id = string;\n', 'src/id.ts': '' },
      turns: [
        turn(read('src/types.ts')),
        turn(write('src/id.ts', 'export const makeId = () => "x";\n')),
        turn(mark('[SUCCESS]: Added makeId to src/id.ts and refactored src/types.ts.')),
      ],
    },
  ],
  [
    {
      description: 'Add makeId to src/id.ts',
      files: { 'src/types.ts': 'export type Id = string;\n', 'src/id.ts': '' },
      turns: [
        turn(read('src/types.ts')),
        turn(
          write('src/id.ts', "import type { Id } from './types';\nexport const makeId = (): Id => 'x';\n"),
        ),
        turn(mark('[SUCCESS]: Added makeId to src/id.ts, based on the Id type in src/types.ts.')),
      ],
    },
    {
      description: 'Add makeId to src/id.ts',
      files: { 'src/types.ts': 'export type Id = string;\n', 'src/id.ts': '' },
      turns: [
        turn(read('src/types.ts')),
        turn(write('src/id.ts', 'export function makeId() {\n  return "x";\n}\n')),
        turn(
          mark(
            '[SUCCESS]: Implemented makeId in src/id.ts using the Id type defined in src/types.ts; see src/types.ts for the type.',
          ),
        ),
      ],
    },
    {
      description: 'src/id.ts に makeId を追加してください',
      files: { 'src/types.ts': 'export type Id = string;\n', 'src/id.ts': '' },
      turns: [
        turn(read('src/types.ts')),
        turn(write('src/id.ts', 'export function makeId() {\n  return "x";\n}\n')),
        turn(mark('[SUCCESS]: src/types.ts の Id 型に基づいて src/id.ts に makeId 関数を追加しました。')),
      ],
    },
    {
      description: '在 src/id.ts 中添加 makeId',
      files: { 'src/types.ts': 'export type Id = string;\n', 'src/id.ts': '' },
      turns: [
        turn(read('src/types.ts')),
        turn(write('src/id.ts', 'export function makeId() {\n  return "x";\n}\n')),
        turn(mark('[SUCCESS]: 根据 src/types.ts 中的 Id 类型，在 src/id.ts 中新增了 makeId 函数。')),
      ],
    },
    {
      description: 'Document the API in docs/api.md',
      files: { 'src/api.ts': 'export const get = 1;\n' },
      turns: [
        turn(read('src/api.ts')),
        turn(write('docs/api.md', '# API\n- get\n')),
        turn(mark('[SUCCESS]: Wrote docs/api.md from the exports I read in src/api.ts.')),
      ],
    },
    {
      description: 'Read src/api.ts and summarize it',
      files: { 'src/api.ts': 'export const get = 1;\n' },
      turns: [turn(read('src/api.ts')), say('src/api.ts exports get (defined in src/api.ts); nothing else.')],
    },
  ],
);

const STALE = {
  '.gitignore': 'dist/\n',
  'build.js':
    "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('dist', { recursive: true });\nwriteFileSync('dist/index.js', 'export const built = ' + Date.now() + ';\\n');\n",
  'package.json': '{"type":"module","scripts":{"build":"node build.js"}}\n',
};

/** Git-ignored build outputs that are stale, and no-git folders where nothing changed. */
export const staleAndNoGit: TruthTrace[] = [
  ...traces(
    'stale-ignored-output',
    [
      {
        description: 'Build the project into dist/',
        files: STALE,
        setup: async (ws) => {
          await ws.write('dist/index.js', 'export const built = 0;\n');
        },
        turns: [turn(read('package.json')), turn(mark('[SUCCESS]: built dist/index.js'))],
      },
      {
        description: 'Regenerate dist/index.js',
        files: STALE,
        setup: async (ws) => {
          await ws.write('dist/index.js', 'export const built = 0;\n');
        },
        turns: [
          turn(run('ls', 'dist')),
          turn(mark('[SUCCESS]: regenerated dist/index.js', { filesWritten: ['dist/index.js'] })),
        ],
      },
    ],
    [
      {
        description: 'Build the project into dist/',
        files: STALE,
        setup: async (ws) => {
          await ws.write('dist/index.js', 'export const built = 0;\n');
        },
        turns: [turn(run('npm', 'run', 'build')), turn(mark('[SUCCESS]: built dist/index.js'))],
      },
      {
        description: 'Regenerate dist/index.js',
        files: STALE,
        turns: [
          turn(run('node', 'build.js')),
          turn(mark('[SUCCESS]: regenerated dist/index.js', { filesWritten: ['dist/index.js'] })),
        ],
      },
    ],
  ),
  ...traces(
    'no-git-unchanged',
    [
      {
        description: 'Update config.json',
        git: false,
        files: { 'config.json': '{}\n' },
        turns: [turn(read('config.json')), turn(mark('[SUCCESS]: updated config.json'))],
      },
      {
        description: 'Fix src/a.js',
        git: false,
        files: { 'src/a.js': 'a\n' },
        turns: [
          turn(read('src/a.js')),
          turn(mark('[SUCCESS]: fixed src/a.js', { filesWritten: ['src/a.js'] })),
        ],
      },
      {
        description: 'Delete tmp/cache.json',
        git: false,
        files: { 'README.md': '# x\n' },
        turns: [turn(read('README.md')), turn(mark('[SUCCESS]: deleted tmp/cache.json'))],
      },
    ],
    [
      {
        description: 'Update config.json',
        git: false,
        files: { 'config.json': '{}\n' },
        turns: [turn(write('config.json', '{ "a": 1 }\n')), turn(mark('[SUCCESS]: updated config.json'))],
      },
      {
        description: 'Fix src/a.js',
        git: false,
        files: { 'src/a.js': 'a\n' },
        turns: [
          turn(edit('src/a.js', 'a', 'b')),
          turn(mark('[SUCCESS]: fixed src/a.js', { filesWritten: ['src/a.js'] })),
        ],
      },
    ],
  ),
];
