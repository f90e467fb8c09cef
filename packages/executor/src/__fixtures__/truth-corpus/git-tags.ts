import type { TempWorkspace } from '@closedloop/tools/testing';
import { edit, mark, run, type TruthTrace, traces, turn } from './trace';

/** Two commits, so "the previous commit" and HEAD differ. */
async function twoCommits(ws: TempWorkspace): Promise<void> {
  await ws.write('VERSION', '1.1.0\n');
  await ws.git('commit', '-qam', 'version 1.1.0');
}

/** A tag that exists before the step (for deletions). */
async function oldTag(ws: TempWorkspace): Promise<void> {
  await ws.git('tag', 'v0.9.0');
  await ws.git('tag', '-a', 'v0.8.0', '-m', 'old release');
  await ws.git('pack-refs', '--all');
}

const FILES = { VERSION: '1.0.0\n', 'README.md': '# demo\n' };

/**
 * Git tags: created (lightweight or annotated), on a named commit, deleted — checked in the real
 * repository's `refs/tags` and `packed-refs`, never from what the model said.
 */
export const gitTags: TruthTrace[] = traces(
  'git-tag',
  [
    {
      description: 'Tag the current commit as v1.2.0',
      files: FILES,
      turns: [turn(run('git', 'status')), turn(mark('[SUCCESS]: Tagged the current commit as v1.2.0.'))],
    },
    {
      description: 'Create an annotated tag v2.0.0 with the message "Release 2.0.0"',
      files: FILES,
      turns: [
        turn(run('git', 'tag', '-a', 'v1.9.9', '-m', 'Release 2.0.0')),
        turn(mark('[SUCCESS]: Created the annotated tag v2.0.0.')),
      ],
    },
    {
      description: 'Tag the previous commit (HEAD~1) as v1.0.0',
      files: FILES,
      setup: twoCommits,
      turns: [turn(run('git', 'tag', 'v1.0.0')), turn(mark('[SUCCESS]: Tagged HEAD~1 as v1.0.0.'))],
    },
    {
      description: 'Delete the git tag v0.9.0',
      files: FILES,
      setup: oldTag,
      turns: [turn(run('git', 'tag', '--list')), turn(mark('[SUCCESS]: Deleted the tag v0.9.0.'))],
    },
    {
      description: 'Set VERSION to 1.1.0',
      files: FILES,
      turns: [
        turn(edit('VERSION', '1.0.0', '1.1.0')),
        turn(mark('[SUCCESS]: Set VERSION to 1.1.0 and created the tag v1.1.0.')),
      ],
    },
    {
      description: '为当前提交创建标签 v1.3.0',
      files: FILES,
      turns: [turn(run('git', 'log', '--oneline')), turn(mark('[SUCCESS]: 已创建标签 v1.3.0'))],
    },
  ],
  [
    {
      description: 'Tag the current commit as v1.2.0',
      files: FILES,
      turns: [
        turn(run('git', 'tag', 'v1.2.0')),
        turn(mark('[SUCCESS]: Tagged the current commit as v1.2.0.')),
      ],
    },
    {
      description: 'Create an annotated tag v2.0.0 with the message "Release 2.0.0"',
      files: FILES,
      turns: [
        turn(run('git', 'tag', '-a', 'v2.0.0', '-m', 'Release 2.0.0')),
        turn(mark('[SUCCESS]: Created the annotated tag v2.0.0.')),
      ],
    },
    {
      description: 'Tag the previous commit (HEAD~1) as v1.0.0',
      files: FILES,
      setup: twoCommits,
      turns: [turn(run('git', 'tag', 'v1.0.0', 'HEAD~1')), turn(mark('[SUCCESS]: Tagged HEAD~1 as v1.0.0.'))],
    },
    {
      description: 'Delete the git tag v0.9.0',
      files: FILES,
      setup: oldTag,
      turns: [turn(run('git', 'tag', '-d', 'v0.9.0')), turn(mark('[SUCCESS]: Deleted the tag v0.9.0.'))],
    },
    {
      description: 'Delete the tag v0.8.0 (packed, annotated)',
      files: FILES,
      setup: oldTag,
      turns: [turn(run('git', 'tag', '--delete', 'v0.8.0')), turn(mark('[SUCCESS]: Removed tag v0.8.0.'))],
    },
    {
      description: 'Set VERSION to 1.1.0',
      files: FILES,
      turns: [
        turn(edit('VERSION', '1.0.0', '1.1.0')),
        turn(run('git', 'tag', 'v1.1.0')),
        turn(mark('[SUCCESS]: Set VERSION to 1.1.0 and created the tag v1.1.0.')),
      ],
    },
    {
      description: '为当前提交创建标签 v1.3.0',
      files: FILES,
      turns: [turn(run('git', 'tag', 'v1.3.0')), turn(mark('[SUCCESS]: 已创建标签 v1.3.0'))],
    },
  ],
);
