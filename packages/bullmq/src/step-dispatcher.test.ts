import { randomUUID } from 'node:crypto';
import { createCortex, type RunResult } from '@closedloop/cortex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioSpec } from './__fixtures__/final-state';
import { countEffects, scenarioCortex } from './__fixtures__/scenario';
import { closeRedis, connectRedis } from './redis-connection';
import { redisKeys } from './redis-keys';
import { createRedisRunStore, type RedisRunStore } from './redis-run-store';
import { createStepDispatcher, type StepDispatcher } from './step-dispatcher';
import type { RunSpec } from './step-jobs';
import { createStepTranscripts } from './step-transcripts';
import { createStepWorker, type StepWorker, type StepWorkerEvent } from './step-worker';
import { type RedisServer, startRedisServer } from './testing';

let redis: RedisServer;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await redis.stop();
});

function spec(settings: RunSpec['settings']): RunSpec {
  return scenarioSpec(settings, 'closedloop-bullmq-');
}

async function deployment(workers = 2) {
  const prefix = `t-${randomUUID().slice(0, 8)}`;
  const store: RedisRunStore = createRedisRunStore({ connection: redis.url, prefix });
  const dispatcher: StepDispatcher = createStepDispatcher({ connection: redis.url, prefix });
  const events: StepWorkerEvent[] = [];
  const started: StepWorker[] = [];
  for (let index = 0; index < workers; index++) {
    const worker = createStepWorker({
      connection: redis.url,
      prefix,
      cortex: scenarioCortex,
      concurrency: 3,
      name: `worker-${index}`,
      onEvent: (event) => events.push(event),
    });
    await worker.ready();
    started.push(worker);
  }
  closers.push(async () => {
    for (const worker of started) await worker.close();
    await dispatcher.close();
    await store.close();
  });
  return { prefix, store, dispatcher, events };
}

const comparable = (plan: RunResult['plan']) =>
  plan?.steps.map((step) => ({
    id: step.id,
    status: step.status,
    ledger: step.ledger.map(({ tool, args, status }) => ({ tool, args, status })),
    verdict: step.verification?.verdict,
  }));

describe('steps on the BullMQ queue, run by step workers', () => {
  it('a run whose steps all run on workers ends like an in-process run, each effect once', async () => {
    const { store, dispatcher, events } = await deployment(2);
    const settings = { steps: 12, shape: 'layers', turnMs: 5 };
    const remoteSpec = spec(settings);
    const coordinator = createCortex({
      ...scenarioCortex(remoteSpec),
      store,
      stepRunner: dispatcher.runnerFor(remoteSpec),
    });
    const result = await coordinator.run(remoteSpec.request, { runId: `run-${randomUUID().slice(0, 8)}` });
    expect(result.stopReason).toBe('completed');

    const localSpec = spec(settings);
    const local = await createCortex(scenarioCortex(localSpec)).run(localSpec.request);
    expect(comparable(result.plan)).toEqual(comparable(local.plan));

    expect([...countEffects(remoteSpec.workspace!, 12).values()]).toEqual(Array(12).fill(1));
    const done = events.filter((event) => event.type === 'step-done');
    expect(done).toHaveLength(12);
    // Both workers took steps.
    expect(
      new Set(events.filter((event) => event.type === 'step-taken').map((event) => event.jobId)).size,
    ).toBe(12);
    // The Redis journal replays the run: resume returns the stored result without running anything.
    const again = await createCortex({ ...scenarioCortex(remoteSpec), store }).resume(result.runId);
    expect(again.stopReason).toBe('completed');
    expect(comparable(again.plan)).toEqual(comparable(result.plan));
  });

  it('a cancelled run stops its step jobs; resuming it finishes without repeating finished steps', async () => {
    const { store, dispatcher } = await deployment(1);
    const runSpec = spec({ steps: 8, shape: 'chain', turnMs: 30 });
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const controller = new AbortController();
    const cortex = createCortex({
      ...scenarioCortex(runSpec),
      store,
      stepRunner: dispatcher.runnerFor(runSpec),
      onEvent: (event) => {
        if (event.type === 'step-finished' && event.stepId === 'step-3') controller.abort(new Error('stop'));
      },
    });
    const first = await cortex.run(runSpec.request, { runId, signal: controller.signal });
    expect(first.stopReason).toBe('cancelled');
    const resumed = await createCortex({
      ...scenarioCortex(runSpec),
      store,
      stepRunner: dispatcher.runnerFor(runSpec),
    }).resume(runId);
    expect(resumed.stopReason).toBe('completed');
    expect([...countEffects(runSpec.workspace!, 8).values()]).toEqual(Array(8).fill(1));
    expect(resumed.plan!.steps.every((step) => step.status === 'completed')).toBe(true);
  });

  it("a job's first start whose id already has a transcript (an earlier incarnation of the job) continues from it", async () => {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const settings = { steps: 1, shape: 'wide', turnMs: 5 };
    // The same run in another deployment: the step's job id, and what its first group journaled
    // (up to the dispatch of its first call: the write-ahead record of write_file).
    const earlier = await deployment(1);
    const earlierSpec = spec(settings);
    await createCortex({
      ...scenarioCortex(earlierSpec),
      store: earlier.store,
      stepRunner: earlier.dispatcher.runnerFor(earlierSpec),
    }).run(earlierSpec.request, { runId });
    const jobId = earlier.events.find((event) => event.type === 'step-taken')!.jobId;
    const client = connectRedis(redis.url);
    closers.push(() => closeRedis(client));
    const journaled = await createStepTranscripts({
      client,
      keys: redisKeys(earlier.prefix),
      retentionMs: 60_000,
    }).read(jobId);
    const dead = journaled.slice(
      0,
      journaled.findIndex((event) => event.type === 'tool-call-dispatched') + 1,
    );
    expect(dead.at(-1)).toMatchObject({ type: 'tool-call-dispatched', tool: 'write_file' });

    // Here that job id's transcript holds an attempt that died after its first group, and no
    // owner (the job was removed and is queued anew): the new job's first start finds it.
    const later = await deployment(1);
    const keys = redisKeys(later.prefix);
    const transcripts = createStepTranscripts({ client, keys, retentionMs: 60_000 });
    await transcripts.claim(jobId, 'dead-attempt');
    await transcripts.append({ jobId, attempt: 'dead-attempt', group: 1, events: dead });
    await client.del(keys.owner(jobId));
    const laterSpec = spec(settings);
    const result = await createCortex({
      ...scenarioCortex(laterSpec),
      store: later.store,
      stepRunner: later.dispatcher.runnerFor(laterSpec),
    }).run(laterSpec.request, { runId });

    expect(result.stopReason).toBe('completed');
    expect([...countEffects(laterSpec.workspace!, 1).values()]).toEqual([1]);
    expect(later.events.filter((event) => event.type === 'step-taken')).toMatchObject([
      { jobId, attempt: 1 },
    ]);
    // It continued from the dead attempt: its model turn is the run's (with its time), not made
    // again — three turns in all — and the transcript holds the dead attempt's group, then its own.
    const turns = (await later.store.read(runId)).filter(
      (event) => event.type === 'model-call-finished' && event.stepId === 'step-1',
    );
    expect(turns).toHaveLength(3);
    expect(turns[0]!.at).toBe(dead.find((event) => event.type === 'model-call-finished')!.at);
    const owners = ((await client.xrange(keys.transcript(jobId), '-', '+')) as [string, string[]][]).map(
      ([, fields]) => fields[fields.indexOf('a') + 1],
    );
    expect(owners.slice(0, dead.length)).toEqual(Array(dead.length).fill('dead-attempt'));
    expect(owners.slice(dead.length).length).toBeGreaterThan(0);
    expect(owners.slice(dead.length).every((owner) => owner !== 'dead-attempt')).toBe(true);
  });

  it("run affinity: the steps of a run pinned to a group run only on that group's workers", async () => {
    const prefix = `t-${randomUUID().slice(0, 8)}`;
    const store = createRedisRunStore({ connection: redis.url, prefix });
    const dispatcher = createStepDispatcher({ connection: redis.url, prefix });
    const taken: string[] = [];
    const sharedOnly = createStepWorker({
      connection: redis.url,
      prefix,
      cortex: scenarioCortex,
      onEvent: (event) => event.type === 'step-taken' && taken.push(`shared:${event.stepId}`),
    });
    const hostA = createStepWorker({
      connection: redis.url,
      prefix,
      cortex: scenarioCortex,
      shared: false,
      groups: ['host-a'],
      onEvent: (event) => event.type === 'step-taken' && taken.push(`host-a:${event.stepId}`),
    });
    await Promise.all([sharedOnly.ready(), hostA.ready()]);
    closers.push(async () => {
      await sharedOnly.close();
      await hostA.close();
      await dispatcher.close();
      await store.close();
    });
    const runSpec = { ...spec({ steps: 4, shape: 'wide', turnMs: 5 }), group: 'host-a' };
    const result = await createCortex({
      ...scenarioCortex(runSpec),
      store,
      stepRunner: dispatcher.runnerFor(runSpec),
    }).run(runSpec.request);
    expect(result.stopReason).toBe('completed');
    expect(taken.sort()).toEqual(['host-a:step-1', 'host-a:step-2', 'host-a:step-3', 'host-a:step-4']);
  });

  it('refuses bad options with typed errors', () => {
    expect(() => createStepWorker({ connection: redis.url, cortex: scenarioCortex, concurrency: 0 })).toThrow(
      /concurrency must be an integer/,
    );
    expect(() => createStepWorker({ connection: redis.url, cortex: scenarioCortex, shared: false })).toThrow(
      /at least one group/,
    );
    expect(() =>
      createStepWorker({ connection: redis.url, cortex: scenarioCortex, groups: ['a b'] }),
    ).toThrow(/group must be/);
    expect(() => createStepDispatcher({ connection: 'nope' })).toThrow(/redis:\/\//);
  });
});
