import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoordinator, createRunClient, createStepWorker } from '@closedloop/bullmq';
import { type RedisServer, startRedisServer } from '@closedloop/bullmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrimeTask } from '../scenario/is-prime-scenario';
import { readSse } from '../server/__fixtures__/read-sse';
import { startWebServer } from '../server/web-server';
import { scaleOutCortex, scaleOutRunSpec } from './scale-out-cortex';
import { createScaleOutRunner } from './scale-out-runner';

let redis: RedisServer;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await redis.stop();
});

describe('closedloop serve --store redis://… (watching runs from any machine)', () => {
  it('lists runs other processes drive and streams one live over SSE until it finishes', async () => {
    const env = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: '40' };
    const coordinator = createCoordinator({ connection: redis.url, cortex: scaleOutCortex(env) });
    const worker = createStepWorker({ connection: redis.url, cortex: scaleOutCortex(env), concurrency: 2 });
    const client = createRunClient({ connection: redis.url });
    await Promise.all([coordinator.ready(), worker.ready()]);
    const runner = createScaleOutRunner({ store: redis.url });
    const server = await startWebServer({ journalDir: runner.journal, ...runner });
    closers.push(async () => {
      await server.close();
      await runner.close();
      await client.close();
      await worker.close();
      await coordinator.close();
    });

    // Another machine queues the run; this server never started it.
    const workspace = mkdtempSync(join(tmpdir(), 'closedloop-serve-store-'));
    const { runId } = await client.submit(
      scaleOutRunSpec({
        task: isPrimeTask,
        workspace,
        settings: { demo: true, mode: 'auto', concurrency: 4, maxIterations: 3 },
      }),
    );
    for (let waited = 0; (await runner.readRun(runId)) === undefined && waited < 20_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stream = readSse(`${server.url}api/runs/${runId}/events`, { timeoutMs: 60_000 });
    const result = await client.result(runId);
    const { messages } = await stream;
    const events = messages
      .filter((message) => message.id !== undefined)
      .map((message) => JSON.parse(message.data) as { type: string; stopReason?: string });
    expect(events[0]?.type).toBe('run-started');
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', stopReason: result.stopReason });
    expect(messages.at(-1)?.event).toBe('end');
    expect(
      messages.filter((message) => message.id !== undefined).map((message) => Number(message.id)),
    ).toEqual(events.map((_, index) => index));

    const list = (await (await fetch(`${server.url}api/runs`)).json()) as { runs: { runId: string }[] };
    expect(list.runs.map((run) => run.runId)).toContain(runId);
    const described = (await (await fetch(`${server.url}api/runs/${runId}`)).json()) as { workspace: string };
    expect(described.workspace).toBe(workspace);
  }, 90_000);

  it('cancels a run another process drives, from the page', async () => {
    const env = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: '150' };
    const coordinator = createCoordinator({ connection: redis.url, cortex: scaleOutCortex(env) });
    const worker = createStepWorker({ connection: redis.url, cortex: scaleOutCortex(env), concurrency: 2 });
    const client = createRunClient({ connection: redis.url });
    await Promise.all([coordinator.ready(), worker.ready()]);
    const runner = createScaleOutRunner({ store: redis.url });
    const server = await startWebServer({ journalDir: runner.journal, ...runner });
    closers.push(async () => {
      await server.close();
      await runner.close();
      await client.close();
      await worker.close();
      await coordinator.close();
    });
    const { runId } = await client.submit(
      scaleOutRunSpec({
        task: isPrimeTask,
        workspace: mkdtempSync(join(tmpdir(), 'closedloop-serve-cancel-')),
        settings: { demo: true, mode: 'auto', concurrency: 4, maxIterations: 3 },
      }),
    );
    for await (const { event } of client.store.tail(runId, { blockMs: 100 })) {
      if (event.type === 'step-started') break;
    }
    const answer = await fetch(`${server.url}api/runs/${runId}/cancel`, { method: 'POST' });
    expect(answer.status).toBe(202);
    expect((await client.result(runId)).stopReason).toBe('cancelled');
    const again = await fetch(`${server.url}api/runs/${runId}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
  }, 90_000);
});
