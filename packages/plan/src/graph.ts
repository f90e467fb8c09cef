import { PlanError } from './plan-error';

/** The part of a step the graph checks look at. */
export interface GraphItem {
  readonly id: string;
  readonly dependsOn: readonly string[];
}

/**
 * Finds one dependency cycle among `items`, following only dependencies that are themselves in
 * `items` (others are treated as outside the graph). Returns the cycle as ids in dependency
 * order, first id repeated at the end (`['a', 'b', 'a']`: a depends on b depends on a), or
 * `undefined` when the items are acyclic. Linear in items plus edges.
 */
export function findCycle(items: readonly GraphItem[]): string[] | undefined {
  const index = new Map<string, number>();
  for (const [position, item] of items.entries()) index.set(item.id, position);
  return findCycleIndexed(items, index);
}

function findCycleIndexed(
  items: readonly GraphItem[],
  index: ReadonlyMap<string, number>,
): string[] | undefined {
  const deps = items.map((item) => {
    const list: number[] = [];
    for (const dep of item.dependsOn) {
      const j = index.get(dep);
      if (j !== undefined) list.push(j);
    }
    return list;
  });
  return findIndexCycle(deps)?.map((i) => items[i]!.id);
}

/**
 * {@link findCycle} on indexes: `deps[i]` lists the indexes item `i` depends on (each in
 * `0..deps.length - 1`). Returns the cycle as indexes in dependency order, first repeated at the
 * end, or `undefined`. Kahn's algorithm over typed arrays, linear in items plus edges.
 */
export function findIndexCycle(deps: readonly (readonly number[])[]): number[] | undefined {
  const count = deps.length;
  // The reverse edges in compressed (CSR) form.
  const indegree = new Int32Array(count);
  const outCount = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) {
    const list = deps[i]!;
    indegree[i] = list.length;
    for (const j of list) outCount[j + 1]!++;
  }
  for (let i = 0; i < count; i++) outCount[i + 1]! += outCount[i]!;
  const fill = outCount.slice(0, count);
  const dependents = new Int32Array(outCount[count]!);
  for (let i = 0; i < count; i++) for (const j of deps[i]!) dependents[fill[j]!++] = i;
  const queue = new Int32Array(count);
  let tail = 0;
  for (let i = 0; i < count; i++) if (indegree[i] === 0) queue[tail++] = i;
  for (let head = 0; head < tail; head++) {
    const i = queue[head]!;
    for (let e = outCount[i]!; e < outCount[i + 1]!; e++) {
      const k = dependents[e]!;
      if (--indegree[k]! === 0) queue[tail++] = k;
    }
  }
  if (tail === count) return undefined;
  // Every item left over has a left-over dependency: walk them until one repeats.
  let current = indegree.findIndex((left) => left > 0);
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  while (!seenAt.has(current)) {
    seenAt.set(current, path.length);
    path.push(current);
    current = deps[current]!.find((j) => indegree[j]! > 0)!;
  }
  return [...path.slice(seenAt.get(current)!), current];
}

/**
 * Checks a whole graph: ids unique, every dependency names a step of the graph (or an id for
 * which `isExternal` returns true), no cycles. Throws `PlanError` with code `duplicate-step`,
 * `dangling-dependency` or `cycle`.
 */
export function validateGraph(
  items: readonly GraphItem[],
  options: { isExternal?: (id: string) => boolean } = {},
): void {
  const ids = new Map<string, number>();
  for (const [position, item] of items.entries()) {
    if (ids.has(item.id)) {
      throw new PlanError({
        code: 'duplicate-step',
        message: `Step id "${item.id}" is used by more than one step; give every step a unique id.`,
        details: { stepId: item.id },
      });
    }
    ids.set(item.id, position);
  }
  for (const item of items) {
    for (const dep of item.dependsOn) {
      if (!ids.has(dep) && !(options.isExternal?.(dep) ?? false)) {
        throw new PlanError({
          code: 'dangling-dependency',
          message: `Step "${item.id}" depends on "${dep}", which is not a step of the plan.`,
          details: { stepId: item.id, dependency: dep },
        });
      }
    }
  }
  const cycle = findCycleIndexed(items, ids);
  if (cycle !== undefined) {
    throw new PlanError({
      code: 'cycle',
      message: `The steps form a dependency cycle: ${cycle.join(' → ')}. Remove one of these dependencies.`,
      details: { cycle },
    });
  }
}
