import { describe, expect, it } from 'vitest';
import { goalCriteria } from './goal-verification';
import { RunBus } from './run-bus';
import type { RunEvent } from './run-events';
import { createMemoryRunStore, type RunStore } from './run-store';

const started = (stepId: string) => ({ type: 'step-started' as const, stepId, attempt: 0 });

describe('RunBus', () => {
  it('stamps runId and at, journals in order through an async store, and keeps live-only events out', async () => {
    const memory = createMemoryRunStore();
    const slow: RunStore = {
      ...memory,
      append: (runId, event) =>
        new Promise((resolve) => setTimeout(() => resolve(memory.append(runId, event)), Math.random() * 5)),
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

  it('keeps the first store failure, stops journaling and goes on; a throwing listener is ignored', async () => {
    let calls = 0;
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
    });
    bus.emit(started('a'));
    bus.emit(started('b'));
    await bus.flush();
    expect((bus.storeError as Error).message).toBe('disk full');
    expect(calls).toBe(1);
    expect(bus.history).toHaveLength(2);
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
