import { execFileSync } from 'node:child_process';
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCommandRunner } from './create-command-runner';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { defaultHiddenPaths, probeSandbox } from './sandbox';
import { ToolError } from './tool-error';
import { workspaceTools } from './workspace-tools';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const hasSandbox = (await probeSandbox()).available;
/**
 * A folder under `/run` this test may create a socket in (where the machine's services keep
 * theirs: `/run/user/<uid>` for a user, `/run` for root); undefined when there is none.
 */
const runSocketFolder = await (async () => {
  for (const parent of [`/run/user/${process.getuid?.() ?? 'none'}`, '/run']) {
    try {
      return await mkdtemp(path.join(parent, 'closedloop-socket-'));
    } catch {}
  }
  return undefined;
})();
afterAll(async () => {
  if (runSocketFolder !== undefined) await rm(runSocketFolder, { recursive: true, force: true });
});
/** Both modes where the machine has bubblewrap (CI installs it); unsandboxed everywhere. */
const modes = hasSandbox ? (['off', 'required'] as const) : (['off'] as const);

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({
    files: {
      'env.cjs': 'console.log(JSON.stringify(process.env));\n',
      'echo-stdin.cjs': 'process.stdin.pipe(process.stdout); process.stderr.write("err\\n");\n',
    },
  });
});
afterEach(async () => {
  await ws.cleanup();
});

async function size(file: string): Promise<number> {
  return (await stat(path.join(ws.root, file)).catch(() => undefined))?.size ?? 0;
}

/** True when none of the heartbeat files grows any more. */
async function allStopped(names: readonly string[]): Promise<boolean> {
  const before = await Promise.all(names.map((name) => size(`beats-${name}.txt`)));
  await new Promise((resolve) => setTimeout(resolve, 400));
  const after = await Promise.all(names.map((name) => size(`beats-${name}.txt`)));
  return after.every((value, index) => value === before[index]);
}

describe.each(modes)('process trees (sandbox %s)', (sandbox) => {
  const descendants = ['child', 'session', 'orphan'];

  it('kills detached descendants (setsid, double fork) when the command exits', async () => {
    await copyFile(path.join(fixtures, 'escape-tree.cjs'), path.join(ws.root, 'escape-tree.cjs'));
    const runner = createCommandRunner({ root: ws.root, sandbox });
    const result = await runner.run(['node', 'escape-tree.cjs', 'exit'], { timeoutMs: 20_000 });
    expect(result).toMatchObject({ exitCode: 0, sandboxed: sandbox === 'required' });
    expect(result.stdout).toContain('started');
    for (const name of descendants) expect(await size(`beats-${name}.txt`)).toBeGreaterThan(0);
    expect(await allStopped(descendants)).toBe(true);
  });

  it('kills the whole tree, detached descendants included, on timeout', async () => {
    await copyFile(path.join(fixtures, 'escape-tree.cjs'), path.join(ws.root, 'escape-tree.cjs'));
    const runner = createCommandRunner({ root: ws.root, sandbox });
    const started = Date.now();
    const result = await runner.run(['node', 'escape-tree.cjs'], { timeoutMs: 1_500 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(await allStopped(descendants)).toBe(true);
  });

  it('kills the whole tree on abort', async () => {
    await copyFile(path.join(fixtures, 'escape-tree.cjs'), path.join(ws.root, 'escape-tree.cjs'));
    const runner = createCommandRunner({ root: ws.root, sandbox });
    const controller = new AbortController();
    const pending = runner.run(['node', 'escape-tree.cjs'], { signal: controller.signal, timeoutMs: 20_000 });
    pending.catch(() => {});
    for (let i = 0; i < 200 && !(await ws.exists('started.txt')); i++)
      await new Promise((r) => setTimeout(r, 25));
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(await allStopped(descendants)).toBe(true);
  });

  it('gives children a minimal environment', async () => {
    process.env.CLOSEDLOOP_RUNNER_TEST_TOKEN = 'runner-canary-0123456789';
    process.env.NODE_OPTIONS_BACKUP = process.env.NODE_OPTIONS ?? '';
    try {
      const runner = createCommandRunner({ root: ws.root, sandbox, policy: { env: { EXTRA: '1' } } });
      const result = await runner.run(['node', 'env.cjs']);
      const env = JSON.parse(result.stdout) as Record<string, string>;
      expect(env.CLOSEDLOOP_RUNNER_TEST_TOKEN).toBeUndefined();
      expect(env.NODE_OPTIONS).toBeUndefined();
      expect(env.EXTRA).toBe('1');
      expect(env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
      expect(result.stdout).not.toContain('runner-canary');
    } finally {
      delete process.env.CLOSEDLOOP_RUNNER_TEST_TOKEN;
      delete process.env.NODE_OPTIONS_BACKUP;
    }
  });

  it('refuses environment variables that inject code', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox });
    for (const name of [
      'NODE_OPTIONS',
      'LD_PRELOAD',
      'GIT_CONFIG_COUNT',
      'npm_config_script_shell',
      'PATH',
    ]) {
      await expect(runner.run(['node', 'env.cjs'], { env: { [name]: 'x' } })).rejects.toMatchObject({
        code: 'command-denied',
      });
    }
  });

  it('passes stdin and collects interleaved output', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox });
    const result = await runner.run(['node', 'echo-stdin.cjs'], { stdin: 'hello', interleaved: true });
    expect(result.stdout).toBe('hello');
    expect(result.output).toContain('hello');
    expect(result.output).toContain('err');
  });
});

describe.runIf(hasSandbox)('the bubblewrap sandbox', () => {
  let outside: TempWorkspace;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    outside = await createTempWorkspace({ files: { 'canary.txt': 'OUTSIDE\n' } });
  });
  afterEach(async () => {
    await outside.cleanup();
  });

  it('lets commands write the workspace and nothing else', async () => {
    await ws.write(
      'write.cjs',
      `const fs = require('node:fs');
const tryWrite = (file) => { try { fs.writeFileSync(file, 'x'); return 'wrote'; } catch (e) { return e.code; } };
console.log(JSON.stringify({
  inside: tryWrite('inside.txt'),
  outside: tryWrite(${JSON.stringify(path.join(outside.root, 'pwned.txt'))}),
  overwrite: tryWrite(${JSON.stringify(path.join(outside.root, 'canary.txt'))}),
  home: tryWrite(require('node:os').homedir() + '/closedloop-pwned.txt'),
  etc: tryWrite('/etc/closedloop-pwned'),
}));`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const result = await runner.run(['node', 'write.cjs']);
    const outcome = JSON.parse(result.stdout) as Record<string, string>;
    expect(outcome.inside).toBe('wrote');
    expect(outcome.outside).not.toBe('wrote');
    expect(outcome.overwrite).not.toBe('wrote');
    expect(outcome.home).not.toBe('wrote');
    expect(outcome.etc).not.toBe('wrote');
    expect(await outside.read('canary.txt')).toBe('OUTSIDE\n');
    expect(await outside.exists('pwned.txt')).toBe(false);
  });

  it('sees packages the workspace links to under /tmp (read-only), and nothing else there', async () => {
    await outside.write('node_modules/greet/index.js', "module.exports = 'hi from a linked store';\n");
    await mkdir(path.join(ws.root, 'node_modules'), { recursive: true });
    await symlink(
      path.join(outside.root, 'node_modules', 'greet'),
      path.join(ws.root, 'node_modules', 'greet'),
    );
    await ws.write(
      'linked.cjs',
      `const fs = require('node:fs');
const attempt = (fn) => { try { fn(); return 'ok'; } catch (e) { return e.code; } };
console.log(JSON.stringify({
  greet: require('greet'),
  writeStore: attempt(() => fs.writeFileSync(${JSON.stringify(path.join(outside.root, 'node_modules', 'pwned.txt'))}, 'x')),
  readCanary: attempt(() => fs.readFileSync(${JSON.stringify(path.join(outside.root, 'canary.txt'))})),
}));`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const outcome = JSON.parse((await runner.run(['node', 'linked.cjs'])).stdout) as Record<string, string>;
    expect(outcome.greet).toBe('hi from a linked store');
    expect(outcome.writeStore).not.toBe('ok');
    expect(outcome.readCanary).not.toBe('ok');
  });

  it("does not show a /tmp folder a workspace's node_modules/.bin program links into", async () => {
    // The attack: a `.bin` entry linked to any executable under the machine's /tmp would have the
    // sandbox mount that executable's whole folder (another workspace, say) to run it.
    await outside.write('run.sh', '#!/bin/sh\ncat "$(dirname "$(readlink -f "$0")")/canary.txt"\n');
    await chmod(path.join(outside.root, 'run.sh'), 0o755);
    await mkdir(path.join(ws.root, 'node_modules', '.bin'), { recursive: true });
    await symlink(path.join(outside.root, 'run.sh'), path.join(ws.root, 'node_modules', '.bin', 'vitest'));
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const result = await runner.run(['vitest', 'run']);
    expect(result.stdout).not.toContain('OUTSIDE');
    expect(result.exitCode).not.toBe(0);
  });

  it("hides the agent's own environment: no /proc/<pid>/environ of the parent", async () => {
    process.env.CLOSEDLOOP_PARENT_CANARY_KEY = 'parent-canary-9f8e7d6c5b4a';
    try {
      await ws.write(
        'scan.cjs',
        `const fs = require('node:fs');
const found = [];
for (const pid of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {
  try { if (fs.readFileSync('/proc/' + pid + '/environ', 'utf8').includes('parent-canary')) found.push(pid); } catch {}
}
let ppid = 'unreadable';
try { ppid = fs.readFileSync('/proc/' + process.ppid + '/environ', 'utf8').includes('parent-canary') ? 'leaked' : 'clean'; } catch {}
console.log(JSON.stringify({ found, ppid, processes: fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).length }));`,
      );
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
      const outcome = JSON.parse((await runner.run(['node', 'scan.cjs'])).stdout) as {
        found: string[];
        ppid: string;
        processes: number;
      };
      expect(outcome.found).toEqual([]);
      expect(outcome.ppid).not.toBe('leaked');
      expect(outcome.processes).toBeLessThan(5); // a private pid namespace
    } finally {
      delete process.env.CLOSEDLOOP_PARENT_CANARY_KEY;
    }
  });

  it('has no network unless allowed', async () => {
    await ws.write(
      'fetch.mjs',
      `try { const r = await fetch('http://127.0.0.1:${port}/', { signal: AbortSignal.timeout(3000) }); console.log(await r.text()); } catch (e) { console.log('blocked', e.cause?.code ?? e.name); }`,
    );
    const closed = createCommandRunner({ root: ws.root, sandbox: 'required' });
    expect((await closed.run(['node', 'fetch.mjs'])).stdout).toContain('blocked');
    const open = createCommandRunner({ root: ws.root, sandbox: { mode: 'required', network: true } });
    expect((await open.run(['node', 'fetch.mjs'])).stdout).toContain('reached');
  });

  it('gives a private /tmp and keeps the repository config and hooks read-only', async () => {
    await ws.git('init', '-q', '.');
    await ws.write(
      'plant.cjs',
      `const fs = require('node:fs');
const tryWrite = (file, text) => { try { fs.writeFileSync(file, text); return 'wrote'; } catch (e) { return e.code; } };
console.log(JSON.stringify({
  hook: tryWrite('.git/hooks/pre-commit', '#!/bin/sh\\ntouch /tmp/pwned\\n'),
  config: tryWrite('.git/config', '[core]\\n\\tfsmonitor = touch pwned\\n'),
  tmp: tryWrite('/tmp/closedloop-private-' + process.pid, 'x'),
}));`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const outcome = JSON.parse((await runner.run(['node', 'plant.cjs'])).stdout) as Record<string, string>;
    expect(outcome.hook).not.toBe('wrote');
    expect(outcome.config).not.toBe('wrote');
    expect(outcome.tmp).toBe('wrote');
    expect(await ws.read('.git/config')).not.toContain('fsmonitor');
  });

  it('keeps the git directory in place: no rename, no new hooks folder, no commondir redirect', async () => {
    await ws.git('init', '-q', '--template=', '.');
    // A planted git directory inside the workspace with an fsmonitor that would fire outside.
    await ws.write(
      'plant-gitdir.cjs',
      `const fs = require('node:fs');
const attempt = (fn) => { try { fn(); return 'ok'; } catch (e) { return e.code; } };
const evil = '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch fired; false"\\n';
console.log(JSON.stringify({
  rename: attempt(() => fs.renameSync('.git', 'git-old')),
  replace: attempt(() => { fs.mkdirSync('.git/x'); fs.rmSync('.git', { recursive: true }); }),
  hooks: attempt(() => { fs.mkdirSync('.git/hooks', { recursive: true }); fs.writeFileSync('.git/hooks/post-checkout', '#!/bin/sh\\ntouch fired\\n'); }),
  redirect: attempt(() => { fs.cpSync('.git', 'evil', { recursive: true }); fs.writeFileSync('evil/config', evil); fs.writeFileSync('.git/commondir', '../evil\\n'); }),
}));`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const outcome = JSON.parse((await runner.run(['node', 'plant-gitdir.cjs'])).stdout) as Record<
      string,
      string
    >;
    expect(outcome.rename).not.toBe('ok');
    expect(outcome.replace).not.toBe('ok');
    expect(outcome.hooks).not.toBe('ok');
    expect(await ws.exists('git-old')).toBe(false);
    expect(await ws.exists('.git/commondir')).toBe(false);
    expect(await ws.read('.git/config')).not.toContain('fsmonitor');
    // The user's own git, outside the sandbox, runs nothing the command planted.
    await ws.git('status');
    expect(await ws.exists('fired')).toBe(false);
  });

  it('leaves no program-running git setting in a submodule or a repository the command made', async () => {
    // The attack: inside the sandbox, make a nested repository, give it an fsmonitor, and add it
    // to the outer repository as a submodule (a gitlink); the user's own `git status` later runs
    // `git status` in the submodule, outside the sandbox, with that configuration.
    await ws.git('init', '-q', '.');
    await ws.git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init');
    const fired = path.join(ws.root, 'fired');
    await ws.write(
      'plant-submodule.cjs',
      `const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
git('init', '-q', 'sub');
git('-C', 'sub', 'commit', '-q', '--allow-empty', '-m', 'sub');
fs.appendFileSync('sub/.git/config', '[core]\\n\\tfsmonitor = "touch ${fired}; false"\\n');
fs.writeFileSync('sub/changed', 'x');
git('add', 'sub');
console.log('planted');`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const result = await runner.run(['node', 'plant-submodule.cjs']);
    expect(result.stdout).toContain('planted');
    expect(result.stderr).toMatch(/moved aside git settings.*sub\/\.git\/config \(core\.fsmonitor\)/);
    expect(await ws.git('ls-files', '--stage', 'sub')).toMatch(/^160000 /);
    await ws.git('status');
    expect(await ws.exists('fired')).toBe(false);

    // A submodule that is a link to another repository of the user's is not the workspace's: its
    // configuration (with keys beyond git init's) is left alone.
    const other = await createTempWorkspace({ git: true, files: { 'o.txt': 'o' } });
    try {
      await ws.write(
        'link-submodule.cjs',
        `require('node:fs').symlinkSync(${JSON.stringify(other.root)}, 'other');
require('node:child_process').execFileSync('git', ['update-index', '--add', '--cacheinfo', '160000,${'1'.repeat(40)},other']);`,
      );
      const linked = await runner.run(['node', 'link-submodule.cjs']);
      expect(linked.exitCode).toBe(0);
      expect(linked.stderr).not.toContain('moved aside');
      expect(await other.read('.git/config')).toContain('gpgsign');
    } finally {
      await other.cleanup();
    }

    // A repository the command makes where there was none: its config is the command's.
    const bare = await createTempWorkspace();
    try {
      await bare.write(
        'plant-repository.cjs',
        `require('node:child_process').execFileSync('git', ['init', '-q', '.']);
require('node:fs').appendFileSync('.git/config', '[core]\\n\\tfsmonitor = "touch ${path.join(bare.root, 'fired')}; false"\\n');`,
      );
      const made = await createCommandRunner({ root: bare.root, sandbox: 'required' }).run([
        'node',
        'plant-repository.cjs',
      ]);
      expect(made.stderr).toContain('.git/config (core.fsmonitor)');
      await bare.write('a.txt', 'a');
      await bare.git('status');
      expect(await bare.exists('fired')).toBe(false);
    } finally {
      await bare.cleanup();
    }
  });

  it("keeps submodules' and linked worktrees' git directories out of reach", async () => {
    await ws.git('init', '-q', '.');
    await ws.git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init');
    await ws.git('worktree', 'add', '-q', path.join(ws.root, 'wt'));
    await ws.write(
      'plant-modules.cjs',
      `const fs = require('node:fs');
const attempt = (fn) => { try { fn(); return 'ok'; } catch (e) { return e.code; } };
console.log(JSON.stringify({
  module: attempt(() => { fs.mkdirSync('.git/modules/lib', { recursive: true }); fs.writeFileSync('.git/modules/lib/config', '[core]\\n\\tfsmonitor = touch fired\\n'); }),
  worktree: attempt(() => fs.writeFileSync('.git/worktrees/wt/commondir', '../../../evil\\n')),
}));`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const outcome = JSON.parse((await runner.run(['node', 'plant-modules.cjs'])).stdout) as Record<
      string,
      string
    >;
    expect(outcome.module).not.toBe('ok');
    expect(outcome.worktree).not.toBe('ok');
    expect(await ws.exists('.git/modules/lib')).toBe(false);
    expect(await ws.read('.git/worktrees/wt/commondir')).not.toContain('evil');
    // git still works: worktrees can be added and listed.
    expect((await runner.run(['git', 'worktree', 'add', '-q', 'wt2'])).exitCode).toBe(0);
    expect((await runner.run(['git', 'worktree', 'list'])).stdout).toContain('wt2');
  });

  it('mounts writable no folder a .git file, link or commondir names outside the workspace', async () => {
    // The attack: `.git` holding `gitdir: /etc` (or any folder) had the sandbox mount that folder
    // writable — as root, a way to write /etc/ld.so.preload.
    const victim = await mkdtemp(path.join(homedir(), '.closedloop-victim-'));
    const victimRepo = await mkdtemp(path.join(homedir(), '.closedloop-victim-repo-'));
    try {
      await ws.write(
        'write-outside.cjs',
        `const fs = require('node:fs');
for (const file of ${JSON.stringify([path.join(victim, 'pwned'), path.join(victimRepo, '.git', 'pwned')])}) {
  try { fs.writeFileSync(file, 'x'); console.log('wrote', file); } catch (error) { console.log(error.code); }
}`,
      );
      await writeFile(path.join(ws.root, '.git'), `gitdir: ${victim}\n`);
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
      const planted = await runner.run(['node', 'write-outside.cjs']);
      expect(planted.stdout).not.toContain('wrote');
      // Nothing was mounted there either (no hooks or modules mount points left behind).
      expect(await readdir(victim)).toEqual([]);

      // A command that points `.git` at another repository of the user's: moved aside after it.
      await rm(path.join(ws.root, '.git'));
      execFileSync('git', ['init', '-q', victimRepo]);
      await ws.write(
        'point-git.cjs',
        `require('node:fs').writeFileSync('.git', ${JSON.stringify(`gitdir: ${path.join(victimRepo, '.git')}
`)});`,
      );
      const pointed = await runner.run(['node', 'point-git.cjs']);
      expect(pointed.stderr).toContain('.git (points outside the workspace)');
      expect(await ws.exists('.git')).toBe(false);
      const after = await runner.run(['node', 'write-outside.cjs']);
      expect(after.stdout).not.toContain('wrote');
      expect(await readdir(path.join(victimRepo, '.git'))).not.toContain('pwned');
    } finally {
      await rm(victim, { recursive: true, force: true });
      await rm(victimRepo, { recursive: true, force: true });
    }
  });

  it("keeps a worktree's .git file read-only", async () => {
    await ws.git('init', '-q', '.');
    await ws.git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init');
    const worktree = path.join(ws.root, 'wt');
    await ws.git('worktree', 'add', '-q', worktree);
    await writeFile(
      path.join(worktree, 'point.cjs'),
      `try { require('node:fs').writeFileSync('.git', 'gitdir: ../evil\\n'); console.log('ok'); } catch (e) { console.log(e.code); }`,
    );
    const runner = createCommandRunner({ root: worktree, sandbox: 'required' });
    expect((await runner.run(['node', 'point.cjs'])).stdout.trim()).not.toBe('ok');
    expect(await readFile(path.join(worktree, '.git'), 'utf8')).not.toContain('evil');
  });

  it.runIf(runSocketFolder !== undefined)(
    "cannot reach the machine's services through their sockets in /run",
    async () => {
      const socket = path.join(runSocketFolder as string, 'service.sock');
      const service = createNetServer((connection) => connection.end('service reached\n'));
      await new Promise<void>((resolve) => service.listen(socket, resolve));
      try {
        await ws.write(
          'connect.cjs',
          `const s = require('node:net').connect(${JSON.stringify(socket)});
s.on('data', (d) => console.log(String(d).trim())); s.on('error', (e) => console.log('blocked', e.code));`,
        );
        const closed = createCommandRunner({ root: ws.root, sandbox: 'required' });
        expect((await closed.run(['node', 'connect.cjs'])).stdout).toContain('blocked');
        // Unsandboxed, the same command reaches it: the test can fail.
        const off = createCommandRunner({ root: ws.root, sandbox: 'off' });
        expect((await off.run(['node', 'connect.cjs'])).stdout).toContain('service reached');
      } finally {
        await new Promise((resolve) => service.close(resolve));
      }
    },
  );

  it("cannot reach sockets bound outside /run and /tmp: the home folder's, the workspace's own", async () => {
    const home = await mkdtemp(path.join(homedir(), '.closedloop-socket-test-'));
    const sockets = [path.join(home, 'agent.sock'), path.join(ws.root, 'service.sock')];
    const services = sockets.map(() => createNetServer((connection) => connection.end('service reached\n')));
    try {
      await Promise.all(
        services.map(
          (service, index) => new Promise<void>((resolve) => service.listen(sockets[index], resolve)),
        ),
      );
      await ws.write(
        'connect-all.cjs',
        `for (const path of ${JSON.stringify(sockets)}) {
  const s = require('node:net').connect(path);
  s.on('data', (d) => console.log(path, String(d).trim())); s.on('error', (e) => console.log(path, 'blocked', e.code));
}`,
      );
      const closed = await createCommandRunner({ root: ws.root, sandbox: 'required' }).run([
        'node',
        'connect-all.cjs',
      ]);
      for (const socket of sockets) expect(closed.stdout).toContain(`${socket} blocked`);
      // Unsandboxed, the same command reaches both: the test can fail.
      const off = await createCommandRunner({ root: ws.root, sandbox: 'off' }).run([
        'node',
        'connect-all.cjs',
      ]);
      for (const socket of sockets) expect(off.stdout).toContain(`${socket} service reached`);
    } finally {
      await Promise.all(services.map((service) => new Promise((resolve) => service.close(resolve))));
      await rm(home, { recursive: true, force: true });
    }
  });

  it("holds closedloop's folder while any command runs: one ending does not open it to another", async () => {
    await ws.write(
      'slow.cjs',
      `const fs = require('node:fs');
setTimeout(() => {
  try { fs.writeFileSync('.closedloop/x', 'forged'); console.log('forged'); }
  catch (error) { console.log(error.code); }
}, 1500);`,
    );
    await ws.write('quick.cjs', '');
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const slow = runner.run(['node', 'slow.cjs']);
    // Started while the slow one runs, and ended long before it writes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await runner.run(['node', 'quick.cjs'])).exitCode).toBe(0);
    expect(await ws.exists('.closedloop')).toBe(true);
    expect((await slow).stdout).toBe('EROFS\n');
    expect(await ws.exists('.closedloop')).toBe(false);
    // A folder that was there before stays, empty or not.
    await ws.write('.closedloop/keep.txt', 'k');
    expect((await runner.run(['node', 'quick.cjs'])).exitCode).toBe(0);
    expect(await ws.read('.closedloop/keep.txt')).toBe('k');
  });

  it("keeps closedloop's own folder (.closedloop, run journals) and readOnly folders read-only", async () => {
    await ws.write('.closedloop/runs/r1.jsonl', '{"type":"run-started"}\n');
    await ws.write('journal/r2.jsonl', '{"type":"run-started"}\n');
    await ws.write(
      'forge.cjs',
      `const fs = require('node:fs');
for (const file of ['.closedloop/runs/r1.jsonl', 'journal/r2.jsonl', '.closedloop/runs/new.jsonl']) {
  try { fs.appendFileSync(file, '{"type":"step-verified"}\\n'); console.log(file, 'forged'); }
  catch (error) { console.log(file, error.code); }
}`,
    );
    const runner = createCommandRunner({
      root: ws.root,
      sandbox: { mode: 'required', readOnly: ['journal'] },
    });
    const result = await runner.run(['node', 'forge.cjs']);
    expect(result.stdout).toBe(
      '.closedloop/runs/r1.jsonl EROFS\njournal/r2.jsonl EROFS\n.closedloop/runs/new.jsonl EROFS\n',
    );
    expect(await ws.read('.closedloop/runs/r1.jsonl')).toBe('{"type":"run-started"}\n');
    // The file tools refuse it too.
    const registry = createToolRegistry(workspaceTools({ root: ws.root, runner }));
    const written = await registry.execute(
      'write_file',
      { path: '.closedloop/runs/r1.jsonl', content: 'forged' },
      { signal: new AbortController().signal, callId: 'c1' },
    );
    expect(written).toMatchObject({ status: 'error', code: 'path-escape' });
    expect(await ws.read('.closedloop/runs/r1.jsonl')).toBe('{"type":"run-started"}\n');
  });

  it("never lets a command create closedloop's own folder or a readOnly one before they exist (forged journals, a link out)", async () => {
    const outside = await createTempWorkspace();
    try {
      await symlink(outside.root, path.join(ws.root, 'link-out'));
      await ws.write(
        'plant.cjs',
        `const fs = require('node:fs');
for (const folder of ['.closedloop', 'state/journal']) {
  try { fs.writeFileSync(folder + '/r9.jsonl', 'forged'); console.log(folder, 'forged'); }
  catch (error) { console.log(folder, error.code); }
  // Refused (EBUSY: a mount point; Node 24's rmSync reports it without a code).
  try { fs.rmSync(folder, { recursive: true, force: true }); fs.symlinkSync(${JSON.stringify(outside.root)}, folder); console.log(folder, 'linked'); }
  catch { console.log(folder, 'kept'); }
}`,
      );
      expect(await ws.exists('.closedloop')).toBe(false);
      const runner = createCommandRunner({
        root: ws.root,
        sandbox: { mode: 'required', readOnly: ['state/journal', 'link-out/journal'] },
      });
      const result = await runner.run(['node', 'plant.cjs']);
      expect(result.stdout).toBe(
        '.closedloop EROFS\n.closedloop kept\nstate/journal EROFS\nstate/journal kept\n',
      );
      // Made for the command, removed after it (nothing of closedloop's left in the workspace).
      for (const folder of ['.closedloop', 'state/journal', 'state'])
        expect(await ws.exists(folder)).toBe(false);
      // A readOnly folder behind a link out of the workspace is nothing to make.
      expect(await readdir(outside.root)).toEqual([]);
    } finally {
      await outside.cleanup();
    }
  });

  it('gives commands no capabilities and read-only kernel settings, even as root', async () => {
    const canary = path.join(homedir(), `.closedloop-sandbox-canary-${process.pid}`);
    await ws.write(
      'remount.cjs',
      `const fs = require('node:fs'); const { spawnSync } = require('node:child_process');
const caps = /CapEff:\\s*([0-9a-f]+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1];
const remount = spawnSync('mount', ['-o', 'remount,rw', '/'], { encoding: 'utf8' }).status;
let wrote = 'no';
try { fs.writeFileSync(${JSON.stringify(canary)}, 'x'); wrote = 'yes'; } catch {}
// A kernel setting, written back unchanged: global, whatever namespace the command is in.
const setting = '/proc/sys/kernel/printk_ratelimit';
let sysctl = 'refused';
try { fs.writeFileSync(setting, fs.readFileSync(setting)); sysctl = 'written'; } catch {}
console.log(JSON.stringify({ caps, remount, wrote, sysctl }));`,
    );
    try {
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
      const outcome = JSON.parse((await runner.run(['node', 'remount.cjs'])).stdout) as Record<
        string,
        unknown
      >;
      expect(outcome.caps).toMatch(/^0+$/);
      expect(outcome.remount).not.toBe(0);
      expect(outcome.wrote).toBe('no');
      expect(outcome.sysctl).toBe('refused');
      expect(await stat(canary).catch(() => undefined)).toBeUndefined();
    } finally {
      await rm(canary, { force: true });
    }
  });

  it('hides a hidden folder even inside the workspace or a writable folder (binds do not show it again)', async () => {
    await ws.write('secrets/key.txt', 'HIDDEN-KEY\n');
    await outside.write('creds/token.txt', 'HIDDEN-TOKEN\n');
    await ws.write(
      'read-hidden.cjs',
      `for (const file of ${JSON.stringify([path.join(ws.root, 'secrets/key.txt'), path.join(outside.root, 'creds/token.txt')])}) {
  try { console.log(require('node:fs').readFileSync(file, 'utf8').trim()); } catch (error) { console.log(error.code); }
}`,
    );
    const runner = createCommandRunner({
      root: ws.root,
      sandbox: {
        mode: 'required',
        writable: [outside.root],
        hide: [path.join(ws.root, 'secrets'), path.join(outside.root, 'creds')],
      },
    });
    const result = await runner.run(['node', 'read-hidden.cjs']);
    expect(result.stdout).toBe('ENOENT\nENOENT\n');
  });

  it('shows every default hidden path of this machine empty', async () => {
    // One made for the test when this machine has none (and removed after).
    const made = path.join(homedir(), '.pgpass');
    const create = !(await stat(made).then(
      () => true,
      () => false,
    ));
    if (create) await writeFile(made, 'db:5432:*:user:HIDDEN-PASSWORD\n');
    try {
      const present: string[] = [];
      for (const entry of defaultHiddenPaths) {
        const target = entry.startsWith('~/') ? path.join(homedir(), entry.slice(2)) : entry;
        if (
          await stat(target).then(
            () => true,
            () => false,
          )
        )
          present.push(target);
      }
      expect(present).toContain(made);
      await ws.write(
        'peek-all.cjs',
        `const fs = require('node:fs');
for (const target of ${JSON.stringify(present)}) {
  let seen;
  try { seen = fs.statSync(target).isDirectory() ? fs.readdirSync(target).length : fs.readFileSync(target).length; }
  catch (error) { seen = error.code; }
  console.log(target, seen);
}`,
      );
      const result = await createCommandRunner({ root: ws.root, sandbox: 'required' }).run([
        'node',
        'peek-all.cjs',
      ]);
      for (const target of present)
        expect(result.stdout).toMatch(
          new RegExp(`^${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (?:0|EACCES|ENOENT)$`, 'm'),
        );
    } finally {
      if (create) await rm(made, { force: true });
    }
  });

  it('hides credential stores of the home folder', async () => {
    const runner = createCommandRunner({
      root: ws.root,
      // Shown (the sandbox shows nothing of /tmp but the workspace otherwise), then hidden.
      sandbox: { mode: 'required', show: [outside.root], hide: [outside.root] },
    });
    const result = await runner.run(['node', 'env.cjs']);
    expect(result.exitCode).toBe(0);
    await ws.write(
      'peek.cjs',
      `try { console.log(require('node:fs').readdirSync(${JSON.stringify(outside.root)}).join(',') || 'empty'); } catch (e) { console.log(e.code); }`,
    );
    expect((await runner.run(['node', 'peek.cjs'])).stdout.trim()).toBe('empty');
    // Root owns /etc/shadow: an agent running as root must not show it to its commands.
    await ws.write(
      'shadow.cjs',
      `try { console.log(require('node:fs').readFileSync('/etc/shadow', 'utf8').length); } catch (e) { console.log(e.code); }`,
    );
    const shadow = (await runner.run(['node', 'shadow.cjs'])).stdout.trim();
    expect(shadow === '0' || shadow === 'EACCES' || shadow === 'ENOENT').toBe(true);
  });
});

describe('sandbox modes', () => {
  it("'required' fails closed with a typed error when bubblewrap cannot be used", async () => {
    await ws.write('touch.cjs', 'require("node:fs").writeFileSync("ran.txt", "x");\n');
    const runner = createCommandRunner({
      root: ws.root,
      sandbox: { mode: 'required', bubblewrap: '/nonexistent/closedloop-bwrap' },
    });
    const error = await runner.run(['node', 'touch.cjs']).catch((caught: unknown) => caught);
    expect(ToolError.isInstance(error) && error.code).toBe('sandbox-unavailable');
    expect(await ws.exists('ran.txt')).toBe(false);
    expect(await runner.sandboxStatus()).toMatchObject({ sandboxed: false });
  });

  it("'auto' runs unsandboxed when bubblewrap is missing and warns once", async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      await ws.write('touch.cjs', 'require("node:fs").writeFileSync("ran.txt", "x");\n');
      const runner = createCommandRunner({
        root: ws.root,
        sandbox: { mode: 'auto', bubblewrap: '/nonexistent/closedloop-bwrap-auto' },
      });
      expect((await runner.run(['node', 'touch.cjs'])).sandboxed).toBe(false);
      await runner.run(['node', 'touch.cjs']);
      expect(await ws.exists('ran.txt')).toBe(true);
      const calls = warn.mock.calls.filter((call) => String(call[0]).includes('WITHOUT a sandbox'));
      expect(calls).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });

  it("'off' never sandboxes and never warns", async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox: 'off' });
    expect((await runner.run(['node', 'env.cjs'])).sandboxed).toBe(false);
    expect(await runner.sandboxStatus()).toEqual({ sandboxed: false, reason: "sandbox: 'off'" });
  });

  it('rejects an unknown mode', () => {
    expect(() => createCommandRunner({ root: ws.root, sandbox: 'sometimes' as 'auto' })).toThrow(
      /'auto', 'required' or 'off'/,
    );
  });
});
