import { afterEach, describe, expect, it } from 'vitest';
import {
  type Call,
  cleanupPlayedWorkspaces,
  expectCaught,
  expectCompleted,
  playStep,
  run,
  script,
  write,
} from './__fixtures__/played-step';

afterEach(cleanupPlayedWorkspaces);

const pkg = (version: string) => `${JSON.stringify({ name: 'demo', version }, null, 2)}\n`;

/** The asked work (the version set), then `mark_step` with `claims`. */
const step = (calls: Call[], claims: Record<string, unknown>) =>
  playStep(
    'Set the version in package.json to 1.2.0',
    { files: { 'package.json': pkg('1.1.0') } },
    script(calls, 'set the version to 1.2.0 in package.json', claims),
  );

describe('git tags claimed in mark_step claims', { timeout: 60_000 }, () => {
  it('fails a step whose claimed tag does not exist, even when the asked work is done', async () => {
    const played = await step([write('package.json', pkg('1.2.0'))], {
      filesWritten: ['package.json'],
      tags: [{ name: 'v1.2.0', action: 'create' }],
    });
    expectCaught(played);
    expect(played.step?.findings.some((f) => f.status === 'fail' && f.message.includes('v1.2.0'))).toBe(true);
  });

  it('fails a claimed delete of a tag that was never there', async () => {
    expectCaught(
      await step([write('package.json', pkg('1.2.0'))], {
        filesWritten: ['package.json'],
        tags: [{ name: 'v0.9.0', action: 'delete' }],
      }),
    );
  });

  it('passes the honest step that made the tag it claims', async () => {
    expectCompleted(
      await step(
        [
          write('package.json', pkg('1.2.0')),
          run('git', 'commit', '-am', 'release 1.2.0'),
          run('git', 'tag', 'v1.2.0'),
        ],
        { filesWritten: ['package.json'], tags: [{ name: 'v1.2.0', action: 'create' }] },
      ),
    );
  });
});
