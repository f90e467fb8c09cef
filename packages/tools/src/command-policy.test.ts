import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkCommand,
  commandEnv,
  defaultAllowedPrograms,
  type ProgramRule,
  resolveCommandPolicy,
} from './command-policy';
import { ToolError } from './tool-error';

let base: string;
let root: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'closedloop-policy-')));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside', 'secret.txt'), 'x');
  await writeFile(path.join(root, 'script.js'), '');
  await symlink('../outside', path.join(root, 'out-link'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function denial(
  argv: string[],
  options: { cwd?: string; policy?: Parameters<typeof checkCommand>[1]['policy'] } = {},
) {
  try {
    await checkCommand(argv, { root, ...options });
    return undefined;
  } catch (error) {
    if (!ToolError.isInstance(error)) throw error;
    return error;
  }
}

describe('checkCommand: allowed', () => {
  it.each([
    [['node', 'script.js', '-e', 'argument for the script']],
    [['node', '--test']],
    [['node', '--test', 'sub']],
    [['npm', 'test']],
    [['npm', 'run', 'build']],
    [['npm', 'install', '--save-dev', 'vitest']],
    [['npm', 'exec', 'vitest', 'run']],
    [['npx', 'vitest', 'run']],
    [['npx', '--yes', 'tsc@5', '--noEmit']],
    [['npx', '-p', 'typescript', 'tsc', '--version']],
    [['npx', 'tsx', 'script.js']],
    [['pnpm', 'install']],
    [['pnpm', '--filter', 'web', 'test']],
    [['pnpm', 'exec', 'vitest', 'run']],
    [['pnpm', 'dlx', 'vitest']],
    [['git', 'status']],
    [['git', 'add', '-u']],
    [['git', 'commit', '-m', 'fix: handle -c and --exec in messages? no: only -m text']],
    [['git', 'diff', 'HEAD~1..HEAD']],
    [['git', 'log', '--oneline', '-n', '5']],
    [['git', 'config', '--get', 'user.name']],
    [['git', 'config', 'get', 'user.name']],
    [['git', 'push', '-u', 'origin', 'main']],
    [['tsc', '--noEmit', '-p', '.']],
    [['vitest', 'run']],
    [['ls', '-la', 'sub']],
    [['cat', 'script.js']],
    [['echo', 'hello world']],
    [['rg', '-n', 'TODO', 'sub']],
    [['grep', '-rn', 'TODO', '.']],
    [['find', '.', '-name', '*.ts', '-type', 'f']],
    [['ls', '/dev/null']],
  ])('allows %j', async (argv) => {
    const error = await denial(argv);
    expect(error?.message).toBeUndefined();
  });

  it('returns the program, args and the real cwd', async () => {
    expect(await checkCommand(['ls', '-la'], { root, cwd: 'sub' })).toEqual({
      program: 'ls',
      args: ['-la'],
      cwd: path.join(root, 'sub'),
    });
  });
});

describe('checkCommand: denied', () => {
  it.each([
    // programs
    [[], 'empty'],
    [['rm', '-rf', '.'], 'not an allowed program'],
    [['bash', '-c', 'echo hi'], 'not an allowed program'],
    [['sh'], 'not an allowed program'],
    [['/bin/ls'], 'bare name'],
    [['./node_modules/.bin/vitest'], 'bare name'],
    [['ls && rm -rf /'], 'bare name'],
    // node
    [['node', '-e', 'require("fs").rmSync("/", {recursive:true})'], 'inline code'],
    [['node', '--eval=1'], 'inline code'],
    [['node', '-p', '1+1'], 'inline code'],
    [['node', '--print', '1'], 'inline code'],
    [['node', '-pe', '1'], 'inline code'],
    [['node', '--inspect', 'script.js'], 'debugger'],
    [['node', '--require', '/tmp/evil.js', 'script.js'], 'outside the workspace'],
    [['node', '--import=../outside/secret.txt', 'script.js'], 'outside the workspace'],
    [['node', '../outside/secret.txt'], 'outside the workspace'],
    // git
    [['git', '-c', 'core.pager=sh', 'log'], 'configuration'],
    [['git', '-ccore.pager=sh', 'log'], 'configuration'],
    [['git', '--config-env=core.pager=X', 'log'], 'configuration'],
    [['git', '-C', '/', 'status'], 'another folder'],
    [['git', '--git-dir=/tmp/x', 'status'], 'another folder'],
    [['git', '--work-tree=..', 'status'], 'another folder'],
    [['git', '--exec-path=/tmp', 'status'], 'exec-path'],
    [['git', 'clone', '--upload-pack=touch /tmp/pwned', 'origin'], 'custom'],
    [['git', 'fetch', '-u', 'touch /tmp/pwned', 'origin'], 'upload-pack'],
    [['git', 'pull', '-utouch', 'origin'], 'upload-pack'],
    [['git', 'ls-remote', '--upload-pack', 'touch /tmp/pwned', 'origin'], 'custom'],
    [['git', '--upload-pack=evil', 'fetch', 'origin'], 'custom remote helper'],
    [['git', 'push', '--receive-pack=evil', 'origin'], 'custom'],
    [['git', 'push', '--exec=evil', 'origin'], 'custom'],
    [['git', 'clone', 'ext::sh -c touch% /tmp/pwned', 'x'], 'transport'],
    [['git', 'clone', '-c', 'core.fsmonitor=evil', 'https://example.com/r.git'], 'configuration'],
    [['git', 'clone', '--template=../outside', 'https://example.com/r.git'], 'hooks'],
    [['git', 'config', 'alias.st', '!sh -c evil'], 'only read'],
    [['git', 'config', 'core.pager', 'evil'], 'only read'],
    [['git', 'config', '--global', '--get', 'user.name'], 'only read'],
    [['git', 'config', 'set', 'core.pager', 'evil'], 'only read'],
    [['git', 'st'], 'aliases'],
    [['git', 'submodule', 'foreach', 'evil'], 'not allowed'],
    [['git', 'filter-branch', '--tree-filter', 'evil'], 'not allowed'],
    [['git', 'difftool', '-x', 'evil'], 'not allowed'],
    [['git', 'rebase', '-x', 'evil', 'main'], 'shell command'],
    [['git', 'rebase', '--exec', 'evil', 'main'], 'custom'],
    [['git', 'grep', '-Oevil', 'x'], 'pager'],
    [['git', 'diff', '--ext-diff'], 'external diff'],
    [['git', 'log', '--output=/tmp/x'], 'outside the workspace'],
    [['git', 'archive', '--remote=x', 'HEAD'], 'another host'],
    // search tools
    [['rg', '--pre', 'sh', 'x'], 'preprocessor'],
    [['rg', '--pre=evil', 'x'], 'preprocessor'],
    [['rg', '--hostname-bin=evil', 'x'], 'runs a program'],
    [['find', '.', '-exec', 'rm', '{}', ';'], 'read-only'],
    [['find', '.', '-execdir', 'sh', ';'], 'read-only'],
    [['find', '.', '-ok', 'rm', ';'], 'read-only'],
    [['find', '.', '-okdir', 'rm', ';'], 'read-only'],
    [['find', '.', '-delete'], 'read-only'],
    [['find', '.', '-fprint', 'x'], 'read-only'],
    [['find', '-L', '.'], 'symbolic links'],
    [['rg', '-L', 'x'], 'symbolic links'],
    [['rg', '--follow', 'x'], 'symbolic links'],
    [['grep', '-R', 'x', '.'], 'symbolic links'],
    [['grep', '-nR', 'x'], 'symbolic links'],
    [['ls', '-RL'], 'symbolic links'],
    [['find', '/', '-name', 'id_rsa'], 'outside the workspace'],
    [['grep', '-r', 'password', '/etc'], 'outside the workspace'],
    [['cat', '../outside/secret.txt'], 'outside the workspace'],
    [['cat', 'out-link/secret.txt'], 'symbolic link'],
    [['ls', 'out-link'], 'symbolic link'],
    [['cat', '~/.ssh/id_rsa'], 'home-relative'],
    [['cat', '%2e%2e/outside/secret.txt'], 'refused'],
    [['ls', 'sub/../..'], 'outside the workspace'],
    // package managers
    [['npx', 'cowsay', 'hi'], 'not allowed'],
    [['npx', '-c', 'rm -rf /'], 'shell command'],
    [['npx', '--package', 'evil', 'tsc'], 'not allowed'],
    [['npx', 'tsx', '-e', 'evil()'], 'inline code'],
    [['npm', 'exec', 'evil-package'], 'not allowed'],
    [['npm', 'x', '--', 'evil'], 'not allowed'],
    [['npm', 'publish'], 'not allowed'],
    [['npm', 'login'], 'not allowed'],
    [['npm', 'token', 'list'], 'not allowed'],
    [['npm', 'explore', 'left-pad'], 'not allowed'],
    [['npm', 'install', '-g', 'evil'], 'global'],
    [['npm', 'install', '--global', 'evil'], 'global'],
    [['npm', 'test', '--script-shell=/bin/evil'], 'custom shell'],
    [['npm', 'config', 'set', 'registry', 'https://evil.example'], 'only read'],
    [['pnpm', 'publish'], 'not allowed'],
    [['pnpm', 'exec', 'sh', '-c', 'evil'], 'not an allowed program'],
    [['pnpm', 'exec', 'node', '-e', 'evil'], 'inline code'],
    [['pnpm', 'dlx', 'evil'], 'not allowed'],
    [['pnpm', 'add', '-g', 'evil'], 'global'],
    [['pnpm', '-c', 'exec', 'evil'], 'custom shell'],
    [['pnpm', 'evil-script'], 'not allowed'],
  ])('denies %j (%s)', async (argv, expected) => {
    const error = await denial(argv);
    expect(error?.code).toBe('command-denied');
    expect(error?.message).toContain(expected);
  });

  it('refuses a cwd outside the workspace with path-escape', async () => {
    expect((await denial(['ls'], { cwd: '..' }))?.code).toBe('path-escape');
    expect((await denial(['ls'], { cwd: 'out-link' }))?.code).toBe('path-escape');
  });

  it('refuses a cwd that does not exist with a typed execution-failed', async () => {
    const error = await denial(['ls'], { cwd: 'no-such-folder' });
    expect(error).toMatchObject({ code: 'execution-failed', details: { cwd: 'no-such-folder' } });
  });

  it('refuses NUL bytes and non-string arguments', async () => {
    expect((await denial(['echo', 'a\u0000b']))?.code).toBe('command-denied');
    expect((await denial(['echo', 1 as unknown as string]))?.code).toBe('command-denied');
  });
});

describe('command policy options', () => {
  it('replaces the allowlist and adds rules', async () => {
    const noEcho: ProgramRule = (args) => (args.includes('secret') ? 'no secrets' : undefined);
    const policy = { allow: ['echo', 'node'], rules: { echo: noEcho } };
    expect(await denial(['echo', 'hi'], { policy })).toBeUndefined();
    expect((await denial(['echo', 'secret'], { policy }))?.message).toContain('no secrets');
    expect((await denial(['git', 'status'], { policy }))?.message).toContain('not an allowed program');
    expect((await denial(['node', '-e', '1'], { policy }))?.message).toContain('inline code');
  });

  it('extends the npx allowlist', async () => {
    expect(await denial(['npx', 'cowsay'], { policy: { npxPackages: ['cowsay'] } })).toBeUndefined();
    expect((await denial(['npx', 'vitest'], { policy: { npxPackages: ['cowsay'] } }))?.code).toBe(
      'command-denied',
    );
  });

  it('rejects program names that are paths', () => {
    expect(() => resolveCommandPolicy({ allow: ['/bin/sh'] })).toThrow(/bare program name/);
  });

  it('documents the default programs', () => {
    expect(defaultAllowedPrograms).toEqual([
      'node',
      'npm',
      'npx',
      'pnpm',
      'git',
      'tsc',
      'vitest',
      'ls',
      'cat',
      'echo',
      'rg',
      'grep',
      'find',
    ]);
  });
});

describe('commandEnv', () => {
  it('passes only the base names, passEnv and policy values, never secrets', () => {
    const source = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      OPENAI_API_KEY: 'sk-secret',
      AWS_SECRET_ACCESS_KEY: 'x',
      NODE_OPTIONS: '--require /tmp/evil.js',
      MY_FLAG: 'on',
    };
    const env = commandEnv(resolveCommandPolicy({ passEnv: ['MY_FLAG'], env: { NODE_ENV: 'test' } }), source);
    expect(env.PATH).toBe('/usr/bin');
    expect(env.HOME).toBe('/home/u');
    expect(env.MY_FLAG).toBe('on');
    expect(env.NODE_ENV).toBe('test');
    expect(env.CI).toBe('1');
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
    expect(env).not.toHaveProperty('OPENAI_API_KEY');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(env).not.toHaveProperty('NODE_OPTIONS');
  });
});
