import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { checkTag, type TagAction } from './asked-tags';
import { extractClaims } from './extract-claims';
import { stepExpectations } from './step-expectations';
import { readGitRefs } from './workspace-snapshot';

const execFileAsync = promisify(execFile);
const workspace = useTempWorkspaces({ git: true });

describe('tags asked for in a step description', () => {
  it.each<[string, TagAction[]]>([
    ['Tag the current commit as v1.2.0', [{ action: 'create', name: 'v1.2.0', target: 'HEAD' }]],
    ['Tag the previous commit (HEAD~1) as v1.0.0', [{ action: 'create', name: 'v1.0.0', target: 'HEAD~1' }]],
    ['Tag the latest commit as v1.2.0', [{ action: 'create', name: 'v1.2.0', target: 'HEAD' }]],
    [
      'Create an annotated tag v2.0.0 with the message "Release 2.0.0"',
      [{ action: 'create', name: 'v2.0.0', annotated: true }],
    ],
    [
      'Create a tag `release-3` on commit 3f2a9c1',
      [{ action: 'create', name: 'release-3', target: '3f2a9c1' }],
    ],
    ['Delete the git tag v0.9.0', [{ action: 'delete', name: 'v0.9.0' }]],
    ['为当前提交创建标签 v1.3.0', [{ action: 'create', name: 'v1.3.0' }]],
    ['删除标签 v0.1', [{ action: 'delete', name: 'v0.1' }]],
    ['現在のコミットにタグ v4.0.0 を作成する', [{ action: 'create', name: 'v4.0.0' }]],
  ])('%s', (description, tags) => {
    const expectations = stepExpectations(description);
    expect(expectations.tags).toEqual(tags);
    expect([...expectations.outcomes]).toEqual(['tag']);
  });

  it('an HTML tag is not a git tag', () => {
    const expectations = stepExpectations('Remove the tag from index.html');
    expect(expectations.tags).toEqual([]);
    expect(expectations.outcomes.has('tag')).toBe(false);
    expect(expectations.outcomes.has('delete')).toBe(true);
  });

  it('a release step asks for the file change and the tag', () => {
    const expectations = stepExpectations('Set VERSION to 1.1.0 and tag the release as v1.1.0');
    expect([...expectations.outcomes].sort()).toEqual(['tag', 'write']);
  });
});

describe('tag claims', () => {
  it.each([
    ['Tagged the current commit as v1.2.0.', { action: 'create', name: 'v1.2.0' }],
    ['Created the annotated tag v2.0.0.', { action: 'create', name: 'v2.0.0' }],
    ['Tagged HEAD~1 as v1.0.0.', { action: 'create', name: 'v1.0.0', target: 'HEAD~1' }],
    ['Deleted the tag v0.9.0.', { action: 'delete', name: 'v0.9.0' }],
    ['已创建标签 v1.3.0', { action: 'create', name: 'v1.3.0' }],
    ['タグ v4.0.0 を作成しました', { action: 'create', name: 'v4.0.0' }],
  ])('%s', (text, claim) => {
    expect(extractClaims(text).filter((found) => found.kind === 'git-tag')).toEqual([
      expect.objectContaining({ kind: 'git-tag', ...claim }),
    ]);
  });

  it('no tag claim without a tag name', () => {
    expect(
      extractClaims('Added tags to the HTML headings.').filter((claim) => claim.kind === 'git-tag'),
    ).toEqual([]);
  });
});

describe('checkTag reads the real repository', () => {
  async function repository() {
    const ws = await workspace({ 'a.txt': '1\n' });
    await ws.write('a.txt', '2\n');
    await ws.git('commit', '-qam', 'two');
    const git = async (args: readonly string[]) => {
      try {
        const { stdout } = await execFileAsync('git', [...args], { cwd: ws.root });
        return { exitCode: 0, stdout } as never;
      } catch {
        return { exitCode: 1, stdout: '' } as never;
      }
    };
    return { ws, git };
  }

  it('a created tag (lightweight, annotated, packed) must be new, and on the named commit', async () => {
    const { ws, git } = await repository();
    await ws.git('tag', 'v0.1.0');
    const before = readGitRefs(ws.root);
    await ws.git('tag', 'v1.0.0', 'HEAD~1');
    await ws.git('tag', '-a', 'v2.0.0', '-m', 'two');
    await ws.git('pack-refs', '--all');
    const after = readGitRefs(ws.root);
    const check = (tag: TagAction) => checkTag(tag, { refs: { before, after }, git, tagCommandPassed: true });
    expect(await check({ action: 'create', name: 'v1.0.0', target: 'HEAD~1' })).toMatchObject({
      status: 'pass',
    });
    expect(await check({ action: 'create', name: 'v2.0.0', target: 'HEAD' })).toMatchObject({
      status: 'pass',
    });
    expect(await check({ action: 'create', name: 'v2.0.0', target: 'HEAD~1' })).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/not on HEAD~1/),
    });
    expect(await check({ action: 'create', name: 'v3.0.0' })).toMatchObject({ status: 'fail' });
    expect(await check({ action: 'create', name: 'v0.1.0' })).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/already existed/),
    });
    expect(await check({ action: 'create' })).toMatchObject({ status: 'pass' });
    expect(await check({ action: 'create', name: 'v2.0.0', annotated: true })).toMatchObject({
      status: 'pass',
    });
    expect(await check({ action: 'create', name: 'v1.0.0', annotated: true })).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/lightweight/),
    });
    expect(await check({ action: 'create', name: 'v1.0.0', target: 'HEAD' })).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/not on HEAD/),
    });
  });

  it('"the latest commit" is HEAD when the step started, or HEAD after the step committed', async () => {
    const { ws, git } = await repository();
    const before = readGitRefs(ws.root);
    await ws.write('b.txt', 'b\n');
    await ws.git('add', '-A');
    await ws.git('commit', '-m', 'b');
    await ws.git('tag', 'v1.1.0');
    await ws.git('tag', 'v1.0.0', 'HEAD~1');
    const after = readGitRefs(ws.root);
    const check = (tag: TagAction) => checkTag(tag, { refs: { before, after }, git, tagCommandPassed: true });
    expect(await check({ action: 'create', name: 'v1.1.0', target: 'HEAD' })).toMatchObject({
      status: 'pass',
    });
    expect(await check({ action: 'create', name: 'v1.0.0', target: 'HEAD' })).toMatchObject({
      status: 'pass',
    });
  });

  it('a deleted tag must be gone, and have been there', async () => {
    const { ws, git } = await repository();
    await ws.git('tag', '-a', 'v0.8.0', '-m', 'old');
    await ws.git('tag', 'v0.9.0');
    await ws.git('pack-refs', '--all');
    const before = readGitRefs(ws.root);
    await ws.git('tag', '-d', 'v0.8.0');
    const after = readGitRefs(ws.root);
    const check = (tag: TagAction) => checkTag(tag, { refs: { before, after }, git, tagCommandPassed: true });
    expect(await check({ action: 'delete', name: 'v0.8.0' })).toMatchObject({ status: 'pass' });
    expect(await check({ action: 'delete', name: 'v0.9.0' })).toMatchObject({ status: 'fail' });
    expect(await check({ action: 'delete', name: 'v0.7.0' })).toMatchObject({ status: 'fail' });
  });
});

describe('no tag from a number that is not a tag name', () => {
  it('"tagged the test with skip for node 18" claims no tag', () => {
    expect(
      extractClaims('Tagged the flaky test with skip for node 18.').filter(
        (claim) => claim.kind === 'git-tag',
      ),
    ).toEqual([]);
  });

  it('a name before the CJK verb', () => {
    expect(stepExpectations('現在のコミットに v4.1.0 というタグを作成する').tags).toEqual([
      { action: 'create', name: 'v4.1.0' },
    ]);
  });
});
