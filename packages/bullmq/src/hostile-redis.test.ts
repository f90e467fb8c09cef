import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from '@closedloop/cortex';
import { afterAll, describe, expect, it } from 'vitest';
import { type FailoverWorld, startInProcessRun } from './__fixtures__/failover-world';
import { finalState, uninterruptedState } from './__fixtures__/final-state';
import { countEffects } from './__fixtures__/scenario';
import { closeRedis, connectRedis } from './redis-connection';
import { type RedisServer, startRedisServer } from './testing';

// Each test starts (and kills) its own redis-server: closing what ran on a killed one may fail.
const closers: FailoverWorld['closers'] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
});

const lockMs = 1500;
const settings = { steps: 6, shape: 'chain', turnMs: 150 };

/** Kills `redis` (SIGKILL) and starts a new server on its port (on the same folder when persisted). */
async function restart(redis: RedisServer, persistDir: string | undefined): Promise<RedisServer> {
  redis.process.kill('SIGKILL');
  await new Promise((resolve) => redis.process.once('exit', resolve));
  return startRedisServer({ port: redis.port, ...(persistDir ? { persistDir } : {}) });
}

async function scenario(persistDir: string | undefined) {
  let redis = await startRedisServer(persistDir ? { persistDir } : {});
  closers.push(() => redis.stop());
  const { runs, runId, runSpec } = await startInProcessRun(
    { closers },
    { url: redis.url, lockMs, settings, workspacePrefix: 'closedloop-hostile-' },
  );
  const controller = new AbortController();
  for await (const { event } of runs.store.tail(runId, { signal: controller.signal, blockMs: 200 })) {
    if (event.type === 'step-started' && event.stepId === 'step-3') break;
  }
  controller.abort();
  // The client waits for the result across the restart.
  const waited = runs.result(runId);
  waited.catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 100));
  redis = await restart(redis, persistDir);
  const outcome = await Promise.race([
    waited.then(
      (result: RunResult) => ({ result }),
      (error: unknown) => ({ error: String(error), code: (error as { code?: string }).code }),
    ),
    new Promise<{ hang: true }>((resolve) => setTimeout(() => resolve({ hang: true }), 45_000)),
  ]);
  return { outcome, workspace: runSpec.workspace! };
}

describe('Redis itself restarted mid-run (SIGKILL, then a new server on the same port)', () => {
  it('with persistence (AOF, fsync always): the run completes as if nothing happened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'closedloop-aof-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const { outcome, workspace } = await scenario(dir);
    expect('result' in outcome).toBe(true);
    const { result } = outcome as { result: RunResult };
    expect(finalState(result, workspace)).toEqual({
      state: await uninterruptedState(settings),
      duplicated: 0,
    });
  }, 90_000);

  it('without persistence (every key lost): the run stops with a typed reason, it does not hang or complete falsely', async () => {
    const { outcome, workspace } = await scenario(undefined);
    expect(outcome).toMatchObject({ code: 'run-lost' });
    // Nothing ran twice: the step cut off by the restart was fenced, no step after it started.
    expect(Math.max(...countEffects(workspace, settings.steps).values())).toBeLessThanOrEqual(1);
  }, 90_000);
});

describe("a worker's Redis connections killed mid-step (CLIENT KILL, again and again)", () => {
  it('the run completes as if nothing happened, or stops with a typed reason: never a duplicated effect', async () => {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    const { prefix, runs, runId, runSpec } = await startInProcessRun(
      { closers },
      { url: redis.url, lockMs, settings, workspacePrefix: 'closedloop-hostile-' },
    );
    const admin = connectRedis(redis.url, 'test-admin');
    closers.push(() => closeRedis(admin));
    const waited = runs.result(runId).then(
      (result: RunResult) => ({ result }),
      (error: unknown) => ({ error: String(error), code: (error as { code?: string }).code }),
    );
    let kills = 0;
    let stop = false;
    const killer = (async () => {
      while (!stop) {
        const list = (await admin.client('LIST')) as string;
        for (const line of list.split('\n')) {
          const id = /id=(\d+)/.exec(line)?.[1];
          if (id !== undefined && line.includes(`name=${prefix}:worker`)) {
            await admin.client('KILL', 'ID', id).catch(() => 0);
            kills++;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 40));
      }
    })();
    const outcome = await Promise.race([
      waited,
      new Promise<{ hang: true }>((resolve) => setTimeout(() => resolve({ hang: true }), 60_000)),
    ]);
    stop = true;
    await killer;
    expect(kills).toBeGreaterThan(0);
    expect(Math.max(...countEffects(runSpec.workspace!, settings.steps).values())).toBeLessThanOrEqual(1);
    expect('hang' in outcome).toBe(false);
    if ('result' in outcome && outcome.result.stopReason === 'completed') {
      expect(finalState(outcome.result, runSpec.workspace!)).toEqual({
        state: await uninterruptedState(settings),
        duplicated: 0,
      });
    }
  }, 90_000);
});
