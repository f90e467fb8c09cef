/**
 * What a sandboxed command leaves in the workspace's git directories for git run later outside the
 * sandbox (the verifier's `git status`, the user's `git rebase --continue`): it must never run a
 * program there. Each attack has an honest twin: ordinary git work still passes untouched.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
  host = await mkdtemp(path.join(homedir(), '.closedloop-leftovers-'));
});
afterEach(async () => {
  await ws.cleanup();
  await rm(host, { recursive: true, force: true });
});

describe.runIf(hasSandbox)('git settings a command leaves for git outside', () => {
  const _runner = () => createCommandRunner({ root: ws.root, sandbox: 'required' });
  const sh = (script: string) => sandboxedShell(ws, script);
  const pwned = () => path.join(host, 'pwned');
  const setup = ['git init -q', 'git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init'].join(
    ' && ',
  );

  it('re-checks a config or hooks entry of a repository it made that a later command re-pointed (a link swapped)', async () => {
    // Step 1: a repository whose config and hooks are links to files in the work tree (clean).
    const first = await sh(
      `${setup} && mv .git/config cfg && ln -s ../cfg .git/config && mkdir myhooks && rm -rf .git/hooks && ln -s ../myhooks .git/hooks`,
    );
    expect(first.exitCode).toBe(0);
    // Step 2: the links are read-only where they point, but the links themselves are not.
    const second = await sh(
      `cp cfg evil && printf '[core]\\n\\tfsmonitor = touch ${pwned()}\\n' >> evil && ln -sfn ../evil .git/config && ` +
        `mkdir evilhooks && printf '#!/bin/sh\\ntouch ${pwned()}\\n' > evilhooks/post-commit && chmod +x evilhooks/post-commit && ln -sfn ../evilhooks .git/hooks`,
    );
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toMatch(/moved aside/);
    hostGit(ws.root, 'status');
    hostGit(ws.root, 'commit', '-q', '--allow-empty', '-m', 'user');
    expect(existsSync(pwned())).toBe(false);
  });

  it('honest twin: a repository a command made, committed to again and again, keeps its config and hooks', async () => {
    expect((await sh(setup)).exitCode).toBe(0);
    for (const message of ['one', 'two']) {
      const result = await sh(
        `git -c user.name=t -c user.email=t@t commit -q --allow-empty -m ${message} && git tag t-${message}`,
      );
      expect(result.exitCode).toBe(0);
      expect(result.stderr).not.toMatch(/moved aside/);
    }
    expect(existsSync(path.join(ws.root, '.git', 'config'))).toBe(true);
    expect(existsSync(path.join(ws.root, '.git', 'hooks'))).toBe(true);
    expect(hostGit(ws.root, 'log', '--format=%s').stdout).toBe('two\none\ninit\n');
  });

  it('refuses exec lines planted in a paused rebase or cherry-pick', async () => {
    await sh(
      `${setup} && echo a > f && git add f && git -c user.name=t -c user.email=t@t commit -qm a && git checkout -qb side && echo b > f && git -c user.name=t -c user.email=t@t commit -qam b && git checkout -q - && echo c > f && git -c user.name=t -c user.email=t@t commit -qam c`,
    );
    const paused = await sh(
      `git -c user.name=t -c user.email=t@t rebase side; echo 'exec touch ${pwned()}' >> .git/rebase-merge/git-rebase-todo`,
    );
    expect(paused.stderr).toMatch(/moved aside/);
    execFileSync('sh', ['-c', 'echo resolved > f && git add f'], { cwd: ws.root });
    hostGit(ws.root, 'rebase', '--continue');
    expect(existsSync(pwned())).toBe(false);
  });

  it('honest twin: a rebase paused on a conflict is continued outside as usual', async () => {
    await sh(
      `${setup} && echo a > f && git add f && git -c user.name=t -c user.email=t@t commit -qm a && git checkout -qb side && echo b > f && git -c user.name=t -c user.email=t@t commit -qam b && git checkout -q - && echo c > f && git -c user.name=t -c user.email=t@t commit -qam c`,
    );
    const paused = await sh('git -c user.name=t -c user.email=t@t rebase side || true');
    expect(paused.stderr).not.toMatch(/moved aside/);
    execFileSync('sh', ['-c', 'echo resolved > f && git add f'], { cwd: ws.root });
    expect(hostGit(ws.root, 'rebase', '--continue').status).toBe(0);
    expect(hostGit(ws.root, 'log', '--format=%s').stdout).toBe('c\nb\na\ninit\n');
  });

  it('checks what a command in a linked worktree leaves in its git directory outside the workspace', async () => {
    // The user's repository, with per-worktree settings on, and a worktree of it as the workspace.
    const main = path.join(host, 'main');
    execFileSync('git', ['init', '-q', main]);
    hostGit(main, 'commit', '-q', '--allow-empty', '-m', 'init');
    hostGit(main, 'config', 'extensions.worktreeConfig', 'true');
    hostGit(main, 'config', 'user.name', 'u');
    hostGit(main, 'config', 'user.email', 'u@u');
    const linked = path.join(host, 'linked');
    hostGit(main, 'worktree', 'add', '-q', linked);
    const own = path.join(main, '.git', 'worktrees', 'linked');
    await ws.write(
      'plant.cjs',
      `require('node:fs').writeFileSync(${JSON.stringify(path.join(own, 'config.worktree'))}, '[core]\\n\\tfsmonitor = touch ${pwned()}\\n');`,
    );
    execFileSync('cp', [path.join(ws.root, 'plant.cjs'), linked]);
    const runner = createCommandRunner({ root: linked, sandbox: 'required' });
    const planted = await runner.run(['node', 'plant.cjs']);
    expect(planted.exitCode).toBe(0);
    expect(planted.stderr).toMatch(/moved aside/);
    hostGit(linked, 'status');
    expect(existsSync(pwned())).toBe(false);
    // Honest twin: the worktree still commits, and the user's own settings stay.
    const committed = await runner.run(['git', 'commit', '-q', '--allow-empty', '-m', 'two']);
    expect(committed.exitCode).toBe(0);
    expect(committed.stderr).not.toMatch(/moved aside/);
    expect(hostGit(main, 'config', 'extensions.worktreeConfig').stdout.trim()).toBe('true');
  });
});
