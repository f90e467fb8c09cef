import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RedisServer, startRedisServer } from '@closedloop/bullmq/testing';
import type { RunEvent, RunResult } from '@closedloop/cortex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../cli/cli-context';
import { main } from '../cli/main';

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

const offlineEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: '0', NO_COLOR: '1' };
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  return env;
};

/** `closedloop <args>` in its own process; `started` resolves once its output matches `ready`. */
function start(args: string[], ready: RegExp) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@closedloop/source', bin, ...args],
    {
      cwd: repoRoot,
      env: offlineEnv(),
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
  let out = '';
  let err = '';
  const io: Partial<CliIo> = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: offlineEnv(),
  };
  return { io, out: () => out, err: () => err };
}

describe('closedloop coordinator / worker / demo --store (scale-out on Redis)', () => {
  it('runs the offline scenario through a coordinator process and a worker process, and reports it from Redis', async () => {
    const store = redis.url;
    const coordinator = start(['coordinator', '--store', store], /driving runs/);
    const worker = start(['worker', '--store', store, '--concurrency', '2', '--warm-up'], /running steps/);
    await Promise.all([coordinator.started, worker.started]);
    // The warm-up (the offline demo on a scratch workspace, given no Redis) ran before any step.
    expect(worker.output()).toMatch(/warmed up \(offline demo completed in \d+ ms\)\n[\s\S]*running steps/);

    const workspace = join(mkdtempSync(join(tmpdir(), 'closedloop-scale-out-cli-')), 'ws');
    const run = capture();
    const code = await main(['demo', '--store', store, '--workspace', workspace, '--json'], run.io);
    expect(run.err()).toBe('');
    const result = JSON.parse(run.out()) as RunResult;
    expect(code).toBe(0);
    expect(result.stopReason).toBe('completed');
    expect(result.report.replans).toHaveLength(2);

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

  it('refuses a worker without --store, a --store that is not a Redis URL, and a Redis that does not answer (exit 2)', async () => {
    const missing = capture();
    expect(await main(['worker'], missing.io)).toBe(2);
    expect(missing.err()).toMatch(/--store <redis-url>/);
    const wrong = capture();
    expect(await main(['report', 'run-1', '--store', '/tmp/runs'], wrong.io)).toBe(2);
    expect(wrong.err()).toMatch(/--store must be a Redis URL/);
    const down = capture();
    expect(await main(['report', 'run-1', '--store', 'redis://127.0.0.1:1'], down.io)).toBe(2);
    expect(down.err()).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1 does not answer/);
  });

  it('warns when no coordinator or worker is connected; Ctrl-C cancels the queued run', async () => {
    const lonely = await startRedisServer();
    try {
      const run = capture();
      const pending = main(['demo', '--store', lonely.url, '--json'], run.io);
      for (let waited = 0; !/No worker is connected/.test(run.err()) && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(run.err()).toMatch(/No coordinator is connected/);
      expect(run.err()).toMatch(/No worker is connected/);
      process.emit('SIGINT');
      expect(await pending).toBe(1);
      expect(run.err()).toMatch(
        /error: Run "[^"]+" was cancelled before a coordinator started it\. \(ScaleOutError run-cancelled\)/,
      );
      expect(run.err()).not.toMatch(/crashed/);
    } finally {
      await lonely.stop();
    }
  }, 30_000);
});
