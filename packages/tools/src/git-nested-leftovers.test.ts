/**
 * What a sandboxed command leaves in git directories other than the workspace repository's own
 * for git run later outside the sandbox: a nested repository that is no submodule, a work tree or
 * object store pointed outside the workspace, and files in a git directory that block whatever
 * reads them. Each attack has an honest twin: ordinary git work passes untouched.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostGit, sandboxedShell } from './__fixtures__/host-git';
import { createCommandRunner } from './create-command-runner';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { probeSandbox } from './sandbox';

const hasSandbox = (await probeSandbox()).available;

let ws: TempWorkspace;
/** Where a planted program leaves its mark: outside the workspace, so no command can fake it. */
let host: string;
beforeEach(async () => {
  ws = await createTempWorkspace({ files: { 'a.txt': 'a\n' } });
  host = await mkdtemp(path.join(homedir(), '.closedloop-nested-'));
});
afterEach(async () => {
  await ws.cleanup();
  await rm(host, { recursive: true, force: true });
});

const commit = 'git -c user.name=t -c user.email=t@t commit -q';

describe.runIf(hasSandbox)('git directories a command leaves beside the workspace repository', () => {
  const runner = () => createCommandRunner({ root: ws.root, sandbox: 'required' });
  const sh = (script: string) => sandboxedShell(ws, script);
  const pwned = () => path.join(host, 'pwned');
  const mark = () => `touch ${pwned()}`;
  const setup = `git init -q && ${commit} --allow-empty -m init`;

  it('refuses the settings of a nested repository (no submodule) that run programs for git in it', async () => {
    const planted = await sh(
      `${setup} && mkdir -p sub/deep && cd sub && git init -q && echo x > f && git add f && ${commit} -m one && ` +
        `git config core.fsmonitor '${mark()}' && git config core.hooksPath hooks2 && ` +
        `git config diff.external '${mark()}' && git config filter.f.clean '${mark()}' && echo 'f filter=f' > .gitattributes && ` +
        `git config core.sshCommand '${mark()}' && mkdir -p hooks2 .git/hooks && printf '#!/bin/sh\\n${mark()}\\n' > .git/hooks/pre-commit && ` +
        `cp .git/hooks/pre-commit hooks2/pre-commit && chmod +x .git/hooks/pre-commit hooks2/pre-commit && echo y > f`,
    );
    expect(planted.exitCode).toBe(0);
    expect(planted.stderr).toMatch(/moved aside/);
    const sub = path.join(ws.root, 'sub');
    hostGit(sub, 'status');
    hostGit(path.join(sub, 'deep'), 'diff');
    hostGit(sub, 'add', '-A');
    hostGit(sub, 'commit', '-qm', 'two');
    hostGit(sub, 'fetch', 'ssh://example.invalid/x');
    // The user's own `git add -A` at the top makes it a gitlink: git status recurses into it.
    hostGit(ws.root, 'add', '-A');
    hostGit(ws.root, 'status');
    expect(existsSync(pwned())).toBe(false);
  });

  it('refuses a nested .git file that names a git directory elsewhere in the workspace with such settings', async () => {
    const planted = await sh(
      `mkdir -p store sub && git init -q --separate-git-dir store/gd sub && cd sub && git config core.fsmonitor '${mark()}'`,
    );
    expect(planted.stderr).toMatch(/moved aside/);
    hostGit(path.join(ws.root, 'sub'), 'status');
    expect(existsSync(pwned())).toBe(false);
  });

  it('honest twin: a nested project the step was asked to create (git init, commits) is left as it is', async () => {
    const made = await sh(
      `${setup} && mkdir proj && cd proj && git init -q && echo x > f && git add f && ${commit} -m one && git config user.name me`,
    );
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stderr).not.toMatch(/moved aside/);
    const again = await sh(`cd proj && echo y > f && ${commit} -qam two && git gc -q`);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/moved aside/);
    expect(hostGit(path.join(ws.root, 'proj'), 'log', '--format=%s').stdout).toBe('two\none\n');
  });

  it("honest twin: the user's own nested repository, with settings of the user's, is left alone by commands that do not change it", async () => {
    const vendor = path.join(ws.root, 'vendor', 'lib');
    execFileSync('git', ['init', '-q', vendor]);
    hostGit(vendor, 'config', 'core.autocrlf', 'input');
    hostGit(vendor, 'config', 'alias.st', 'status');
    const result = await sh(`${setup} && echo b > b && cd vendor/lib && git status --porcelain`);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/moved aside/);
    expect(hostGit(vendor, 'config', 'core.autocrlf').stdout.trim()).toBe('input');
  });

  it('refuses core.worktree pointed outside the workspace (the user git clean / checkout would write there)', async () => {
    await writeFile(path.join(host, 'victim.txt'), 'keep\n');
    const planted = await sh(
      `${setup} && git config core.worktree ${host} && mkdir n && cd n && git init -q && git config core.worktree ${host}`,
    );
    expect(planted.stderr).toMatch(/moved aside/);
    hostGit(ws.root, 'clean', '-fdxq');
    hostGit(path.join(ws.root, 'n'), 'clean', '-fdxq');
    expect(existsSync(path.join(host, 'victim.txt'))).toBe(true);
  });

  it('honest twin: git worktree add inside the workspace keeps working', async () => {
    const made = await sh(
      `${setup} && git worktree add -q wt -b side && cd wt && echo b > b && git add b && ${commit} -m b`,
    );
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stderr).not.toMatch(/moved aside/);
    expect(hostGit(path.join(ws.root, 'wt'), 'log', '--format=%s').stdout).toBe('b\ninit\n');
  });

  it('refuses an object store or history planted to read outside the workspace (alternates, grafts, commondir)', async () => {
    // The user's other repository, with a secret blob.
    const other = path.join(host, 'other');
    execFileSync('git', ['init', '-q', other]);
    await writeFile(path.join(other, 'secret.txt'), 'secret\n');
    hostGit(other, 'add', 'secret.txt');
    hostGit(other, 'commit', '-qm', 'secret');
    const blob = hostGit(other, 'rev-parse', 'HEAD:secret.txt').stdout.trim();
    const planted = await sh(
      `${setup} && echo ${path.join(other, '.git', 'objects')} > .git/objects/info/alternates && ` +
        `mkdir n && cd n && git init -q && echo ../../../../../../../../..${path.join(other, '.git', 'objects')} > .git/objects/info/alternates && ` +
        `cd .. && mkdir m && cd m && git init -q && echo ${path.join(other, '.git')} > .git/commondir && ` +
        `cd .. && echo $(git rev-parse HEAD) > .git/info/grafts`,
    );
    expect(planted.stderr).toMatch(/moved aside/);
    for (const dir of ['.', 'n'])
      expect(hostGit(path.join(ws.root, dir), 'cat-file', '-p', blob).status).not.toBe(0);
    expect(hostGit(path.join(ws.root, 'm'), 'log', '--format=%s').stdout).not.toMatch(/secret/);
    expect(existsSync(path.join(ws.root, '.git', 'info', 'grafts'))).toBe(false);
  });

  it('honest twin: a shared clone inside the workspace and a normal git gc keep their object stores', async () => {
    const made = await sh(
      `${setup} && mkdir src && cd src && git init -q && echo x > f && git add f && ${commit} -m one && cd .. && ` +
        `GIT_ALLOW_PROTOCOL=file git clone -q --shared src copy && cd copy && git gc -q && cd .. && git gc -q`,
    );
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stderr).not.toMatch(/moved aside/);
    expect(hostGit(path.join(ws.root, 'copy'), 'log', '--format=%s').stdout).toBe('one\n');
  });

  it.each([
    ['a FIFO as the index', 'rm .git/index && mkfifo .git/index'],
    ['a FIFO as a loose ref', 'mkfifo .git/refs/heads/stuck'],
    ['a link to /dev/zero as packed-refs', 'ln -s /dev/zero .git/packed-refs'],
    ['a sparse 2 GiB index', 'rm .git/index && truncate -s 2G .git/index'],
    [
      'a nested repository with a FIFO as HEAD',
      'mkdir n && cd n && git init -q && rm .git/HEAD && mkfifo .git/HEAD',
    ],
  ])('a git directory holding %s never holds git, here or outside, until a timeout', async (_name, plant) => {
    expect((await sh(`${setup} && echo a > f && git add f`)).exitCode).toBe(0);
    const planted = await sh(plant);
    expect(planted.exitCode).toBe(0);
    expect(planted.stderr).toMatch(/moved aside/);
    const status = await runner().run(['git', 'status', '--porcelain'], { timeoutMs: 15_000 });
    expect(status.timedOut).toBe(false);
    for (const dir of ['.', 'n'])
      if (existsSync(path.join(ws.root, dir)))
        expect(hostGit(path.join(ws.root, dir), 'status').error).toBeUndefined();
  });

  it('a FIFO a concurrent command left in the git directory fails git fast with a typed error', async () => {
    expect((await sh(setup)).exitCode).toBe(0);
    // What a command still running has just done (its guard has not run yet).
    execFileSync('sh', ['-c', 'rm -f .git/index && mkfifo .git/index'], { cwd: ws.root });
    await expect(runner().run(['git', 'status'], { timeoutMs: 15_000 })).rejects.toMatchObject({
      code: 'execution-failed',
      message: expect.stringMatching(/index.*FIFO|FIFO.*index/),
    });
  });

  it('honest twin: a repository with many refs, packed and loose, and a large ordinary file runs git as usual', async () => {
    const made = await sh(
      `${setup} && for i in $(seq 1 50); do git tag t$i; done && git pack-refs --all && git tag late && head -c 3000000 /dev/urandom > big && git add big && ${commit} -m big`,
    );
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stderr).not.toMatch(/moved aside/);
    const status = await runner().run(['git', 'status', '--porcelain']);
    expect(status.exitCode).toBe(0);
  });
});
