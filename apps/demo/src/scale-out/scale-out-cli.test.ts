import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type RedisServer, startRedisServer } from '@closedloop/bullmq/testing';
import type { RunEvent, RunResult } from '@closedloop/cortex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli';

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..');
const bin = join(import.meta.dirname, '..', 'bin.ts');

let redis: RedisServer;
const children: ChildProcess[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await redis.stop();
});

/** `closedloop <args>` in its own process; resolves once it printed `ready`. */
function start(args: string[], ready: RegExp) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@closedloop/source', bin, ...args],
    {
      cwd: repoRoot,
      env: { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (ready.test(output)) resolve();
    });
    child.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    void exited.then((code) => reject(new Error(`exited ${code} before ready:\n${output}`)));
  });
  return { child, started, exited, output: () => output };
}

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  return {
    io: { stdout: stdout as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream },
    out: () => out,
    err: () => err,
  };
}

describe('closedloop coordinator / worker / run --store (scale-out on Redis)', () => {
  it('runs the offline scenario through a coordinator process and a worker process, and reports it from Redis', async () => {
    const store = redis.url;
    const coordinator = start(['coordinator', '--store', store], /driving runs/);
    const worker = start(['worker', '--store', store, '--concurrency', '2'], /running steps/);
    await Promise.all([coordinator.started, worker.started]);

    process.env.CLOSEDLOOP_DEMO_LATENCY_MS = '0';
    const workspace = join(mkdtempSync(join(tmpdir(), 'closedloop-scale-out-cli-')), 'ws');
    const run = capture();
    const code = await main(['run', '--store', store, '--workspace', workspace, '--json'], run.io);
    const result = JSON.parse(run.out()) as RunResult;
    expect(code).toBe(0);
    expect(result.stopReason).toBe('completed');
    expect(result.report.replans).toHaveLength(2);
    expect(run.err()).toBe('');

    const report = capture();
    expect(await main(['report', result.runId, '--store', store, '--json'], report.io)).toBe(0);
    const events = JSON.parse(report.out()) as RunEvent[];
    expect(events.at(-1)?.type).toBe('run-finished');
    // Steps ran in the worker process, the run in the coordinator process.
    expect(worker.output()).toMatch(/completed scaffold of/);
    expect(coordinator.output()).toMatch(new RegExp(`${result.runId} stopped: completed`));

    coordinator.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    expect(await coordinator.exited).toBe(0);
    expect(await worker.exited).toBe(0);
  }, 90_000);

  it('refuses a worker without --store and a --store that is not a Redis URL (exit 2)', async () => {
    const missing = capture();
    expect(await main(['worker'], missing.io)).toBe(2);
    expect(missing.err()).toMatch(/needs --store redis:\/\//);
    const wrong = capture();
    expect(await main(['report', 'run-1', '--store', '/tmp/runs'], wrong.io)).toBe(2);
    expect(wrong.err()).toMatch(/--store must be a Redis URL/);
    const down = capture();
    expect(await main(['report', 'run-1', '--store', 'redis://127.0.0.1:1'], down.io)).toBe(2);
    expect(down.err()).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1 does not answer/);
  });

  it('warns when no coordinator or worker is connected', async () => {
    const lonely = await startRedisServer();
    try {
      const run = capture();
      const pending = main(['run', '--store', lonely.url, '--json'], run.io);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(run.err()).toMatch(/No coordinator is connected/);
      expect(run.err()).toMatch(/No worker is connected/);
      process.emit('SIGINT');
      expect(await pending).toBe(1);
      expect(run.err()).toMatch(/cancelled before a coordinator started it/);
    } finally {
      await lonely.stop();
    }
  }, 30_000);
});
