import { execFile, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry, type ToolRegistry } from './create-tool-registry';
import type { ToolContext } from './tool';
import { workspaceTools } from './workspace-tools';

// The file tools make their system calls synchronously (cheap metadata calls): these attacks check
// that nothing a hostile workspace holds turns that into a stalled event loop or an unbounded read.

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });

let ws: TempWorkspace;
let registry: ToolRegistry;

beforeEach(async () => {
  ws = await createTempWorkspace({ files: { 'a.txt': 'hello\n' } });
  registry = createToolRegistry(
    workspaceTools({ root: ws.root, maxReadBytes: 1000, maxEditBytes: 64 * 1024 }),
    { redactor: false },
  );
});
afterEach(async () => {
  await ws.cleanup();
});

/** How many turns the event loop took (setImmediate callbacks that ran) while `run` was pending. */
async function turnsDuring<T>(run: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await run(), turns };
  } finally {
    running = false;
  }
}

describe('bounded reads', () => {
  it('read_file never returns more than the read limit of a file growing while it is read', async () => {
    const file = path.join(ws.root, 'grow.txt');
    writeFileSync(file, '');
    // Emptied, then grown past the limit, again and again: a stat sees it small, the read big.
    const writer = spawn(
      'sh',
      ['-c', `while :; do : > "$1"; head -c 200000 /dev/zero | tr '\\0' a >> "$1"; done`, 'sh', file],
      { stdio: 'ignore' },
    );
    const lengths: number[] = [];
    try {
      const until = Date.now() + 3_000;
      while (Date.now() < until) {
        const outcome = await registry.execute('read_file', { path: 'grow.txt' }, context());
        if (outcome.status === 'success') lengths.push(outcome.text.length);
        else expect(outcome.text).toContain('read limit');
      }
    } finally {
      writer.kill('SIGKILL');
    }
    expect(lengths.length).toBeGreaterThan(0);
    expect(lengths.filter((length) => length > 1000)).toEqual([]);
  });

  it('edit_file refuses a file over its limit without reading it (a sparse 400 MB file)', async () => {
    const fd = openSync(path.join(ws.root, 'sparse.txt'), 'w');
    ftruncateSync(fd, 400 * 1024 * 1024);
    closeSync(fd);
    const outcome = await registry.execute(
      'edit_file',
      { path: 'sparse.txt', old_string: 'a', new_string: 'b' },
      context(),
    );
    expect(outcome.status).toBe('error');
    expect(outcome.text).toContain('over the 65536-byte edit limit');
  });

  it('edit_file still edits a file under its limit', async () => {
    writeFileSync(path.join(ws.root, 'mid.txt'), `${'x'.repeat(60_000)}\nneedle\n`);
    const outcome = await registry.execute(
      'edit_file',
      { path: 'mid.txt', old_string: 'needle', new_string: 'thread' },
      context(),
    );
    expect(outcome).toMatchObject({ status: 'success' });
  });
});

describe('large folders do not hold the event loop', () => {
  it('delete_file of a tree of 10 000 files lets the event loop run while it deletes', async () => {
    for (let d = 0; d < 50; d++) {
      mkdirSync(path.join(ws.root, 'tree', `d${d}`), { recursive: true });
      for (let i = 0; i < 200; i++) writeFileSync(path.join(ws.root, 'tree', `d${d}`, `f${i}`), '');
    }
    // Seen from the event loop, a deletion that never yields is all or nothing.
    let sawPartial = false;
    let running = true;
    const poll = () => {
      if (!running) return;
      let left = 0;
      for (let d = 0; d < 50; d++) if (existsSync(path.join(ws.root, 'tree', `d${d}`))) left++;
      if (left > 0 && left < 50) sawPartial = true;
      setImmediate(poll);
    };
    setImmediate(poll);
    const outcome = await registry.execute('delete_file', { path: 'tree', recursive: true }, context());
    running = false;
    expect(outcome).toMatchObject({ status: 'success' });
    expect(existsSync(path.join(ws.root, 'tree'))).toBe(false);
    expect(sawPartial).toBe(true);
  });

  it('list_dir of a folder of 20 000 names lets the event loop run while it reads', async () => {
    const many = path.join(ws.root, 'many');
    mkdirSync(many);
    for (let i = 0; i < 20_000; i++) writeFileSync(path.join(many, `n${i}`), '');
    const { result, turns } = await turnsDuring(() =>
      registry.execute('list_dir', { path: 'many' }, context()),
    );
    expect(result).toMatchObject({ status: 'success' });
    expect(result.text).toContain('"truncated":true');
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(readdirSync(many)).toHaveLength(20_000);
  });
});

describe('deep trees', () => {
  it('a path 2000 folders deep is written, rewritten, edited and read', async () => {
    // Seconds on the event loop before (glibc's realpath, git markers probed by path per folder,
    // an error thrown per folder made); how long it holds the loop now is a benchmark's figure.
    const deep = `${'d/'.repeat(2000)}f.txt`;
    for (const [tool, args] of [
      ['write_file', { path: deep, content: 'one' }],
      ['write_file', { path: deep, content: 'two' }],
      ['edit_file', { path: deep, old_string: 'two', new_string: 'three' }],
    ] as const) {
      expect((await registry.execute(tool, args, context())).status, tool).toBe('success');
    }
    expect((await registry.execute('read_file', { path: deep }, context())).text).toBe('three');
  });

  // Linear against quadratic work is told by a ratio of two depths measured in the same run, in
  // CPU time (the machine may be loaded: a fixed time limit, or wall time, would measure the load).
  it('list_dir walks nested folders in linear time (each opened from its parent, not the root)', async () => {
    const nest = (name: string, depth: number) =>
      promisify(execFile)('sh', [
        '-c',
        'cd "$1" && mkdir "$2" && cd "$2" && i=1; while [ $i -lt "$3" ]; do mkdir d && cd d; i=$((i+1)); done; touch f',
        'sh',
        ws.root,
        name,
        String(depth),
      ]);
    await nest('shallow', 100);
    await nest('deep', 900);
    // CPU time, not wall time: on a loaded machine the walk waits for a core, which is not its work.
    const walk = async (folder: string) => {
      const started = process.cpuUsage();
      const outcome = await registry.execute('list_dir', { path: folder, recursive: true }, context());
      const used = process.cpuUsage(started);
      expect(outcome).toMatchObject({ status: 'success' });
      expect(outcome.text).toContain('"truncated":false');
      return (used.user + used.system) / 1000;
    };
    // Interleaved, so a change of load meets both depths; medians of five.
    const shallow: number[] = [];
    const deep: number[] = [];
    for (let round = 0; round < 5; round++) {
      shallow.push(await walk('shallow'));
      deep.push(await walk('deep'));
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[2]!;
    // 9× deeper: 14–20× the CPU time here, also beside six busy processes (each entry's path is as
    // long as its depth); 72–74× when each folder was walked down to from the root.
    expect(median(deep)).toBeLessThan(40 * Math.max(median(shallow), 1));
  });
});

describe('sockets and files used as folders', () => {
  it('refuses a unix socket as a file with a clear, typed error', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(ws.root, 'sock'), resolve));
    try {
      for (const [tool, args] of [
        ['read_file', { path: 'sock' }],
        ['write_file', { path: 'sock', content: 'x' }],
        ['edit_file', { path: 'sock', old_string: 'a', new_string: 'b' }],
      ] as const) {
        const outcome = await registry.execute(tool, args, context());
        expect(outcome, tool).toMatchObject({ status: 'error', code: 'path-escape' });
        expect(outcome.text, tool).toContain('not a regular file');
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('says a parent is a file, without naming descriptor paths', async () => {
    for (const [tool, args] of [
      ['read_file', { path: 'a.txt/b' }],
      ['edit_file', { path: 'a.txt/b', old_string: 'a', new_string: 'b' }],
      ['delete_file', { path: 'a.txt/b' }],
    ] as const) {
      const outcome = await registry.execute(tool, args, context());
      expect(outcome.status, tool).toBe('error');
      expect(outcome.text, tool).toContain('A parent of a.txt/b is a file, not a folder');
      expect(outcome.text, tool).not.toContain('/proc/self/fd');
    }
  });
});

describe('descriptors', () => {
  it('closes every descriptor on every refusal and failure', async () => {
    const root = ws.root;
    await promisify(execFile)('mkfifo', [path.join(root, 'pipe')]);
    mkdirSync(path.join(root, 'dir', 'sub'), { recursive: true });
    writeFileSync(path.join(root, 'big.txt'), 'a'.repeat(5000));
    writeFileSync(path.join(root, 'bin'), Buffer.from([0, 1, 2]));
    writeFileSync(path.join(root, 'dup.txt'), 'x x');
    symlinkSync('/etc/passwd', path.join(root, 'escape'));
    symlinkSync('/proc/self/root', path.join(root, 'proc-root'));
    symlinkSync('loop-b', path.join(root, 'loop-a'));
    symlinkSync('loop-a', path.join(root, 'loop-b'));
    await promisify(execFile)('git', ['init', '-q', path.join(root, 'repo')]);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'sock'), resolve));
    const calls: [string, Record<string, unknown>][] = [];
    for (const target of [
      'missing',
      'dir',
      'pipe',
      'sock',
      'big.txt',
      'bin',
      'escape',
      'proc-root/etc/passwd',
      'loop-a',
      'a.txt/b',
    ])
      calls.push(['read_file', { path: target }]);
    for (const target of ['missing', 'dup.txt', 'dir', 'pipe', 'sock', 'a.txt/b', 'repo/.git/config'])
      calls.push(['edit_file', { path: target, old_string: 'x', new_string: 'y' }]);
    for (const target of [
      'dir',
      'pipe',
      'sock',
      'a.txt/b',
      'a.txt/b/c',
      'repo/.git/config',
      'escape',
      'x'.repeat(300),
    ])
      calls.push(['write_file', { path: target, content: 'x' }]);
    for (const target of ['a.txt', 'missing', 'pipe', 'escape', 'a.txt/b'])
      calls.push(['list_dir', { path: target }]);
    for (const target of ['missing', 'dir', 'repo/.git', 'a.txt/b'])
      calls.push(['delete_file', { path: target }]);
    const open = () => readdirSync('/proc/self/fd').length;
    try {
      for (const [tool, args] of calls) {
        const outcome = await registry.execute(tool, args, context());
        expect(outcome.status, `${tool} ${JSON.stringify(args)}`).toBe('error');
      }
      const before = open();
      for (let round = 0; round < 20; round++)
        for (const [tool, args] of calls) await registry.execute(tool, args, context());
      expect(open()).toBe(before);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
