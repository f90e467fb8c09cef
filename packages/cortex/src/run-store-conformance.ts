import assert from 'node:assert/strict';
import { CortexError } from './cortex-error';
import type { JournalRecord } from './journal-format';
import type { RunEvent } from './run-events';
import type { RunMeta, RunStore } from './run-store';

/** One check of the run-store conformance suite: run it inside your test framework's `it`. */
export interface ConformanceCase {
  name: string;
  run(): Promise<void>;
}

/** Options of {@link runStoreConformance}. */
export interface RunStoreConformanceOptions {
  /**
   * For durable stores: a new store instance over the same storage as `store` (a "process
   * restart"). When given, the suite also checks that events and metadata survive it.
   */
  reopen?: (store: RunStore) => RunStore | Promise<RunStore>;
}

function sampleEvents(runId: string, count: number): RunEvent[] {
  const events: RunEvent[] = [
    { type: 'run-started', runId, at: 1, request: 'build the thing — «ünïcödé» ✓', resumed: false },
    {
      type: 'plan-created',
      runId,
      planId: 'plan-1',
      seq: 0,
      at: 2,
      title: 'a plan',
      goal: 'line one\nline two "quoted"',
      steps: [
        {
          id: 'a',
          description: 'first',
          dependsOn: [],
          requiredTools: [],
          successCriteria: [],
          protocols: [],
        },
      ],
    },
  ];
  for (let index = 0; events.length < count; index++) {
    events.push({
      type: 'step-started',
      runId,
      at: 3 + index,
      stepId: `s${index}`,
      attempt: index % 3,
    });
  }
  return events.slice(0, count);
}

function sampleMeta(runId: string, request: string): RunMeta {
  return {
    runId,
    request,
    createdAt: 1_700_000_000_000,
    options: {
      concurrency: 4,
      budget: { maxTokens: 1000 },
      planning: 'auto',
      nested: [1, 'two', null, true],
    },
  };
}

/** Appends `events` as records `from`, `from + 1`… in groups of `groupSize` (one group commit each). */
async function appendAll(
  store: RunStore,
  runId: string,
  events: readonly RunEvent[],
  options: { from?: number; groupSize?: number } = {},
): Promise<void> {
  const from = options.from ?? 0;
  const groupSize = options.groupSize ?? 3;
  const records: JournalRecord[] = events.map((event, index) => ({ seq: from + index, event }));
  for (let index = 0; index < records.length; index += groupSize) {
    await store.append(runId, records.slice(index, index + groupSize));
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function expectCode(action: () => unknown, code: string): Promise<CortexError> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  assert.ok(CortexError.isInstance(caught), `expected CortexError('${code}'), got ${String(caught)}`);
  assert.equal(caught.code, code, `expected code ${code}, got ${caught.code}: ${caught.message}`);
  return caught;
}

async function expectInvalidRunId(action: () => unknown): Promise<void> {
  await expectCode(action, 'invalid-run-id');
}

/**
 * The one conformance suite every {@link RunStore} must pass (the memory store and the JSONL
 * journal both run it). It returns framework-neutral cases that throw on failure; run each in
 * your test framework:
 *
 * @example
 * import { runStoreConformance } from '@closedloop/cortex/testing';
 * describe('my store', () => {
 *   for (const check of runStoreConformance(() => createMyStore())) it(check.name, check.run);
 * });
 *
 * `createStore` must return a new, empty store each time it is called.
 */
export function runStoreConformance(
  createStore: () => RunStore | Promise<RunStore>,
  options: RunStoreConformanceOptions = {},
): ConformanceCase[] {
  const cases: ConformanceCase[] = [
    {
      name: 'an empty store has no runs, no events and no metadata',
      async run() {
        const store = await createStore();
        assert.deepEqual(await store.list(), []);
        assert.deepEqual(await store.read('run-unknown'), []);
        assert.equal(await store.readMeta('run-unknown'), undefined);
      },
    },
    {
      name: 'read returns appended events in append order, JSON-equal',
      async run() {
        const store = await createStore();
        const events = sampleEvents('run-a', 25);
        await appendAll(store, 'run-a', events);
        assert.deepEqual(await store.read('run-a'), JSON.parse(JSON.stringify(events)));
      },
    },
    {
      name: 'runs are isolated, even with interleaved appends',
      async run() {
        const store = await createStore();
        const a = sampleEvents('run-a', 10);
        const b = sampleEvents('run-b', 7);
        for (let index = 0; index < 10; index++) {
          await store.append('run-a', [{ seq: index, event: a[index]! }]);
          if (b[index]) await store.append('run-b', [{ seq: index, event: b[index]! }]);
        }
        assert.deepEqual(await store.read('run-a'), a);
        assert.deepEqual(await store.read('run-b'), b);
      },
    },
    {
      name: 'read returns copies: changing them does not change the store',
      async run() {
        const store = await createStore();
        await appendAll(store, 'run-a', sampleEvents('run-a', 3));
        const first = await store.read('run-a');
        (first[0] as { request?: string }).request = 'changed';
        first.pop();
        assert.deepEqual(await store.read('run-a'), sampleEvents('run-a', 3));
      },
    },
    {
      name: 'appending after a read continues the journal',
      async run() {
        const store = await createStore();
        const events = sampleEvents('run-a', 6);
        await appendAll(store, 'run-a', events.slice(0, 3));
        assert.equal((await store.read('run-a')).length, 3);
        await appendAll(store, 'run-a', events.slice(3), { from: 3 });
        assert.deepEqual(await store.read('run-a'), events);
      },
    },
    {
      name: 'metadata round-trips and the last write wins',
      async run() {
        const store = await createStore();
        await store.writeMeta('run-a', sampleMeta('run-a', 'first'));
        assert.deepEqual(await store.readMeta('run-a'), sampleMeta('run-a', 'first'));
        await store.writeMeta('run-a', sampleMeta('run-a', 'second'));
        assert.deepEqual(await store.readMeta('run-a'), sampleMeta('run-a', 'second'));
        assert.equal(await store.readMeta('run-b'), undefined);
      },
    },
    {
      name: 'list returns every run with events or metadata, sorted, once',
      async run() {
        const store = await createStore();
        await store.writeMeta('run-c', sampleMeta('run-c', 'c'));
        await appendAll(store, 'run-b', sampleEvents('run-b', 2));
        await appendAll(store, 'run-a', sampleEvents('run-a', 2));
        await store.writeMeta('run-a', sampleMeta('run-a', 'a'));
        assert.deepEqual(await store.list(), ['run-a', 'run-b', 'run-c']);
      },
    },
    {
      name: 'a thousand events keep their order',
      async run() {
        const store = await createStore();
        const events = sampleEvents('run-big', 1000);
        await appendAll(store, 'run-big', events, { groupSize: 7 });
        const read = await store.read('run-big');
        assert.equal(read.length, 1000);
        assert.deepEqual(
          read.map((event) => event.at),
          events.map((event) => event.at),
        );
      },
    },
    {
      name: 'unsafe run ids throw CortexError("invalid-run-id") in every method',
      async run() {
        const store = await createStore();
        for (const runId of ['', '.', '..', '../escape', 'a/b', 'a\\b', 'x'.repeat(129), 'sp ace']) {
          await expectInvalidRunId(() =>
            store.append(runId, [{ seq: 0, event: sampleEvents(runId, 1)[0]! }]),
          );
          await expectInvalidRunId(() => store.acquireLease(runId));
          await expectInvalidRunId(() => store.read(runId));
          await expectInvalidRunId(() => store.writeMeta(runId, sampleMeta(runId, 'r')));
          await expectInvalidRunId(() => store.readMeta(runId));
        }
        assert.deepEqual(await store.list(), []);
      },
    },
    {
      name: 'a group is one append; groups of any size keep the order',
      async run() {
        const store = await createStore();
        const events = sampleEvents('run-a', 9);
        await store.append(
          'run-a',
          events.slice(0, 1).map((event, index) => ({ seq: index, event })),
        );
        await store.append(
          'run-a',
          events.slice(1, 8).map((event, index) => ({ seq: 1 + index, event })),
        );
        await store.append('run-a', []);
        await store.append('run-a', [{ seq: 8, event: events[8]! }]);
        assert.deepEqual(await store.read('run-a'), events);
      },
    },
    {
      name: 'a retried group (seqs already stored) is read once: nothing is duplicated or double-counted',
      async run() {
        const store = await createStore();
        const usage: RunEvent = {
          type: 'usage-recorded',
          runId: 'run-a',
          at: 9,
          purpose: 'step',
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
          costUsd: 0.5,
        };
        const events = [...sampleEvents('run-a', 3), usage];
        await appendAll(store, 'run-a', events, { groupSize: 4 });
        // The same group again, as after a write that succeeded but reported an error.
        await appendAll(store, 'run-a', events.slice(2), { from: 2 });
        const read = await store.read('run-a');
        assert.deepEqual(read, events);
        assert.equal(read.filter((event) => event.type === 'usage-recorded').length, 1);
      },
    },
    {
      name: 'one lease per run: a second acquire is refused with run-leased naming the holder',
      async run() {
        const store = await createStore();
        const first = await store.acquireLease('run-a', { purpose: 'resume' });
        assert.equal(first.holder.pid, process.pid);
        assert.equal(typeof first.holder.host, 'string');
        assert.equal(first.signal.aborted, false);
        const refused = await expectCode(
          () => store.acquireLease('run-a', { purpose: 'resume' }),
          'run-leased',
        );
        assert.match(
          refused.message,
          new RegExp(`run run-a is being resumed by pid ${process.pid} on host ${first.holder.host}`),
        );
        assert.deepEqual((refused.details as { holder: { pid: number } }).holder.pid, process.pid);
        // Another run is not affected.
        const other = await store.acquireLease('run-b');
        await other.release();
        await first.release();
      },
    },
    {
      name: 'a released lease can be acquired again; release is idempotent',
      async run() {
        const store = await createStore();
        const first = await store.acquireLease('run-a');
        await first.release();
        await first.release();
        const second = await store.acquireLease('run-a');
        assert.notEqual(second.holder.token, first.holder.token);
        assert.equal(second.takenOver, undefined);
        await second.renew();
        await second.release();
      },
    },
    {
      name: 'a renewing lease outlives its TTL',
      async run() {
        const store = await createStore();
        // TTLs long enough that a loaded machine's event-loop stalls (hundreds of ms) are not
        // mistaken for a holder that stopped renewing.
        const lease = await store.acquireLease('run-a', { ttlMs: 1_000, renewEveryMs: 50 });
        await sleep(1_500);
        await expectCode(() => store.acquireLease('run-a'), 'run-leased');
        assert.equal(lease.signal.aborted, false);
        await lease.release();
      },
    },
    {
      name: 'a lease that stopped renewing goes stale and is taken over; the old holder learns it lost the lease',
      async run() {
        const store = await createStore();
        const dead = await store.acquireLease('run-a', { ttlMs: 800, renewEveryMs: false });
        await expectCode(() => store.acquireLease('run-a'), 'run-leased');
        await sleep(1_000);
        const taker = await store.acquireLease('run-a', { purpose: 'resume' });
        assert.notEqual(taker.holder.token, dead.holder.token);
        // The taker knows it replaced a holder that died (its last write may be cut off).
        assert.equal(taker.takenOver?.token, dead.holder.token);
        await expectCode(() => dead.renew(), 'lease-lost');
        assert.equal(dead.signal.aborted, true);
        // The old holder's release must not free the taker's lease.
        await dead.release();
        await expectCode(() => store.acquireLease('run-a'), 'run-leased');
        await taker.release();
      },
    },
  ];
  const { reopen } = options;
  if (reopen) {
    cases.push({
      name: 'events and metadata survive reopening the store',
      async run() {
        const store = await createStore();
        const events = sampleEvents('run-a', 12);
        await appendAll(store, 'run-a', events.slice(0, 8));
        await store.writeMeta('run-a', sampleMeta('run-a', 'persisted'));
        const again = await reopen(store);
        assert.deepEqual(await again.read('run-a'), events.slice(0, 8));
        assert.deepEqual(await again.readMeta('run-a'), sampleMeta('run-a', 'persisted'));
        assert.deepEqual(await again.list(), ['run-a']);
        await appendAll(again, 'run-a', events.slice(8), { from: 8 });
        const third = await reopen(again);
        assert.deepEqual(await third.read('run-a'), events);
      },
    });
  }
  return cases;
}
