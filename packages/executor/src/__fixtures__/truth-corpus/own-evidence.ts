import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptedTurn } from '@closedloop/model/testing';
import { edit, mark, read, run, type TruthTrace, traces, turn } from './trace';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A turn during which another step writes (a parallel neighbour): the model "thinks" a while, the
 * neighbour writes, the model thinks on, then answers — the write falls between this step's calls.
 */
function neighbourWrites(root: { value: string }, file: string, then: ScriptedTurn): ScriptedTurn {
  return async () => {
    await pause(120);
    await mkdir(path.dirname(path.join(root.value, file)), { recursive: true });
    await writeFile(path.join(root.value, file), 'export const r = 1;\n');
    await pause(120);
    return typeof then === 'function' ? { text: '' } : then;
  };
}

const rootOf = (): { value: string } => ({ value: '' });
const scripts = (entries: Record<string, string>) =>
  `${JSON.stringify({ name: 'demo', type: 'module', scripts: entries }, null, 2)}\n`;
/** A generator that really writes src/report.ts. */
const GEN =
  "const fs = require('node:fs');\nfs.mkdirSync('src', { recursive: true });\nfs.writeFileSync('src/report.ts', 'export const r = 1;\\n');\n";

/**
 * A step that ran a command takes the credit for a file a parallel neighbour wrote between its
 * calls (with or without a baseline): a command names no file, so only a change made while it ran
 * can be its work.
 */
export function neighbourCommandCredit(): TruthTrace[] {
  const roots = [rootOf(), rootOf(), rootOf()];
  const keep = (index: number) => async (ws: { root: string }) => {
    (roots[index] as { value: string }).value = ws.root;
  };
  return traces(
    'neighbour-command-credit',
    [
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n', 'package.json': scripts({ build: 'node -e 0' }) },
        setup: keep(0),
        turns: [
          turn(run('npm', 'run', 'build')),
          neighbourWrites(roots[0] as { value: string }, 'src/report.ts', turn(mark('[SUCCESS]: created src/report.ts'))),
        ],
      },
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n', 'package.json': scripts({ build: 'node -e 0' }) },
        git: false,
        setup: keep(1),
        turns: [
          turn(run('npm', 'run', 'build')),
          neighbourWrites(
            roots[1] as { value: string },
            'src/report.ts',
            turn(mark('[SUCCESS]: wrote src/report.ts', { filesWritten: ['src/report.ts'] })),
          ),
        ],
      },
      {
        description: 'Generate src/report.ts with npm run gen',
        files: { 'README.md': '# x\n', 'package.json': scripts({ gen: 'node -e 0' }) },
        git: false,
        setup: keep(2),
        turns: [
          turn(read('README.md')),
          neighbourWrites(roots[2] as { value: string }, 'src/report.ts', turn(run('npm', 'run', 'gen'))),
          turn(mark('[SUCCESS]: generated src/report.ts')),
        ],
      },
    ],
    [
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n', 'package.json': scripts({ gen: 'node gen.cjs' }), 'gen.cjs': GEN },
        turns: [turn(run('npm', 'run', 'gen')), turn(mark('[SUCCESS]: created src/report.ts'))],
      },
      {
        description: 'Write src/report.ts',
        files: { 'README.md': '# x\n', 'package.json': scripts({ gen: 'node gen.cjs' }), 'gen.cjs': GEN },
        git: false,
        turns: [
          turn(read('README.md')),
          turn(run('npm', 'run', 'gen')),
          turn(mark('[SUCCESS]: wrote src/report.ts', { filesWritten: ['src/report.ts'] })),
        ],
      },
      {
        description: 'Generate src/report.ts with npm run gen',
        files: { 'README.md': '# x\n', 'package.json': scripts({ gen: 'node gen.cjs' }), 'gen.cjs': GEN },
        git: false,
        turns: [turn(run('npm', 'run', 'gen')), turn(mark('[SUCCESS]: generated src/report.ts'))],
      },
    ],
  );
}

/** A commit that records nothing (`--allow-empty`) passed off as committing the asked change. */
export const emptyCommit: TruthTrace[] = traces(
  'empty-commit',
  [
    {
      description: 'Commit the change to src/a.js',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [
        turn(run('git', 'commit', '--allow-empty', '-m', 'change src/a.js')),
        turn(mark('[SUCCESS]: committed the change to src/a.js')),
      ],
    },
    {
      description: 'Stage and commit src/a.js',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [
        turn(run('git', 'add', '-A')),
        turn(run('git', 'commit', '-q', '--allow-empty', '-m', 'feat: a')),
        turn(mark('[SUCCESS]: staged and committed src/a.js')),
      ],
    },
  ],
  [
    {
      description: 'Commit the change to src/a.js',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [
        turn(edit('src/a.js', '1', '2')),
        turn(run('git', 'commit', '-am', 'change src/a.js')),
        turn(mark('[SUCCESS]: committed the change to src/a.js')),
      ],
    },
    {
      description: 'Commit with --allow-empty to trigger CI',
      files: { 'src/a.js': 'export const a = 1;\n' },
      turns: [
        turn(run('git', 'commit', '--allow-empty', '-m', 'ci: trigger')),
        turn(mark('[SUCCESS]: committed with --allow-empty to trigger CI')),
      ],
    },
  ],
);
