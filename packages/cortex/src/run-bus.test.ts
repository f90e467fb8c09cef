import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedactor } from '@closedloop/model';
import { describe, expect, it } from 'vitest';
import { goalCriteria } from './goal-verification';
import { encodeRecord } from './journal-format';
import { createJsonlRunStore } from './jsonl-run-store';
import { RunBus } from './run-bus';
import type { RunEvent } from './run-events';
import { createMemoryRunStore, type RunStore } from './run-store';

const started = (stepId: string) => ({ type: 'step-started' as const, stepId, attempt: 0 });

describe('RunBus', () => {
  it('stamps runId and at, journals in order with seqs through an async store, and keeps live-only events out', async () => {
    const memory = createMemoryRunStore();
    const slow: RunStore = {
      ...memory,
      append: (runId, records) =>
        new Promise((resolve) => setTimeout(() => resolve(memory.append(runId, records)), Math.random() * 5)),
    };
    let now = 100;
    const seen: RunEvent[] = [];
    const bus = new RunBus({
      runId: 'run-x',
      store: slow,
      clock: () => now++,
      onEvent: (event) => seen.push(event),
    });
    for (const id of ['a', 'b', 'c', 'd']) bus.emit(started(id));
    bus.emit({ type: 'text-delta', stepId: 'a', iteration: 1, delta: 'hi' });
    await bus.flush();
    const stored = await memory.read('run-x');
    expect(stored.map((event) => (event as { stepId: string }).stepId)).toEqual(['a', 'b', 'c', 'd']);
    expect(stored[0]).toEqual({ ...started('a'), runId: 'run-x', at: 100 });
    expect(seen.map((event) => event.type)).toContain('text-delta');
    expect(bus.history.map((event) => event.type)).not.toContain('text-delta');
  });

  it('group commit: what is emitted together is one append; events staged during a commit form the next group', async () => {
    const memory = createMemoryRunStore();
    const groups: number[][] = [];
    let release: (() => void) | undefined;
    const gated: RunStore = {
      ...memory,
      append: async (runId, records) => {
        groups.push(records.map((record) => record.seq));
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        memory.append(runId, records);
      },
    };
    const bus = new RunBus({ runId: 'run-x', store: gated, clock: Date.now, commitDelayMs: 60_000 });
    for (const id of ['a', 'b', 'c']) bus.emit(started(id));
    const first = bus.flush();
    bus.emit(started('d'));
    bus.emit(started('e'));
    const second = bus.flush();
    let firstDone = false;
    void first.then(() => {
      firstDone = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(groups).toEqual([[0, 1, 2]]);
    expect(firstDone).toBe(false);
    release!();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(groups).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    release!();
    await second;
    expect((await memory.read('run-x')).map((event) => (event as { stepId: string }).stepId)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);
    // Nothing new: flushing again writes nothing.
    await bus.flush();
    expect(groups).toHaveLength(2);
  });

  it('commits staged events on its own after commitDelayMs, and continues the seqs of a resumed history', async () => {
    const memory = createMemoryRunStore();
    const first = new RunBus({ runId: 'run-x', store: memory, clock: Date.now, commitDelayMs: 1 });
    first.emit(started('a'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await memory.read('run-x')).toHaveLength(1);
    const history = await memory.read('run-x');
    const second = new RunBus({ runId: 'run-x', store: memory, clock: Date.now, history });
    second.emit(started('b'));
    await second.flush();
    expect((await memory.read('run-x')).map((event) => (event as { stepId: string }).stepId)).toEqual([
      'a',
      'b',
    ]);
  });

  it('lazy events start no commit of their own: they wait for the next commit and go with it, in order', async () => {
    const memory = createMemoryRunStore();
    const groups: string[][] = [];
    const store: RunStore = {
      ...memory,
      append: async (runId, records) => {
        groups.push(records.map((record) => (record.event as { stepId: string }).stepId));
        await memory.append(runId, records);
      },
    };
    const bus = new RunBus({
      runId: 'run-x',
      store,
      clock: Date.now,
      commitDelayMs: 1,
      lazy: (event) => (event as { stepId?: string }).stepId?.startsWith('lazy') === true,
    });
    bus.emit(started('lazy-1'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The timer did not commit it, and nothing was written after it either.
    expect(groups).toEqual([]);
    bus.emit(started('a'));
    bus.emit(started('lazy-2'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // An event that is not lazy starts the timer's commit: the lazy ones staged go with it.
    expect(groups).toEqual([['lazy-1', 'a', 'lazy-2']]);
    bus.emit(started('lazy-3'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(groups).toHaveLength(1);
    // A flush writes them: a clean end loses none.
    await bus.flush();
    expect(groups).toEqual([['lazy-1', 'a', 'lazy-2'], ['lazy-3']]);
    expect((await memory.read('run-x')).map((event) => (event as { stepId: string }).stepId)).toEqual([
      'lazy-1',
      'a',
      'lazy-2',
      'lazy-3',
    ]);
  });

  it('keeps the first store failure, stops journaling, reports it once and goes on; a throwing listener is ignored', async () => {
    let calls = 0;
    const failures: unknown[] = [];
    const broken: RunStore = {
      ...createMemoryRunStore(),
      append() {
        calls++;
        throw new Error('disk full');
      },
    };
    const bus = new RunBus({
      runId: 'run-x',
      store: broken,
      clock: Date.now,
      onEvent: () => {
        throw new Error('ui broke');
      },
      onStoreError: (error) => failures.push(error),
    });
    bus.emit(started('a'));
    bus.emit(started('b'));
    await bus.flush();
    bus.emit(started('c'));
    await bus.flush();
    expect((bus.storeError as Error).message).toBe('disk full');
    expect(calls).toBe(1);
    expect(failures).toHaveLength(1);
    expect(bus.history).toHaveLength(3);
  });

  it('journals each event as it was emitted: a listener changing its event changes nothing in the journal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-bus-'));
    try {
      const memory = createMemoryRunStore();
      const jsonl = createJsonlRunStore({ dir, durability: 'batch' });
      const both: RunStore = {
        ...memory,
        append: async (runId, records) => {
          memory.append(runId, records);
          await jsonl.append(runId, records);
        },
      };
      const vandal = (event: RunEvent) => {
        const loose = event as unknown as Record<string, unknown>;
        loose.type = 'step-finished';
        loose.stepId = 'changed';
        delete loose.at;
        const args = loose.args as Record<string, unknown> | undefined;
        if (args !== undefined) args.path = 'changed';
      };
      for (const redactor of [createRedactor({ env: {} }), undefined]) {
        const runId = redactor ? 'run-redacted' : 'run-plain';
        const bus = new RunBus({ runId, store: both, clock: () => 7, commitDelayMs: 60_000, redactor });
        bus.subscribe(vandal);
        bus.emit(started('a'));
        bus.forwardPlan({
          type: 'tool-call-started',
          planId: 'p',
          seq: 1,
          at: 8,
          stepId: 'a',
          callId: 'c1',
          tool: 'write_file',
          args: { path: 'notes.txt', content: 'hi' },
        } as never);
        await bus.flush();
        const expected = [
          { ...started('a'), runId, at: 7 },
          {
            type: 'tool-call-started',
            planId: 'p',
            seq: 1,
            at: 8,
            stepId: 'a',
            callId: 'c1',
            tool: 'write_file',
            args: { path: 'notes.txt', content: 'hi' },
            runId,
          },
        ];
        expect(await memory.read(runId)).toEqual(expected);
        expect(await jsonl.read(runId)).toEqual(expected);
        // The line is what encoding the event afresh gives.
        const lines = readFileSync(jsonl.pathOf(runId), 'utf8').split('\n').slice(1, -1);
        expect(lines).toEqual(
          expected.map((event, seq) => encodeRecord({ seq, event: event as never }).trimEnd()),
        );
      }
      await jsonl.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an event JSON cannot hold still fails the commit as a store error, not the emit', async () => {
    const failures: unknown[] = [];
    const bus = new RunBus({
      runId: 'run-x',
      store: createMemoryRunStore(),
      clock: Date.now,
      onStoreError: (error) => failures.push(error),
    });
    expect(() => bus.emit({ ...started('a'), attempt: 1n } as never)).not.toThrow();
    await bus.flush();
    expect(String(bus.storeError)).toMatch(/BigInt/);
    expect(failures).toHaveLength(1);
  });

  it('detach stops journaling at once: staged events never reach the store', async () => {
    const memory = createMemoryRunStore();
    const bus = new RunBus({ runId: 'run-x', store: memory, clock: Date.now, commitDelayMs: 60_000 });
    bus.emit(started('a'));
    await bus.flush();
    bus.emit(started('b'));
    bus.detach(new Error('lease lost'));
    bus.emit(started('c'));
    await bus.flush();
    expect(await memory.read('run-x')).toHaveLength(1);
  });
});

describe('RunBus: secrets streamed in deltas', () => {
  const secret = 'sk-proj-Zq8vT3xLm9Kd2Rf7Wn4Yp1Hs6Bc0Ja5Ue';
  const redactor = createRedactor({ env: { OPENAI_API_KEY: secret }, registered: false });
  /** Emits `text` in `size`-character deltas of each kind, then the step's next event. */
  function stream(text: string, size: number) {
    const seen: RunEvent[] = [];
    const bus = new RunBus({
      runId: 'r',
      store: undefined,
      clock: () => 0,
      redactor,
      onEvent: (e) => seen.push(e),
    });
    for (let i = 0; i < text.length; i += size) {
      bus.emit({ type: 'text-delta', stepId: 'a', iteration: 1, delta: text.slice(i, i + size) });
      bus.emit({
        type: 'tool-call-delta',
        stepId: 'a',
        iteration: 1,
        index: 0,
        argumentsDelta: text.slice(i, i + size),
      });
    }
    bus.emit(started('a'));
    const joined = (type: string, field: string) =>
      seen
        .filter((event) => event.type === type)
        .map((event) => (event as unknown as Record<string, string>)[field])
        .join('');
    return { text: joined('text-delta', 'delta'), args: joined('tool-call-delta', 'argumentsDelta'), seen };
  }

  it.each([1, 3, 5, 11])('never shows a secret sent %i characters at a time', (size) => {
    const text = `Here is the key: ${secret}\n{"content":"OPENAI_API_KEY=${secret}"} and more text.`;
    const { text: shown, args } = stream(text, size);
    for (const out of [shown, args]) {
      for (let i = 0; i + 6 <= secret.length - 8; i++)
        expect(out).not.toContain(secret.slice(8 + i, 8 + i + 6));
      expect(out).toContain('[REDACTED');
      expect(out).toContain('and more text.');
    }
  });

  it('passes honest text through whole, in order, as it streams', () => {
    const text = 'The tests pass: 12 of 12, in 3.4 s.\nNext, `npm run build` (tsc -p .).';
    const { text: shown, args, seen } = stream(text, 4);
    expect(shown).toBe(text);
    expect(args).toBe(text);
    // Words show up before the step's next event (only a word still arriving is held back).
    const firstStarted = seen.findIndex((event) => event.type === 'step-started');
    const before = seen.slice(0, firstStarted).filter((event) => event.type === 'text-delta');
    const early = before.map((event) => (event as { delta: string }).delta).join('');
    expect(text.startsWith(early)).toBe(true);
    expect(early).toContain('`npm run build` (tsc -p');
  });
});

describe('goalCriteria', () => {
  const config = (
    goal: boolean | 'derive',
    criteria?: { id: string; priority: 'P0' | 'P1' | 'P2'; protocol: string }[],
  ) => ({
    workspace: '/ws',
    verifier: {
      protocols: [{ name: 'MINE', priority: 'P2' as const, layer: 1 as const, run: async () => [] }],
      goal,
      ...(criteria ? { criteria } : {}),
    },
  });

  it("maps the planner's protocols to criteria with each protocol's priority, after the explicit ones", () => {
    expect(
      goalCriteria({
        config: config(true, [{ id: 'X', priority: 'P0', protocol: 'BUILD' }]),
        protocols: ['MINE', 'BUILD', 'TEST'],
        successCriteria: ['a', 'b'],
      }),
    ).toEqual([
      { id: 'X', priority: 'P0', protocol: 'BUILD' },
      { id: 'MINE', description: 'a; b', priority: 'P2', protocol: 'MINE', source: 'user' },
      { id: 'TEST', description: 'a; b', priority: 'P1', protocol: 'TEST', source: 'user' },
    ]);
  });

  it("nothing explicit: no criteria, or undefined (derive from the request) with goal: 'derive'", () => {
    expect(goalCriteria({ config: config(true), protocols: [], successCriteria: [] })).toEqual([]);
    expect(goalCriteria({ config: config('derive'), protocols: [], successCriteria: [] })).toBeUndefined();
  });
});
