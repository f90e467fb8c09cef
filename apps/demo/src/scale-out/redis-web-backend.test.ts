import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoordinator, createRunClient, createStepWorker } from '@closedloop/bullmq';
import { type RedisServer, startRedisServer } from '@closedloop/bullmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunOptions } from '../cli-options';
import { isPrimeTask } from '../scenario/is-prime-scenario';
import { readSse } from '../server/__fixtures__/read-sse';
import { startWebServer } from '../server/web-server';
import { createRedisWebBackend } from './redis-web-backend';
import { scaleOutCortex, scaleOutSpec } from './scale-out-cortex';

let redis: RedisServer;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await redis.stop();
});

const options: RunOptions = {
  provider: 'scripted',
  model: undefined,
  baseURL: undefined,
  mode: 'auto',
  workspace: undefined,
  concurrency: 4,
  maxIterations: 3,
  budgetTokens: undefined,
  json: false,
  journal: '.closedloop/runs',
};

describe('closedloop serve --store redis://… (watching runs from any machine)', () => {
  it('lists runs other processes drive and streams one live over SSE until it finishes', async () => {
    const env = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: '40' };
    const coordinator = createCoordinator({ connection: redis.url, cortex: scaleOutCortex(env) });
    const worker = createStepWorker({ connection: redis.url, cortex: scaleOutCortex(env), concurrency: 2 });
    const client = createRunClient({ connection: redis.url });
    await Promise.all([coordinator.ready(), worker.ready()]);
    const backend = createRedisWebBackend({
      store: redis.url,
      run: options,
      io: { stdout: { write: () => true }, stderr: { write: () => true } },
    });
    const server = await startWebServer({ journalDir: '/nonexistent', ...backend });
    closers.push(async () => {
      await server.close();
      await backend.close();
      await client.close();
      await worker.close();
      await coordinator.close();
    });

    // Another machine submits the run; this server never started it.
    const workspace = mkdtempSync(join(tmpdir(), 'closedloop-serve-store-'));
    const { runId } = await client.submit(scaleOutSpec(options, { task: isPrimeTask, workspace }));
    const stream = readSse(`${server.url}api/runs/${runId}/events`, { timeoutMs: 60_000 });
    const result = await client.result(runId);
    const { messages } = await stream;
    const events = messages
      .filter((message) => message.event === 'message')
      .map((message) => JSON.parse(message.data));
    expect(events[0].type).toBe('run-started');
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', stopReason: result.stopReason });
    expect(messages.at(-1)?.event).toBe('end');
    expect(events.map((_, index) => index)).toEqual(
      messages.filter((m) => m.id !== undefined).map((m) => Number(m.id)),
    );

    const list = (await (await fetch(`${server.url}api/runs`)).json()) as { runs: { runId: string }[] };
    expect(list.runs.map((run) => run.runId)).toContain(runId);
  }, 90_000);
});
