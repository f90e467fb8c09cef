import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandResult } from './command-tools';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import type { ToolContext } from './tool';
import { workspaceTools } from './workspace-tools';

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });
const execFileAsync = promisify(execFile);

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({ files: { 'a.txt': 'a\n' }, git: true });
});
afterEach(async () => {
  await ws.cleanup();
});

async function plant(file: string, marker: string) {
  const script = `#!/bin/sh\ntouch "${path.join(ws.root, marker)}"\n`;
  await writeFile(file, script);
  await chmod(file, 0o755);
}

describe.each(['off', 'auto'] as const)('git through run_command (sandbox %s)', (sandbox) => {
  const registry = () => createToolRegistry(workspaceTools({ root: ws.root, sandbox }), { redactor: false });
  const run = async (argv: string[], cwd?: string) => {
    const outcome = await registry().execute('run_command', { argv, ...(cwd ? { cwd } : {}) }, context());
    if (outcome.status !== 'success') throw new Error(outcome.text);
    return outcome.output as CommandResult;
  };

  it('never runs hooks, whatever the repository says', async () => {
    await plant(path.join(ws.root, '.git', 'hooks', 'pre-commit'), 'pwned-pre-commit');
    await plant(path.join(ws.root, '.git', 'hooks', 'post-commit'), 'pwned-post-commit');
    await ws.git('config', 'core.hooksPath', '.git/hooks');
    await ws.write('a.txt', 'changed\n');
    const result = await run(['git', 'commit', '-am', 'change']);
    expect(result.exitCode).toBe(0);
    expect(await ws.exists('pwned-pre-commit')).toBe(false);
    expect(await ws.exists('pwned-post-commit')).toBe(false);
  });

  it('never runs the fsmonitor or the pager of the repository config', async () => {
    await plant(path.join(ws.root, 'monitor.sh'), 'pwned-fsmonitor');
    await plant(path.join(ws.root, 'pager.sh'), 'pwned-pager');
    await ws.git('config', 'core.fsmonitor', path.join(ws.root, 'monitor.sh'));
    await ws.git('config', 'core.pager', path.join(ws.root, 'pager.sh'));
    await run(['git', 'status']);
    await run(['git', '-p', 'log']);
    const status = await registry().execute('git_status', {}, context());
    expect(status.status).toBe('success');
    expect(await ws.exists('pwned-fsmonitor')).toBe(false);
    expect(await ws.exists('pwned-pager')).toBe(false);
  });

  it('never runs a signing, editor or ssh program the repository config names', async () => {
    // The policy refuses `--gpg-sign`, `-e` and `-c core.sshCommand=…`: the same programs named by
    // the repository's configuration instead must not run either.
    for (const name of ['gpg', 'ssh', 'editor'])
      await plant(path.join(ws.root, `${name}.sh`), `pwned-${name}`);
    const gpg = path.join(ws.root, 'gpg.sh');
    await ws.git('config', 'gpg.program', gpg);
    await ws.git('config', 'gpg.openpgp.program', gpg);
    await ws.git('config', 'gpg.ssh.program', gpg);
    await ws.git('config', 'commit.gpgSign', 'true');
    await ws.git('config', 'tag.gpgSign', 'true');
    await ws.git('config', 'tag.forceSignAnnotated', 'true');
    await ws.git('config', 'log.showSignature', 'true');
    await ws.git('config', 'core.sshCommand', path.join(ws.root, 'ssh.sh'));
    await ws.git('config', 'core.editor', path.join(ws.root, 'editor.sh'));
    await ws.git('config', 'sequence.editor', path.join(ws.root, 'editor.sh'));
    await ws.write('a.txt', 'changed\n');
    // Honest twin: committing and tagging still work, unsigned.
    expect((await run(['git', 'commit', '-qam', 'change'])).exitCode).toBe(0);
    expect((await run(['git', 'tag', '-a', 'v1', '-m', 'v1'])).exitCode).toBe(0);
    await run(['git', 'log', '-n', '1']);
    await ws.write('a.txt', 'again\n');
    await run(['git', 'commit', '-a']);
    await run(['git', 'ls-remote', 'ssh://example.invalid/x.git']);
    expect(await ws.exists('pwned-gpg')).toBe(false);
    expect(await ws.exists('pwned-ssh')).toBe(false);
    expect(await ws.exists('pwned-editor')).toBe(false);
  });

  it('ignores global and system configuration', async () => {
    const result = await run(['git', 'config', '--list', '--show-origin']);
    expect(result.stdout).not.toMatch(/^(?:file:)?(?:\/etc|.*\.gitconfig)/m);
  });

  it('does not use a bare repository found in the workspace', async () => {
    await execFileAsync('git', ['init', '-q', '--bare', path.join(ws.root, 'vendor')]);
    await plant(path.join(ws.root, 'monitor.sh'), 'pwned-bare');
    await execFileAsync('git', [
      '--git-dir',
      path.join(ws.root, 'vendor'),
      'config',
      'core.fsmonitor',
      path.join(ws.root, 'monitor.sh'),
    ]);
    const result = await run(['git', 'status'], 'vendor');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/bare repository|safe\.bareRepository/i);
    expect(await ws.exists('pwned-bare')).toBe(false);
  });

  it('never runs a git (or ls) the agent planted in a PATH folder inside the workspace', async () => {
    // `pnpm run` puts `<project>/node_modules/.bin` first on PATH: with the project as the
    // workspace, that folder is one the agent writes.
    const bin = path.join(ws.root, 'node_modules', '.bin');
    await ws.write('node_modules/.bin/.keep', '');
    await plant(path.join(bin, 'git'), 'pwned-git');
    await plant(path.join(bin, 'ls'), 'pwned-ls');
    const saved = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${saved ?? ''}`;
    try {
      const status = await registry().execute('git_status', {}, context());
      expect(status.status).toBe('success');
      await run(['git', 'log', '--oneline']);
      await run(['ls']);
    } finally {
      process.env.PATH = saved;
    }
    expect(await ws.exists('pwned-git')).toBe(false);
    expect(await ws.exists('pwned-ls')).toBe(false);
  });

  it('gives commands no PATH folder inside the workspace: git never finds a planted ssh there', async () => {
    const bin = path.join(ws.root, 'node_modules', '.bin');
    await ws.write('node_modules/.bin/.keep', '');
    await plant(path.join(bin, 'ssh'), 'pwned-ssh');
    await ws.write('path.cjs', 'console.log(process.env.PATH);\n');
    const saved = process.env.PATH;
    // A relative entry is a folder of the command's cwd, the workspace, too.
    process.env.PATH = `${bin}${path.delimiter}node_modules/.bin${path.delimiter}${saved ?? ''}`;
    try {
      // git runs `ssh` from PATH for an ssh remote: planted in the workspace, it would be the agent's.
      await registry().execute(
        'run_command',
        { argv: ['git', 'ls-remote', 'ssh://example.invalid/x.git'] },
        context(),
      );
      expect(await ws.exists('pwned-ssh')).toBe(false);
      const printed = await run(['node', 'path.cjs']);
      const entries = printed.stdout.trim().split(path.delimiter);
      expect(entries.filter((entry) => !path.isAbsolute(entry) || entry.startsWith(ws.root))).toEqual([]);
      expect(entries.length).toBeGreaterThan(0);
    } finally {
      process.env.PATH = saved;
    }
    expect(await ws.exists('pwned-ssh')).toBe(false);
  });

  it('shows the real history: replace refs and grafts a command planted are ignored', async () => {
    await ws.write('a.txt', 'two\n');
    await ws.git('commit', '-qam', 'two');
    await ws.write(
      'plant.cjs',
      `const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
const head = git('rev-parse', 'HEAD');
fs.writeFileSync('a.txt', 'forged\\n');
git('add', 'a.txt');
const fake = git('commit-tree', git('write-tree'), '-p', 'HEAD~1', '-m', 'forged');
git('reset', '-q', '--hard', 'HEAD');
git('update-ref', 'refs/replace/' + head, fake);
fs.writeFileSync('.git/info/grafts', head + '\\n');`,
    );
    await run(['node', 'plant.cjs']);
    // The planted refs are there: git without closedloop's environment would show the forgery.
    expect((await execFileAsync('git', ['show', 'HEAD:a.txt'], { cwd: ws.root })).stdout).toBe('forged\n');
    expect((await run(['git', 'show', 'HEAD:a.txt'])).stdout).toBe('two\n');
    expect((await run(['git', 'log', '--format=%s'])).stdout).toContain('two\n');
    expect((await run(['git', 'rev-list', '--count', 'HEAD'])).stdout.trim()).toBe('2');
    const status = await registry().execute('git_status', {}, context());
    if (status.status !== 'success') throw new Error(status.text);
    // Only the script itself is new: a.txt is as committed (the forged HEAD would show it modified).
    expect((status.output as { files: { path: string }[] }).files.map((file) => file.path)).toEqual([
      'plant.cjs',
    ]);
    const diff = await registry().execute('git_diff', { ref: 'HEAD~1' }, context());
    expect(diff.text).toContain('+two');
    expect(diff.text).not.toContain('forged');
  });

  it('refuses --template, so no hook outlives the run', async () => {
    await ws.write('tpl/hooks/pre-commit', '#!/bin/sh\ntouch pwned-template\n');
    const outcome = await registry().execute(
      'run_command',
      { argv: ['git', 'init', '--template=tpl', 'new'] },
      context(),
    );
    expect(outcome).toMatchObject({ status: 'error', code: 'command-denied' });
    expect(await ws.exists('new')).toBe(false);
  });
});
