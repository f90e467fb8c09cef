import { chmod, copyFile, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CommandResult, parseGitStatus } from './command-tools';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry, type ToolRegistry } from './create-tool-registry';
import { isProcessRunning } from './is-process-running';
import type { ToolContext } from './tool';
import { type WorkspaceToolsOptions, workspaceTools } from './workspace-tools';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const context = (signal: AbortSignal = new AbortController().signal): ToolContext => ({
  signal,
  callId: 'c',
});

let ws: TempWorkspace;
let registry: ToolRegistry;
const tools = (options: Partial<WorkspaceToolsOptions> = {}) =>
  createToolRegistry(workspaceTools({ root: ws.root, ...options }), { redactor: false });

type Result = CommandResult;

async function run(argv: string[], extra: Record<string, unknown> = {}, on: ToolRegistry = registry) {
  const outcome = await on.execute('run_command', { argv, ...extra }, context());
  if (outcome.status !== 'success') throw new Error(`run_command failed: ${outcome.text}`);
  return { result: outcome.output as Result, text: outcome.text };
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

beforeEach(async () => {
  ws = await createTempWorkspace({
    files: {
      'exit.cjs': 'console.log("out line"); console.error("err line"); process.exit(3);\n',
      'env.cjs': 'console.log(JSON.stringify(process.env));\n',
      'big.cjs': 'process.stdout.write("HEAD" + "x".repeat(200000) + "TAIL");\n',
      'sub/where.cjs': 'console.log(process.cwd());\n',
    },
  });
  registry = tools();
});
afterEach(async () => {
  await ws.cleanup();
});

describe('run_command', () => {
  it('reports a non-zero exit as a successful call with the exit code and both streams', async () => {
    const { result, text } = await run(['node', 'exit.cjs']);
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'out line\n',
      stderr: 'err line\n',
      timedOut: false,
    });
    expect(text).toContain('exit code 3');
    expect(text).toContain('--- stdout ---\nout line');
    expect(text).toContain('--- stderr ---\nerr line');
  });

  it('runs in a cwd inside the workspace and refuses one outside', async () => {
    const { result } = await run(['node', 'where.cjs'], { cwd: 'sub' });
    expect(result.stdout.trim()).toBe(path.join(ws.root, 'sub'));
    expect(result.cwd).toBe('sub');
    const outside = await registry.execute('run_command', { argv: ['ls'], cwd: '../' }, context());
    expect(outside).toMatchObject({ status: 'error', code: 'path-escape' });
    const missing = await registry.execute('run_command', { argv: ['ls'], cwd: 'nope' }, context());
    expect(missing).toMatchObject({ status: 'error', code: 'execution-failed' });
  });

  it('denies before running: a denied command has no effect', async () => {
    const outcome = await registry.execute(
      'run_command',
      { argv: ['node', '-e', 'require("fs").writeFileSync("pwned", "x")'] },
      context(),
    );
    expect(outcome).toMatchObject({ status: 'error', code: 'command-denied' });
    expect(await ws.exists('pwned')).toBe(false);
    const shell = await registry.execute('run_command', { argv: ['sh', '-c', 'touch pwned'] }, context());
    expect(shell).toMatchObject({ status: 'error', code: 'command-denied' });
    expect(await ws.exists('pwned')).toBe(false);
  });

  it('denies the known argument escapes (git -c, --upload-pack, rg --pre, find -exec) before they run', async () => {
    // With the rules switched off, the git alias and `find -exec` really create their `pwned-*`
    // file here; the pager and upload-pack ones are also defused by the child environment
    // (GIT_PAGER=cat, GIT_ALLOW_PROTOCOL without `file`). rg is not always installed: its denial
    // comes before the program is looked up.
    await ws.write('a.txt', 'x\n');
    await ws.write('pre.sh', '#!/bin/sh\ntouch pwned-pre\ncat "$1"\n');
    await chmod(path.join(ws.root, 'pre.sh'), 0o755);
    await ws.git('init', '-q', '.');
    const escapes: string[][] = [
      ['git', '-c', 'alias.x=!touch pwned-alias', 'x'],
      ['git', '-c', 'core.pager=touch pwned-pager', 'log'],
      ['git', 'ls-remote', '--upload-pack=touch pwned-upload', '.'],
      ['git', 'ls-remote', '--upload-pack', 'touch pwned-upload', '.'],
      ['git', 'fetch', '-u', 'touch pwned-upload', '.'],
      ['rg', '--pre', './pre.sh', 'x', '.'],
      ['rg', '--pre=./pre.sh', 'x', '.'],
      ['find', '.', '-name', 'a.txt', '-exec', 'touch', 'pwned-find', ';'],
      ['find', '.', '-name', 'a.txt', '-execdir', 'touch', 'pwned-find', ';'],
      ['npx', '-c', 'touch pwned-npx'],
    ];
    for (const argv of escapes) {
      const outcome = await registry.execute('run_command', { argv }, context());
      expect(outcome, argv.join(' ')).toMatchObject({ status: 'error', code: 'command-denied' });
    }
    const entries = await readdir(ws.root);
    expect(entries.filter((name) => name.startsWith('pwned'))).toEqual([]);
  });

  it('treats shell syntax as plain arguments (no shell)', async () => {
    const { result } = await run(['echo', '$HOME', '&&', 'touch', 'pwned', '|', '`id`']);
    expect(result.stdout).toBe('$HOME && touch pwned | `id`\n');
    expect(await ws.exists('pwned')).toBe(false);
  });

  it('asks for argv as an array', async () => {
    const outcome = await registry.execute('run_command', { argv: 'npm test' }, context());
    expect(outcome).toMatchObject({ status: 'error', code: 'invalid-arguments' });
  });

  it('gives children a minimal environment: secrets in process.env do not reach them', async () => {
    process.env.CLOSEDLOOP_TEST_API_KEY = 'canary-env-secret-123456';
    process.env.CLOSEDLOOP_TEST_PASSTHROUGH = 'visible';
    try {
      const { result } = await run(['node', 'env.cjs']);
      const env = JSON.parse(result.stdout) as Record<string, string>;
      expect(env.CLOSEDLOOP_TEST_API_KEY).toBeUndefined();
      expect(env.CLOSEDLOOP_TEST_PASSTHROUGH).toBeUndefined();
      expect(env.PATH).toBe(process.env.PATH);
      expect(env.CI).toBe('1');
      expect(result.stdout).not.toContain('canary-env-secret');
      const configured = tools({
        commands: { passEnv: ['CLOSEDLOOP_TEST_PASSTHROUGH'], env: { EXTRA: 'yes' } },
      });
      const passed = JSON.parse((await run(['node', 'env.cjs'], {}, configured)).result.stdout) as Record<
        string,
        string
      >;
      expect(passed.CLOSEDLOOP_TEST_PASSTHROUGH).toBe('visible');
      expect(passed.EXTRA).toBe('yes');
      expect(passed.CLOSEDLOOP_TEST_API_KEY).toBeUndefined();
    } finally {
      delete process.env.CLOSEDLOOP_TEST_API_KEY;
      delete process.env.CLOSEDLOOP_TEST_PASSTHROUGH;
    }
  });

  it('caps output, keeping head and tail', async () => {
    const { result, text } = await run(['node', 'big.cjs'], {}, tools({ maxOutputBytes: 1000 }));
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith('HEAD')).toBe(true);
    expect(result.stdout.endsWith('TAIL')).toBe(true);
    expect(result.stdout.length).toBeLessThan(1100);
    expect(result.stdout).toMatch(/199\d{3} bytes omitted/);
    expect(text).toContain('(output was truncated)');
  });

  it('kills the whole process tree on timeout', async () => {
    await copyFile(path.join(fixtures, 'spawn-tree.cjs'), path.join(ws.root, 'spawn-tree.cjs'));
    const started = Date.now();
    // Unsandboxed: the pids the script records are host pids (the sandbox has its own namespace).
    const { result, text } = await run(
      ['node', 'spawn-tree.cjs'],
      { timeout_ms: 700 },
      tools({ sandbox: 'off' }),
    );
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(result.stdout).toContain('started');
    expect(text).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(3000);
    const pids = JSON.parse(await ws.read('pids.json')) as number[];
    expect(pids).toHaveLength(2);
    expect(await waitUntil(() => pids.every((pid) => !isProcessRunning(pid)), 2000)).toBe(true);
  });

  it('answers aborted within 100 ms and kills the process tree', async () => {
    await copyFile(path.join(fixtures, 'spawn-tree.cjs'), path.join(ws.root, 'spawn-tree.cjs'));
    const controller = new AbortController();
    const pending = tools({ sandbox: 'off' }).execute(
      'run_command',
      { argv: ['node', 'spawn-tree.cjs'] },
      context(controller.signal),
    );
    expect(await waitUntil(() => ws.exists('pids.json'), 5000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const abortedAt = Date.now();
    controller.abort();
    const outcome = await pending;
    expect(Date.now() - abortedAt).toBeLessThan(100);
    expect(outcome).toMatchObject({ status: 'error', code: 'aborted' });
    const pids = JSON.parse(await ws.read('pids.json')) as number[];
    expect(await waitUntil(() => pids.every((pid) => !isProcessRunning(pid)), 2000)).toBe(true);
  });

  it('does not reach outside through symlinks: the outside canary never shows up', async () => {
    const outside = await createTempWorkspace({ files: { 'canary.txt': 'OUTSIDE-CANARY-7731\n' } });
    try {
      await symlink(outside.root, path.join(ws.root, 'out-dir'));
      await symlink(path.join(outside.root, 'canary.txt'), path.join(ws.root, 'out-file'));
      const leaks: string[] = [];
      for (const argv of [
        ['grep', '-r', 'OUTSIDE-CANARY', '.'],
        ['grep', '-rl', 'OUTSIDE', '.'],
        ['find', '.', '-name', 'canary.txt'],
        ['ls', '-R'],
        ['cat', 'out-file'],
        ['cat', 'out-dir/canary.txt'],
        ['grep', '-R', 'OUTSIDE', '.'],
        ['node', 'out-dir/canary.txt'],
        ['git', 'diff', '--no-index', 'exit.cjs', 'out-file'],
      ]) {
        const outcome = await registry.execute('run_command', { argv }, context());
        if (outcome.status === 'success') {
          const { stdout, stderr } = outcome.output as Result;
          if (/7731|canary\.txt/.test(stdout + stderr)) leaks.push(`${argv.join(' ')}: ${stdout}${stderr}`);
        } else if (outcome.code !== 'command-denied') leaks.push(`${argv.join(' ')}: ${outcome.text}`);
      }
      expect(leaks).toEqual([]);
      expect(await outside.read('canary.txt')).toBe('OUTSIDE-CANARY-7731\n');
    } finally {
      await outside.cleanup();
    }
  });

  it('never moves or writes a file out through a folder link, even without the sandbox', async () => {
    const outside = await createTempWorkspace({ files: { 'canary.txt': 'OUTSIDE\n' } });
    try {
      const unsandboxed = tools({ sandbox: 'off' });
      await ws.git('init', '-q', '.');
      await ws.git('add', 'exit.cjs');
      await ws.git('commit', '-qm', 'first');
      await symlink(outside.root, path.join(ws.root, 'out-dir'));
      for (const argv of [
        ['git', 'mv', 'exit.cjs', 'out-dir/moved.cjs'],
        ['git', 'log', '--output=out-dir/log.txt'],
        ['git', 'clone', '-q', '.', 'out-dir/clone'],
      ]) {
        const outcome = await unsandboxed.execute('run_command', { argv }, context());
        expect(outcome, argv.join(' ')).toMatchObject({ status: 'error', code: 'command-denied' });
      }
      expect((await readdir(outside.root)).sort()).toEqual(['canary.txt']);
      expect(await ws.exists('exit.cjs')).toBe(true);
    } finally {
      await outside.cleanup();
    }
  });

  it('denies hostile arguments of every class before anything runs', async () => {
    await ws.git('init', '-q', '.');
    const calls: [string[], string?][] = [
      [['npm', 'exec', '--package=evil-pkg', '--', 'vitest']],
      [['pnpm', 'add', 'link:/etc']],
      [['npm', 'install', 'git+file:///srv/repo']],
      [['npm', 'test', '--workspace=$HOME/project']],
      [['node', 'env.cjs', '~root/.bashrc']],
      [['git', 'merge', '-s', 'evil', 'main']],
      [['jest', '-c', '{"globalSetup":"/tmp/x.js"}']],
      [['vitest', '--api.port=51204']],
      [['eslint', '--mcp']],
      [['node', '../../env.cjs'], '.git/hooks'],
    ];
    for (const [argv, cwd] of calls) {
      const outcome = await registry.execute('run_command', { argv, ...(cwd ? { cwd } : {}) }, context());
      expect(outcome, argv.join(' ')).toMatchObject({ status: 'error', code: 'command-denied' });
    }
  });

  it('prefers the workspace node_modules/.bin for tsc and vitest', async () => {
    await ws.write(
      'node_modules/.bin/tsc',
      '#!/usr/bin/env node\nconsole.log("local tsc", process.argv.slice(2).join(" "));\n',
    );
    await chmod(path.join(ws.root, 'node_modules/.bin/tsc'), 0o755);
    const { result } = await run(['tsc', '--noEmit']);
    expect(result.stdout).toBe('local tsc --noEmit\n');
  });

  it('fails clearly when an allowed program is not installed', async () => {
    const custom = tools({ commands: { allow: ['closedloop-no-such-program'] } });
    const outcome = await custom.execute('run_command', { argv: ['closedloop-no-such-program'] }, context());
    expect(outcome).toMatchObject({ status: 'error', code: 'execution-failed' });
    expect(outcome.text).toContain('not found on PATH');
  });

  it('is marked destructive and lists the allowed programs in its description', () => {
    const tool = registry.get('run_command');
    expect(tool?.destructive).toBe(true);
    expect(tool?.description).toContain('node, npm, npx');
    expect(tool?.description).toContain('no shell');
  });
});

describe('git_status and git_diff', () => {
  it('parses branch and every kind of change', async () => {
    const repo = await createTempWorkspace({
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'old name.txt': 'rename me\n' },
      git: true,
    });
    try {
      const git = createToolRegistry(workspaceTools({ root: repo.root }), { redactor: false });
      expect(await git.execute('git_status', {}, context())).toMatchObject({
        status: 'success',
        output: { branch: 'main', clean: true, files: [], noCommits: false },
      });
      await repo.write('a.txt', 'changed\n');
      await repo.write('new.txt', 'n\n');
      await repo.write('staged.txt', 's\n');
      await repo.git('add', 'staged.txt');
      await repo.git('rm', '--quiet', 'b.txt');
      await repo.git('mv', 'old name.txt', 'new name.txt');
      const status = await git.execute('git_status', {}, context());
      expect(status.status).toBe('success');
      const output =
        status.status === 'success' ? (status.output as ReturnType<typeof parseGitStatus>) : undefined;
      expect(output?.clean).toBe(false);
      const byPath = Object.fromEntries((output?.files ?? []).map((file) => [file.path, file]));
      expect(byPath['a.txt']).toMatchObject({ index: ' ', workTree: 'M', kind: 'modified' });
      expect(byPath['new.txt']).toMatchObject({ kind: 'untracked' });
      expect(byPath['staged.txt']).toMatchObject({ index: 'A', kind: 'added' });
      expect(byPath['b.txt']).toMatchObject({ index: 'D', kind: 'deleted' });
      expect(byPath['new name.txt']).toMatchObject({
        index: 'R',
        kind: 'renamed',
        originalPath: 'old name.txt',
      });
    } finally {
      await repo.cleanup();
    }
  });

  it('shows diffs: work tree, staged, stat, paths, ref', async () => {
    const repo = await createTempWorkspace({ files: { 'a.txt': 'one\n', 'b.txt': 'bee\n' }, git: true });
    try {
      const git = createToolRegistry(workspaceTools({ root: repo.root }), { redactor: false });
      const text = async (args: Record<string, unknown>) => {
        const outcome = await git.execute('git_diff', args, context());
        expect(outcome.status).toBe('success');
        return outcome.text;
      };
      expect(await text({})).toBe('(no changes)');
      await repo.write('a.txt', 'two\n');
      await repo.write('b.txt', 'bee bee\n');
      const all = await text({});
      expect(all).toContain('-one\n+two');
      expect(all).toContain('+bee bee');
      const onlyA = await text({ paths: ['a.txt'] });
      expect(onlyA).toContain('a.txt');
      expect(onlyA).not.toContain('b.txt');
      expect(await text({ stat: true })).toMatch(/2 files changed/);
      expect(await text({ staged: true })).toBe('(no changes)');
      await repo.git('add', 'a.txt');
      expect(await text({ staged: true })).toContain('+two');
      await repo.git('commit', '--quiet', '-m', 'second');
      expect(await text({ ref: 'HEAD~1', paths: ['a.txt'] })).toContain('-one\n+two');
      expect(await git.execute('git_diff', { paths: ['../x'] }, context())).toMatchObject({
        code: 'path-escape',
      });
      expect(await git.execute('git_diff', { ref: '--output=/tmp/x' }, context())).toMatchObject({
        code: 'invalid-arguments',
      });
    } finally {
      await repo.cleanup();
    }
  });

  it('reports a fresh repository and a folder that is not a repository', async () => {
    const status = await run(['git', 'init', '--quiet', '--initial-branch=trunk']).catch(() => undefined);
    expect(status?.result.exitCode).toBe(0);
    expect(await registry.execute('git_status', {}, context())).toMatchObject({
      output: { branch: 'trunk', noCommits: true },
    });
    const plain = await createTempWorkspace();
    try {
      const outcome = await createToolRegistry(workspaceTools({ root: plain.root })).execute(
        'git_status',
        {},
        context(),
      );
      expect(outcome).toMatchObject({ status: 'error', code: 'execution-failed' });
      expect(outcome.text).toContain('not a git repository');
    } finally {
      await plain.cleanup();
    }
  });
});

describe('parseGitStatus', () => {
  it('parses upstream, ahead/behind, detached HEAD, copies and conflicts', () => {
    expect(parseGitStatus('## main...origin/main [ahead 2, behind 1]\0')).toMatchObject({
      branch: 'main',
      upstream: 'origin/main',
      ahead: 2,
      behind: 1,
      clean: true,
    });
    expect(parseGitStatus('## HEAD (no branch)\0UU x.ts\0C  copy.ts\0orig.ts\0')).toMatchObject({
      branch: null,
      files: [
        { path: 'x.ts', kind: 'conflicted' },
        { path: 'copy.ts', originalPath: 'orig.ts', kind: 'copied' },
      ],
    });
  });
});
