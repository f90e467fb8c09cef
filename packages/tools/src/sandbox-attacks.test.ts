/**
 * Attacks on the sandbox by a hostile command: reaching the host through special files (named
 * pipes, devices), and the runner's own edge cases (a host socket that vanishes while the sandbox
 * is set up).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countRunning, forkerScript, runWithoutCgroup } from './__fixtures__/limited-runner';
import { createCommandRunner } from './create-command-runner';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { hasPidMaxPerNamespace } from './resource-limits';
import { bubblewrapArguments, probeSandbox } from './sandbox';

const probe = await probeSandbox();
const hasSandbox = probe.available;

let ws: TempWorkspace;
/** A folder of the host outside `/tmp` and `/run` (which the sandbox replaces by empty ones). */
let host: string;
beforeEach(async () => {
  ws = await createTempWorkspace({ files: {} });
  host = await mkdtemp(path.join(homedir(), '.closedloop-attack-'));
});
afterEach(async () => {
  await ws.cleanup();
  await rm(host, { recursive: true, force: true });
});

describe.runIf(hasSandbox)('special files of the host', () => {
  it('cannot write or read a named pipe (FIFO) a host process holds open, outside the workspace or in it', async () => {
    const fifos = [path.join(host, 'control.fifo'), path.join(ws.root, 'service.fifo')];
    // A host service reading commands from its FIFOs (opened read-write: it never sees an end).
    const readers = fifos.map((fifo) => {
      execFileSync('mkfifo', [fifo]);
      return spawn(
        'sh',
        ['-c', 'exec 3<>"$0"; while read -r line <&3; do echo "$line" >> "$0.log"; done', fifo],
        {
          stdio: 'ignore',
        },
      );
    });
    try {
      // The readers hold their FIFO open before the command starts.
      for (const fifo of fifos) {
        for (let wait = 0; wait < 100; wait++) {
          const held = execFileSync('sh', [
            '-c',
            `ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c -- ${JSON.stringify(fifo)} || true`,
          ])
            .toString()
            .trim();
          if (held !== '0') break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      // The list of open files is reused for a second (see `OPEN_FILES_TTL_MS`): one taken by an
      // earlier command would not know these readers yet.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await ws.write(
        'inject.cjs',
        `const fs = require('node:fs');
for (const fifo of ${JSON.stringify(fifos)}) {
  try { const fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK); fs.writeSync(fd, 'rm -rf /\\n'); fs.closeSync(fd); console.log(fifo, 'written'); }
  catch (error) { console.log(fifo, error.code); }
}`,
      );
      const sandboxed = await createCommandRunner({ root: ws.root, sandbox: 'required' }).run([
        'node',
        'inject.cjs',
      ]);
      for (const fifo of fifos) expect(sandboxed.stdout).not.toContain(`${fifo} written`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const fifo of fifos) expect(await readFile(`${fifo}.log`, 'utf8').catch(() => '')).toBe('');
      // Unsandboxed, the same command reaches both services: the test can fail.
      const off = await createCommandRunner({ root: ws.root, sandbox: 'off' }).run(['node', 'inject.cjs']);
      for (const fifo of fifos) expect(off.stdout).toContain(`${fifo} written`);
    } finally {
      for (const reader of readers) reader.kill('SIGKILL');
    }
  });

  it('cannot reach a host process waiting in open() on a FIFO (`cat fifo`, `read < fifo`)', async () => {
    const fifo = path.join(host, 'waiting.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('sh', ['-c', 'cat "$0" > "$0.log"', fifo], { stdio: 'ignore' });
    try {
      // Until a thread waits for a writer on the FIFO (`wait_for_partner`).
      for (let wait = 0; wait < 200; wait++) {
        const waiting = readdirSync('/proc').some((pid) => {
          try {
            return (
              readFileSync(`/proc/${pid}/wchan`, 'utf8') === 'wait_for_partner' &&
              readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('cat\0')
            );
          } catch {
            return false;
          }
        });
        if (waiting) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The list is reused for a second (see `OPEN_FILES_TTL_MS`).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await ws.write(
        'feed.cjs',
        `const fs = require('node:fs');
try { const fd = fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK); fs.writeSync(fd, 'payload\\n'); fs.closeSync(fd); console.log('written'); }
catch (error) { console.log(error.code); }`,
      );
      const sandboxed = await createCommandRunner({ root: ws.root, sandbox: 'required' }).run([
        'node',
        'feed.cjs',
      ]);
      expect(sandboxed.stdout).not.toContain('written');
      // Unsandboxed, the same command reaches the reader: the test can fail.
      const off = await createCommandRunner({ root: ws.root, sandbox: 'off' }).run(['node', 'feed.cjs']);
      expect(off.stdout).toBe('written\n');
    } finally {
      reader.kill('SIGKILL');
    }
  });

  it('cannot reach a unix socket or a FIFO a host process makes after the command started', async () => {
    const socket = path.join(host, 'late.sock');
    const fifo = path.join(host, 'late.fifo');
    // Waits for both to appear (outside the sandbox, made after it was set up), then reaches them.
    await ws.write(
      'late.cjs',
      `const fs = require('node:fs');
const net = require('node:net');
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  for (let i = 0; i < 300 && !(fs.existsSync(${JSON.stringify(socket)}) && fs.existsSync(${JSON.stringify(fifo)})); i++) await wait(50);
  console.log('seen', fs.existsSync(${JSON.stringify(socket)}), fs.existsSync(${JSON.stringify(fifo)}));
  try { const fd = fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK); fs.writeSync(fd, 'payload\\n'); console.log('fifo written'); } catch (error) { console.log('fifo', error.code); }
  await new Promise((resolve) => {
    const client = net.connect(${JSON.stringify(socket)});
    client.on('data', (data) => { console.log('socket', String(data).trim()); client.destroy(); resolve(); });
    client.on('error', (error) => { console.log('socket', error.code); resolve(); });
  });
})();`,
    );
    const attack = async (sandbox: 'required' | 'off') => {
      const service = createNetServer((connection) => connection.end('reached'));
      let reader: ReturnType<typeof spawn> | undefined;
      try {
        const running = createCommandRunner({ root: ws.root, sandbox }).run(['node', 'late.cjs'], {
          timeoutMs: 20_000,
          // Bound and held only once the command runs: no scan made before it can know them.
          onSpawn: () => {
            setTimeout(async () => {
              // The FIFO appears only once its reader holds it open (made under another name, then
              // renamed): a writer that sees it always finds the reader, however loaded the machine.
              const draft = `${fifo}.draft`;
              execFileSync('mkfifo', [draft]);
              reader = spawn(
                'sh',
                ['-c', 'exec 3<>"$0"; : > "$0.ready"; exec cat <&3 > "$1.log"', draft, fifo],
                {
                  stdio: 'ignore',
                },
              );
              for (let wait = 0; wait < 1000 && !existsSync(`${draft}.ready`); wait++)
                await new Promise((resolve) => setTimeout(resolve, 10));
              renameSync(draft, fifo);
              service.listen(socket);
            }, 300);
          },
        });
        const result = await running;
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { stdout: result.stdout, log: await readFile(`${fifo}.log`, 'utf8').catch(() => '') };
      } finally {
        reader?.kill('SIGKILL');
        await new Promise((resolve) => service.close(resolve));
        await rm(fifo, { force: true });
        await rm(`${fifo}.log`, { force: true });
        await rm(`${fifo}.draft.ready`, { force: true });
      }
    };
    const sandboxed = await attack('required');
    expect(sandboxed.stdout).not.toContain('fifo written');
    expect(sandboxed.stdout).not.toContain('socket reached');
    expect(sandboxed.log).toBe('');
    // Unsandboxed, the same command reaches both: the test can fail.
    const off = await attack('off');
    expect(off.stdout).toContain('fifo written');
    expect(off.stdout).toContain('socket reached');
  }, 60_000);

  it('still runs programs installed in a hidden folder (PATH, nvm-style `prefix/bin`), with their installation', async () => {
    // An installation in the home folder: `bin/greet` reads `lib/greeting.txt` beside it.
    const prefix = path.join(host, 'tool');
    await import('node:fs/promises').then(({ mkdir }) =>
      mkdir(path.join(prefix, 'bin'), { recursive: true }),
    );
    await import('node:fs/promises').then(({ mkdir }) => mkdir(path.join(prefix, 'lib')));
    await writeFile(path.join(prefix, 'lib', 'greeting.txt'), 'hello from the home folder\n');
    await writeFile(
      path.join(prefix, 'bin', 'greet'),
      '#!/bin/sh\ncat "$(dirname "$0")/../lib/greeting.txt"\n',
    );
    await chmod(path.join(prefix, 'bin', 'greet'), 0o755);
    await writeFile(path.join(host, 'secret.txt'), 'not for commands\n');
    await ws.write(
      'greet.cjs',
      `const { execFileSync } = require('node:child_process');
process.stdout.write(execFileSync('greet', { encoding: 'utf8' }));
try { require('node:fs').readFileSync(${JSON.stringify(path.join(host, 'secret.txt'))}); console.log('secret read'); } catch (error) { console.log(error.code); }`,
    );
    const runner = createCommandRunner({
      root: ws.root,
      sandbox: 'required',
      policy: { env: { PATH: `${path.join(prefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` } },
    });
    const result = await runner.run(['node', 'greet.cjs']);
    expect(result.stdout, result.stderr).toBe('hello from the home folder\nENOENT\n');
  });

  it('never shows a whole home folder for a PATH entry that is one (`~` on PATH)', async () => {
    const args = await bubblewrapArguments({
      root: ws.root,
      cwd: ws.root,
      network: false,
      hide: [],
      writable: [],
      searchPath: `${homedir()}:${path.join(host, 'bin')}:/usr/bin`,
    });
    const shownFolders = args.flatMap((arg, index) => (arg === '--ro-bind' ? [args[index + 1]] : []));
    expect(shownFolders).not.toContain(homedir());
  });

  it('shows the host folders of `sandbox.show` (read-only), and only those', async () => {
    const shared = path.join(host, 'shared');
    await import('node:fs/promises').then(({ mkdir }) => mkdir(shared));
    await writeFile(path.join(shared, 'data.txt'), 'shared data\n');
    await writeFile(path.join(host, 'secret.txt'), 'not for commands\n');
    await ws.write(
      'show.cjs',
      `const fs = require('node:fs');
const attempt = (fn) => { try { return String(fn() ?? 'ok').trim(); } catch (error) { return error.code; } };
console.log(JSON.stringify({
  read: attempt(() => fs.readFileSync(${JSON.stringify(path.join(shared, 'data.txt'))}, 'utf8')),
  write: attempt(() => fs.writeFileSync(${JSON.stringify(path.join(shared, 'pwned.txt'))}, 'x')),
  beside: attempt(() => fs.readFileSync(${JSON.stringify(path.join(host, 'secret.txt'))}, 'utf8')),
}));`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: { mode: 'required', show: [shared] } });
    const result = await runner.run(['node', 'show.cjs']);
    expect(JSON.parse(result.stdout)).toEqual({ read: 'shared data', write: 'EROFS', beside: 'ENOENT' });
  });

  it('has a read-only root that holds no folder of the host outside the system but what it shows', async () => {
    await writeFile(path.join(host, 'secret.txt'), 'not for commands\n');
    await ws.write(
      'root.cjs',
      `const fs = require('node:fs');
const attempt = (fn) => { try { fn(); return 'ok'; } catch (error) { return error.code; } };
console.log(JSON.stringify({
  root: attempt(() => fs.mkdirSync('/closedloop-attack-${process.pid}')),
  var: attempt(() => fs.mkdirSync('/var/closedloop-attack-${process.pid}')),
  home: attempt(() => fs.writeFileSync(${JSON.stringify(path.join(path.dirname(host), `closedloop-attack-${process.pid}`))}, 'x')),
  host: fs.existsSync(${JSON.stringify(host)}),
  workspace: attempt(() => fs.writeFileSync('written.txt', 'x')),
  tmp: attempt(() => fs.writeFileSync('/tmp/written.txt', 'x')),
}));`,
    );
    const result = await createCommandRunner({ root: ws.root, sandbox: 'required' }).run([
      'node',
      'root.cjs',
    ]);
    const seen = JSON.parse(result.stdout);
    expect({ ...seen, home: seen.home === 'ENOENT' ? 'EROFS' : seen.home }).toEqual({
      root: 'EROFS',
      var: 'EROFS',
      home: 'EROFS',
      host: false,
      workspace: 'ok',
      tmp: 'ok',
    });
  });

  it.runIf(process.getuid?.() === 0)(
    'cannot read the files of /etc that only their owner or group may read (a backup of /etc/shadow, a service password)',
    async () => {
      // A command run by root owns root's files, capabilities or not: a key and a folder of them,
      // made for the test, and such files as the system has (`/etc/shadow-`, `/etc/ssl/private`).
      const key = `/etc/closedloop-attack-${process.pid}.key`;
      const folder = `/etc/closedloop-attack-${process.pid}.d`;
      await writeFile(key, 'private key\n', { mode: 0o600 });
      await import('node:fs/promises').then(({ mkdir }) => mkdir(folder, { mode: 0o700 }));
      await writeFile(path.join(folder, 'token.conf'), 'token\n', { mode: 0o644 });
      // The list of private files of /etc is reused for a second (see `PRIVATE_FILES_TTL_MS`).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      try {
        const found = execFileSync(
          'find',
          ['/etc', '-xdev', '-type', 'f', '!', '-perm', '-o=r', '-uid', '0'],
          {
            encoding: 'utf8',
          },
        )
          .split('\n')
          .filter((file) => file !== '')
          .slice(0, 20);
        const files = [key, path.join(folder, 'token.conf'), ...found.filter((file) => file !== key)];
        await ws.write(
          'etc.cjs',
          `const fs = require('node:fs');
for (const file of ${JSON.stringify(files)}) {
  try { console.log(file, fs.readFileSync(file).length > 0 ? 'read' : 'empty'); } catch (error) { console.log(file, error.code); }
}`,
        );
        const sandboxed = await createCommandRunner({ root: ws.root, sandbox: 'required' }).run([
          'node',
          'etc.cjs',
        ]);
        for (const file of files) expect(sandboxed.stdout).not.toContain(`${file} read`);
        // Unsandboxed, the same command reads them: the test can fail.
        const off = await createCommandRunner({ root: ws.root, sandbox: 'off' }).run(['node', 'etc.cjs']);
        expect(off.stdout).toContain(`${key} read`);
        expect(off.stdout).toContain(`${path.join(folder, 'token.conf')} read`);
      } finally {
        await rm(key, { force: true });
        await rm(folder, { recursive: true, force: true });
      }
    },
  );

  it('cannot open a device node planted in the workspace or found outside /dev (binds are nodev)', async () => {
    // Root may make device nodes: one for the host's memory would be the whole machine.
    if (process.getuid?.() !== 0) return;
    const nodes = [path.join(ws.root, 'zero'), path.join(host, 'zero')];
    for (const node of nodes) execFileSync('mknod', [node, 'c', '1', '5']);
    await ws.write(
      'device.cjs',
      `const fs = require('node:fs');
for (const node of ${JSON.stringify(nodes)}) {
  try { fs.readSync(fs.openSync(node, 'r'), Buffer.alloc(4)); console.log(node, 'opened'); } catch (error) { console.log(node, error.code); }
}
try { require('node:child_process').execFileSync('mknod', ['made', 'c', '1', '5']); console.log('made'); } catch { console.log('mknod refused'); }`,
    );
    const sandboxed = await createCommandRunner({ root: ws.root, sandbox: 'required' }).run([
      'node',
      'device.cjs',
    ]);
    // The host's own folder is not even shown (see `hostDataFolders`).
    const [inWorkspace, outside, made] = sandboxed.stdout.split('\n');
    expect([inWorkspace, made]).toEqual([`${nodes[0]} EACCES`, 'mknod refused']);
    expect(outside).toMatch(/ (?:EACCES|ENOENT)$/);
    const off = await createCommandRunner({ root: ws.root, sandbox: 'off' }).run(['node', 'device.cjs']);
    expect(off.stdout).toContain(`${nodes[0]} opened`);
  });
});

describe.runIf(hasSandbox)('a host socket that vanishes between listing and mounting', () => {
  it('starts the command again with a fresh list (deterministic: the socket goes right before bubblewrap runs)', async () => {
    // In the workspace: a socket bound there is covered (the host's own folders are not shown at all).
    const folder = path.join(ws.root, 'service');
    const socket = path.join(folder, 'service.sock');
    await import('node:fs/promises').then(({ mkdir }) => mkdir(folder));
    const service = createNetServer((connection) => connection.end('reached\n'));
    await new Promise<void>((resolve) => service.listen(socket, resolve));
    // bubblewrap, but the first time it is asked to cover the socket, the socket's folder is
    // removed just before: exactly the race of a service shutting down.
    const calls = path.join(host, 'calls.log');
    const wrapper = path.join(host, 'bwrap-racing');
    await writeFile(
      wrapper,
      `#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = ${JSON.stringify(socket)} ]; then
    echo covering >> ${JSON.stringify(calls)}
    rm -rf ${JSON.stringify(folder)}
  fi
done
exec ${JSON.stringify(probe.available ? probe.executable : 'bwrap')} "$@"
`,
    );
    await chmod(wrapper, 0o755);
    try {
      await ws.write('hello.cjs', "console.log('ran');\n");
      const runner = createCommandRunner({
        root: ws.root,
        sandbox: { mode: 'required', bubblewrap: wrapper },
      });
      const result = await runner.run(['node', 'hello.cjs']);
      expect({ exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({
        exitCode: 0,
        stdout: 'ran\n',
        stderr: '',
      });
      // The first start covered the socket and failed; the second did not need to.
      expect(await readFile(calls, 'utf8')).toBe('covering\n');
    } finally {
      await new Promise((resolve) => service.close(resolve));
    }
  });
});

describe.runIf(hasSandbox)('a hidden folder that vanishes between listing and mounting', () => {
  it('starts the command again with a fresh list (the folder, under a read-only one, goes right before bubblewrap runs)', async () => {
    // Under a read-only folder bubblewrap cannot make the mount point of a folder that is gone: the
    // race of a private folder of /etc removed while a command starts.
    const folder = path.join(ws.root, 'conf', 'private.d');
    await import('node:fs/promises').then(({ mkdir }) => mkdir(folder, { recursive: true }));
    const calls = path.join(host, 'hidden-calls.log');
    const wrapper = path.join(host, 'bwrap-hidden-racing');
    await writeFile(
      wrapper,
      `#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = ${JSON.stringify(folder)} ]; then
    echo covering >> ${JSON.stringify(calls)}
    rm -rf ${JSON.stringify(folder)}
  fi
done
exec ${JSON.stringify(probe.available ? probe.executable : 'bwrap')} "$@"
`,
    );
    await chmod(wrapper, 0o755);
    await ws.write('hello.cjs', "console.log('ran');\n");
    const runner = createCommandRunner({
      root: ws.root,
      sandbox: { mode: 'required', bubblewrap: wrapper, readOnly: ['conf'], hide: [folder] },
    });
    const result = await runner.run(['node', 'hello.cjs']);
    expect({ exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({
      exitCode: 0,
      stdout: 'ran\n',
      stderr: '',
    });
    expect(await readFile(calls, 'utf8')).toBe('covering\n');
  });
});

const isRoot = process.getuid?.() === 0;
const hasPython = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(hasSandbox && isRoot && hasPython && hasPidMaxPerNamespace())(
  'root without a usable cgroup (the kernel exempts root from RLIMIT_NPROC)',
  () => {
    it('still bounds the processes of a sandboxed command, and none outlives it', async () => {
      await ws.write('forker.py', forkerScript(400));
      const result = runWithoutCgroup({
        root: ws.root,
        argv: ['python3', 'forker.py'],
        env: { LIMITS: JSON.stringify({ maxProcesses: 32 }) },
      });
      expect(result.sandboxed).toBe(true);
      // Refused with EAGAIN well before the 400 forks, at the kernel's smallest pid_max.
      expect(result.stdout, result.stderr).toMatch(/^refused \d+ 11\n$/);
      expect(Number(result.stdout.split(' ')[1])).toBeLessThan(301);
      expect(await countRunning(path.join(ws.root, 'forker.py'))).toBe(0);
    }, 90_000);

    it('runs an ordinary command normally, and kills it at its timeout', async () => {
      await ws.write('hello.py', 'print("hello")\n');
      expect(runWithoutCgroup({ root: ws.root, argv: ['python3', 'hello.py'] })).toMatchObject({
        exitCode: 0,
        stdout: 'hello\n',
        stderr: '',
      });
      // Named for this test process: other test runs on the machine may run a sleeper.py of their own.
      const sleeper = `sleeper-${process.pid}.py`;
      await ws.write(sleeper, 'import os, time\nos.fork()\ntime.sleep(60)\n');
      const started = Date.now();
      const slept = runWithoutCgroup({
        root: ws.root,
        argv: ['python3', sleeper],
        env: { TIMEOUT_MS: '1000' },
      });
      expect(slept.timedOut).toBe(true);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(await countRunning(sleeper)).toBe(0);
    }, 90_000);

    it('runs commands as before where pid_max cannot be set (a read-only /proc/sys)', async () => {
      await ws.write('hello.py', 'print("hello")\n');
      const result = runWithoutCgroup({
        root: ws.root,
        argv: ['python3', 'hello.py'],
        setup: 'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys',
      });
      expect(result).toMatchObject({ exitCode: 0, stdout: 'hello\n', stderr: '', sandboxed: true });
    }, 90_000);

    it('bounds the processes of an unsandboxed command too, and none outlives it', async () => {
      await ws.write('forker.py', forkerScript(400));
      const result = runWithoutCgroup({
        root: ws.root,
        argv: ['python3', 'forker.py'],
        env: { SANDBOX: 'off', LIMITS: JSON.stringify({ maxProcesses: 32 }) },
      });
      expect(result.sandboxed).toBe(false);
      expect(result.stdout, result.stderr).toMatch(/^refused \d+ 11\n$/);
      expect(Number(result.stdout.split(' ')[1])).toBeLessThan(301);
      expect(await countRunning(path.join(ws.root, 'forker.py'))).toBe(0);
      // And an ordinary one runs as before.
      await ws.write('hello.py', 'print("hello")\n');
      expect(
        runWithoutCgroup({ root: ws.root, argv: ['python3', 'hello.py'], env: { SANDBOX: 'off' } }),
      ).toMatchObject({ exitCode: 0, stdout: 'hello\n', stderr: '', sandboxed: false });
    }, 90_000);
  },
);

describe('file descriptors the runner inherited', () => {
  /**
   * The runner's own process holds a descriptor without close-on-exec (as a parent that started
   * the agent may leave one): a folder outside the workspace, read-write.
   */
  const runHoldingFolder = (sandbox: 'required' | 'off') => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const child = spawnSync(
      'bash',
      [
        '-c',
        // Node marks the lowest inherited descriptors close-on-exec at start, not the others.
        'exec 40<"$0"; exec "$@"',
        host,
        process.execPath,
        '--import',
        'tsx',
        '--conditions=@closedloop/source',
        path.join(here, '__fixtures__', 'run-command.ts'),
      ],
      {
        cwd: path.join(here, '..'),
        env: {
          ...process.env,
          ROOT: ws.root,
          ARGV: JSON.stringify(['node', 'through-fd.cjs']),
          SANDBOX: sandbox,
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.status, child.stderr).toBe(0);
    return JSON.parse(child.stdout) as { stdout: string; stderr: string };
  };

  it.each(hasSandbox ? (['required', 'off'] as const) : (['off'] as const))(
    'never reach a command (sandbox %s): a folder outside stays out of reach',
    async (sandbox) => {
      await ws.write(
        'through-fd.cjs',
        `const fs = require('node:fs');
try { fs.writeFileSync('/proc/self/fd/40/pwned', 'x'); console.log('written'); } catch (error) { console.log(error.code); }
let open = []; for (const fd of fs.readdirSync('/proc/self/fd')) { try { open.push(fs.readlinkSync('/proc/self/fd/' + fd)); } catch {} }
console.log(open.filter((target) => target.includes(${JSON.stringify(path.basename(host))})).length);`,
      );
      const result = runHoldingFolder(sandbox);
      expect(result.stdout, result.stderr).not.toContain('written');
      expect(result.stdout.trim().split('\n').at(-1)).toBe('0');
      expect(await readFile(path.join(host, 'pwned'), 'utf8').catch(() => 'absent')).toBe('absent');
    },
    60_000,
  );
});

describe.runIf(hasSandbox)('files a command made that the runner reads afterwards', () => {
  it('a FIFO or a link to /dev/zero as .git, commondir or tsconfig.json never hangs the runner', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    // The names are built at run time: the policy refuses `.git` as an argument.
    await ws.write(
      'plant.cjs',
      `const { execFileSync } = require('node:child_process');
execFileSync('mkfifo', ['.g' + 'it']);
execFileSync('mkfifo', ['tsconfig.json']);
require('node:fs').symlinkSync('/dev/zero', 'sub.json');
console.log('planted');`,
    );
    const planted = await runner.run(['node', 'plant.cjs'], { timeoutMs: 10_000 });
    expect(planted.stdout).toBe('planted\n');
    await ws.write('hello.cjs', "console.log('hello');\n");
    expect((await runner.run(['node', 'hello.cjs'], { timeoutMs: 10_000 })).stdout).toBe('hello\n');
    // tsc's configuration is read to check where it writes: the check ends (a hang fails the test
    // at its timeout).
    for (const config of ['tsconfig.json', 'sub.json'])
      expect(
        await runner.check(['tsc', '-p', config]).then(
          () => 'checked',
          () => 'refused',
        ),
      ).toMatch(/checked|refused/);
  }, 30_000);
});

describe.runIf(hasSandbox)('a .git pointer a concurrent command plants', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

  it('never mounts another repository of the host for a command that starts while it is there', async () => {
    // The victim: a repository of the user's outside the workspace, with a secret in its history.
    const victim = path.join(host, 'victim');
    execFileSync('git', ['init', '-q', victim]);
    await writeFile(path.join(victim, 'secret.txt'), 'TOPSECRET\n');
    git(victim, 'add', '.');
    git(victim, 'commit', '-q', '-m', 'secret');
    // One command points the workspace's `.git` at it and stays alive (its pointer is moved aside
    // only when it ends); another starts meanwhile (steps run concurrently).
    await ws.write(
      'point.cjs',
      `require('node:fs').writeFileSync('.git', ${JSON.stringify(`gitdir: ${path.join(victim, '.git')}\n`)});
setTimeout(() => {}, 4000);`,
    );
    await ws.write(
      'reach.cjs',
      `const fs = require('node:fs');
try { fs.writeFileSync(${JSON.stringify(path.join(victim, '.git', 'refs', 'heads', 'pwned'))}, 'x'); console.log('wrote'); } catch (e) { console.log(e.code); }
try { console.log(fs.readdirSync(${JSON.stringify(path.join(victim, '.git'))}).join(',')); } catch (e) { console.log(e.code); }`,
    );
    const runner = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const planter = runner.run(['node', 'point.cjs']);
    const deadline = Date.now() + 10_000;
    while (!existsSync(path.join(ws.root, '.git')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(path.join(ws.root, '.git'))).toBe(true);
    const reached = await runner.run(['node', 'reach.cjs']);
    const shown = await runner.run(['git', 'show', 'HEAD:secret.txt']);
    await planter;
    expect(reached.stdout).not.toContain('wrote');
    expect(reached.stdout).not.toContain('HEAD');
    expect(shown.stdout).not.toContain('TOPSECRET');
    expect(readdirSync(path.join(victim, '.git', 'refs', 'heads'))).not.toContain('pwned');
  });

  it('still mounts the git directories of a linked worktree and of an absorbed submodule', async () => {
    // Honest twins: the workspace is a `git worktree add` checkout, or a submodule whose git
    // directory lives in the superproject's `.git/modules` — both outside the workspace.
    const main = path.join(host, 'main');
    execFileSync('git', ['init', '-q', main]);
    await writeFile(path.join(main, 'a.txt'), 'a\n');
    git(main, 'add', '.');
    git(main, 'commit', '-q', '-m', 'a');
    const worktree = path.join(host, 'linked');
    git(main, 'worktree', 'add', '-q', worktree);
    const library = path.join(host, 'library');
    execFileSync('git', ['init', '-q', library]);
    await writeFile(path.join(library, 'lib.txt'), 'lib\n');
    git(library, 'add', '.');
    git(library, 'commit', '-q', '-m', 'lib');
    git(main, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib');
    for (const [root, file] of [
      [worktree, 'a.txt'],
      [path.join(main, 'lib'), 'lib.txt'],
    ] as const) {
      await writeFile(path.join(root, file), 'changed\n');
      const runner = createCommandRunner({ root, sandbox: 'required' });
      const status = await runner.run(['git', 'status', '--porcelain']);
      expect(
        status.stderr
          .split('\n')
          .filter((l) => !l.startsWith('hint:'))
          .join('\n')
          .trim(),
      ).toBe('');
      expect(status.exitCode).toBe(0);
      expect(status.stdout).toContain(file);
      expect((await runner.run(['git', 'commit', '-qam', 'change'])).exitCode).toBe(0);
    }
  });
});
