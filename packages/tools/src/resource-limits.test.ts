import { access, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countRunning, forkerScript } from './__fixtures__/limited-runner';
import { createCommandRunner } from './create-command-runner';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createLimitGroup, defaultResourceLimits, resolveResourceLimits } from './resource-limits';
import { probeSandbox } from './sandbox';
import { ToolError } from './tool-error';

const probe = await probeSandbox();
const hasSandbox = probe.available;
/** bubblewrap 0.8 and later bound a tmpfs (`--size`). */
const tmpfsSized = probe.available && probe.tmpfsSize === true;
/** A group a dead runner left (no pid is above the kernel's pid_max of 2^22). */
const staleGroup = `/sys/fs/cgroup/pids/closedloop-${2 ** 22 + 1}-stale`;
const madeStale = await mkdir(staleGroup).then(
  () => true,
  () => false,
);
/** Whether this machine lets the runner make a cgroup (root, or a delegated one). */
const hasGroup = await (async () => {
  const group = await createLimitGroup(defaultResourceLimits);
  await group?.release();
  return group !== undefined;
})();
/**
 * Where processes are bounded: inside the sandbox always (cgroup, or RLIMIT_NPROC in its user
 * namespace); unsandboxed only with a cgroup (RLIMIT_NPROC there would count all of the user's).
 */
const processModes = [
  ...(hasSandbox ? (['required'] as const) : []),
  ...(hasGroup ? (['off'] as const) : []),
];
const modes = hasSandbox ? (['off', 'required'] as const) : (['off'] as const);

/** The classic: every process forks forever. */
const forkBomb = `
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
`;

/** Named for this test process, so only its own bomb is counted. */
const bombFile = `bomb-${process.pid}-${Date.now()}.py`;

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({
    files: {
      'forker.py': forkerScript(300),
      [bombFile]: forkBomb,
      'hog.cjs': [
        "console.log('started');",
        'const kept = [];',
        'for (let i = 0; i < 40; i++) kept.push(Buffer.alloc(32 * 1024 * 1024, 1));',
        "console.log('allocated', kept.length * 32, 'MiB');",
      ].join('\n'),
      'fill-tmp.cjs': [
        "const fs = require('node:fs');",
        'const chunk = Buffer.alloc(1024 * 1024, 1);',
        "for (const file of ['/tmp/a', '/var/tmp/b', '/dev/shm/c', '/dev/d']) {",
        '  let written = 0;',
        '  try { for (; written < 200; written++) fs.appendFileSync(file, chunk); console.log(file, "wrote", written); }',
        '  catch (error) { console.log(file, "stopped", error.code, written); }',
        '}',
      ].join('\n'),
      // Many files, none near maxFileBytes: 512 MiB in 4 MiB files.
      'fill-disk.cjs': [
        "const fs = require('node:fs');",
        'const chunk = Buffer.alloc(1024 * 1024, 1);',
        'for (let file = 0; file < 128; file++) {',
        "  const fd = fs.openSync('fill-' + file + '.bin', 'w');",
        '  for (let i = 0; i < 4; i++) fs.writeSync(fd, chunk);',
        '  fs.closeSync(fd);',
        // A breath between files: the watch (every 20 ms) keeps up on a loaded machine too.
        '  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);',
        '}',
        "console.log('wrote all');",
      ].join('\n'),
      'big-file.cjs':
        "require('node:fs').writeFileSync('big.bin', Buffer.alloc(4 * 1024 * 1024));\nconsole.log('wrote');\n",
      'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node check.cjs' } }),
      'check.cjs':
        "const { Worker } = require('node:worker_threads');\nnew Worker('process.exit(0)', { eval: true }).on('exit', () => console.log('tests pass'));\n",
    },
  });
});
afterEach(async () => {
  await ws.cleanup();
});

async function leftoverGroups(): Promise<string[]> {
  const names = await readdir('/sys/fs/cgroup/pids').catch(() => [] as string[]);
  return names.filter((name) => name.startsWith(`closedloop-${process.pid}-`));
}

describe.each(processModes)('process limit (sandbox %s)', (sandbox) => {
  it('refuses new processes past maxProcesses', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox, limits: { maxProcesses: 32 } });
    const result = await runner.run(['python3', 'forker.py'], { timeoutMs: 20_000 });
    expect(result.stdout).toMatch(/^refused \d+ 11\n$/);
    expect(Number(result.stdout.split(' ')[1])).toBeLessThan(32);
    expect(await leftoverGroups()).toEqual([]);
  });

  it('bounds a real fork bomb, which ends at the timeout with nothing left behind', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox, limits: { maxProcesses: 64 } });
    const started = Date.now();
    const running = runner.run(['python3', bombFile], { timeoutMs: 2_000 });
    // Probed until the run ends: on a loaded machine the bomb may start late, so no fixed window.
    let ended = false;
    const end = () => {
      ended = true;
    };
    running.then(end, end);
    let most = 0;
    while (!ended) {
      most = Math.max(most, await countRunning(bombFile));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const result = await running;
    expect(result.timedOut).toBe(true);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(64);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await leftoverGroups()).toEqual([]);
  });
});

describe.each(modes)('memory and file limits (sandbox %s)', (sandbox) => {
  it('stops a process that allocates past maxMemoryBytes', async () => {
    const runner = createCommandRunner({
      root: ws.root,
      sandbox,
      limits: { maxMemoryBytes: 768 * 1024 ** 2 },
    });
    const result = await runner.run(['node', 'hog.cjs'], { timeoutMs: 30_000 });
    // It ran (a limit that keeps the runtime from starting proves nothing) and was stopped.
    expect(result.stdout).toContain('started');
    expect(result.stdout).not.toContain('allocated');
    expect(result.exitCode).not.toBe(0);
  });

  it('kills a command that fills the disk with many small files past maxDiskBytes, and says so', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox, limits: { maxDiskBytes: 32 * 1024 ** 2 } });
    const result = await runner.run(['node', 'fill-disk.cjs'], { timeoutMs: 60_000 });
    expect(result.stdout).not.toContain('wrote all');
    expect(result.signal).toBe('SIGKILL');
    expect(result.limitExceeded).toMatch(/disk space/);
    expect(result.stderr).toMatch(
      /closedloop: killed the command: it took \d+ MiB of disk space .*\(maxDiskBytes/,
    );
    // Stopped near the limit (it is watched every few milliseconds), far from the 512 MiB asked.
    const filled = async () => (await readdir(ws.root)).filter((name) => /^fill-\d+\.bin$/.test(name));
    const names = await filled();
    const written = (await Promise.all(names.map((name) => stat(path.join(ws.root, name))))).reduce(
      (sum, entry) => sum + entry.size,
      0,
    );
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(256 * 1024 ** 2);
    // Nothing of it keeps writing once the result is back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await filled()).length).toBe(names.length);
  });

  it('lets a command write what fits in maxDiskBytes', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox, limits: { maxDiskBytes: 64 * 1024 ** 2 } });
    const result = await runner.run(['node', 'big-file.cjs'], { timeoutMs: 30_000 });
    expect(result.stdout).toContain('wrote');
    expect(result.exitCode).toBe(0);
    expect(result.limitExceeded).toBeUndefined();
  });

  it('refuses a file larger than maxFileBytes', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox, limits: { maxFileBytes: 1024 * 1024 } });
    const result = await runner.run(['node', 'big-file.cjs'], { timeoutMs: 30_000 });
    expect(result.stdout).not.toContain('wrote');
    expect(result.exitCode).not.toBe(0);
  });

  it('runs node and npm test normally under the defaults', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox });
    const npm = await runner.run(['npm', 'test'], { timeoutMs: 60_000 });
    expect(npm.stdout).toContain('tests pass');
    expect(npm.exitCode).toBe(0);
    const node = await runner.run(['node', 'hog.cjs'], { timeoutMs: 60_000 });
    expect(node.stdout).toContain('allocated 1280 MiB');
  });
});

describe.runIf(tmpfsSized)('the sandbox tmpfs mounts', () => {
  it('bound /tmp, /var/tmp and /dev/shm (memory) to a quarter of maxMemoryBytes; the rest of /dev is read-only', async () => {
    const runner = createCommandRunner({
      root: ws.root,
      sandbox: 'required',
      limits: { maxMemoryBytes: 512 * 1024 ** 2 },
    });
    const result = await runner.run(['node', 'fill-tmp.cjs'], {
      timeoutMs: 30_000,
    });
    expect(result.stdout).toMatch(
      /^\/tmp\/a stopped ENOSPC 12\d\n\/var\/tmp\/b stopped ENOSPC 12\d\n\/dev\/shm\/c stopped ENOSPC 12\d\n\/dev\/d stopped EROFS 0\n$/,
    );
  });
});

describe.runIf(madeStale)('cgroups of runners that died', () => {
  it('are removed when the runner first looks for its hierarchies', async () => {
    await expect(access(staleGroup)).rejects.toThrow();
  });
});

describe('limit settings', () => {
  it('refuses a limit that is not a positive integer', () => {
    const error = (() => {
      try {
        resolveResourceLimits({ maxProcesses: 0 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ToolError.isInstance(error) && error.code).toBe('invalid-definition');
    expect(resolveResourceLimits(false)).toBeUndefined();
    expect(resolveResourceLimits({ maxCpuSeconds: 5 })).toMatchObject({
      ...defaultResourceLimits,
      maxCpuSeconds: 5,
    });
  });
});
