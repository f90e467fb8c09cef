import assert from 'node:assert/strict';
import { CortexError } from './cortex-error';
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

async function appendAll(store: RunStore, runId: string, events: readonly RunEvent[]): Promise<void> {
  for (const event of events) await store.append(runId, event);
}

async function expectInvalidRunId(action: () => unknown): Promise<void> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  assert.ok(CortexError.isInstance(caught), `expected CortexError('invalid-run-id'), got ${String(caught)}`);
  assert.equal(caught.code, 'invalid-run-id');
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
          await store.append('run-a', a[index]!);
          if (b[index]) await store.append('run-b', b[index]!);
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
        await appendAll(store, 'run-a', events.slice(3));
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
        await appendAll(store, 'run-big', events);
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
          await expectInvalidRunId(() => store.append(runId, sampleEvents(runId, 1)[0]!));
          await expectInvalidRunId(() => store.read(runId));
          await expectInvalidRunId(() => store.writeMeta(runId, sampleMeta(runId, 'r')));
          await expectInvalidRunId(() => store.readMeta(runId));
        }
        assert.deepEqual(await store.list(), []);
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
        await appendAll(again, 'run-a', events.slice(8));
        const third = await reopen(again);
        assert.deepEqual(await third.read('run-a'), events);
      },
    });
  }
  return cases;
}
