/** One step of a benchmark DAG: its dependencies and how long its work sleeps (0: no-op). */
export interface DagStep {
  id: string;
  dependsOn: readonly string[];
  ms: number;
}

/** A timed run: makespan and each step's work start and end, ms since the run started. */
export interface TimedRun {
  makespan: number;
  starts: Map<string, number>;
  ends: Map<string, number>;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Deterministic PRNG (mulberry32), as packages/plan/bench/drain.bench.ts uses, so every run builds the same DAG. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `size` steps in a line, each depending on the one before. */
export function chainDag(size: number, ms = 0): DagStep[] {
  return Array.from({ length: size }, (_, index) => ({
    id: `s${index}`,
    dependsOn: index === 0 ? [] : [`s${index - 1}`],
    ms,
  }));
}

/** A root, `width` children of it that sleep `ms` each, and a join depending on all of them. */
export function fanOutDag(width: number, ms: number): DagStep[] {
  const children = Array.from({ length: width }, (_, index) => ({
    id: `c${index}`,
    dependsOn: ['root'],
    ms,
  }));
  return [
    { id: 'root', dependsOn: [], ms: 0 },
    ...children,
    { id: 'join', dependsOn: children.map((child) => child.id), ms: 0 },
  ];
}

/**
 * A random DAG, as packages/cortex/bench/scheduler.bench.ts draws it: each step depends on 1–3
 * random earlier steps (20 % on none), and sleeps 5–20 ms.
 */
export function randomDag(size: number, seed: number): DagStep[] {
  const next = random(seed);
  return Array.from({ length: size }, (_, index) => {
    const deps = new Set<string>();
    if (index > 0 && next() >= 0.2) {
      const count = 1 + Math.floor(next() * 3);
      for (let k = 0; k < count; k++) deps.add(`s${Math.floor(next() * index)}`);
    }
    return { id: `s${index}`, dependsOn: [...deps], ms: 5 + Math.floor(next() * 16) };
  });
}

/** A slow sibling (200 ms), a fast branch (10 ms) and the fast branch's successor (no-op). */
export function successorDag(): DagStep[] {
  return [
    { id: 'slow', dependsOn: [], ms: 200 },
    { id: 'fast', dependsOn: [], ms: 10 },
    { id: 'next', dependsOn: ['fast'], ms: 0 },
  ];
}

/** The critical path (longest chain of step durations) and the total work of a DAG, from nominal durations. */
export function dagBounds(steps: readonly DagStep[]): { criticalPath: number; work: number } {
  const finish = new Map<string, number>();
  let work = 0;
  for (const step of steps) {
    work += step.ms;
    let ready = 0;
    for (const dep of step.dependsOn) ready = Math.max(ready, finish.get(dep) ?? 0);
    finish.set(step.id, ready + step.ms);
  }
  return { criticalPath: Math.max(0, ...finish.values()), work };
}

/** max(critical path, total work ÷ limit): no schedule with `limit` workers can finish sooner. */
export function lowerBound(steps: readonly DagStep[], limit: number): number {
  const { criticalPath, work } = dagBounds(steps);
  return Math.max(criticalPath, work / limit);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
