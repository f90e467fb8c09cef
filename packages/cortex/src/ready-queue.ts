import type { Plan, PlanEvent, StepId, StepStatus } from '@closedloop/plan';

interface Node {
  id: StepId;
  deps: StepId[];
  dependents: Set<StepId>;
  status: StepStatus;
  /** Dependencies not `completed` yet. */
  unmet: number;
  /** Display position (tie-breaker among ready steps). */
  pos: number;
  /** Steps on the longest dependency chain from this step to the end of the plan, itself included. */
  level: number;
}

/** Which ready step runs first. */
export type ReadyOrder = 'critical-path' | 'display';

/**
 * A mirror of `plan.readySteps()` kept incrementally from the plan's events (status changes,
 * resets, surgeries, added steps), so that taking the next ready step costs O(log ready) and a
 * completion costs O(dependents) — `readySteps()` sorts every ready step on each call, which is
 * quadratic on wide plans.
 *
 * Order among ready steps: `critical-path` (default) runs first the step with the longest chain
 * of steps after it (list scheduling by bottom level, in steps since durations are unknown), ties
 * in display order; `display` is exactly the order of `readySteps()`.
 */
export class ReadyQueue {
  readonly #nodes = new Map<StepId, Node>();
  /** Binary heap in run-first order; entries may be stale (checked when popped). */
  #heap: Node[] = [];
  readonly #unsubscribe: () => void;
  readonly #order: ReadyOrder;

  constructor(plan: Plan, order: ReadyOrder = 'critical-path') {
    this.#order = order;
    for (const [pos, id] of plan.stepIds.entries()) {
      const step = plan.readStep(id);
      this.#nodes.set(step.id, {
        id: step.id,
        deps: [...step.dependsOn],
        dependents: new Set(),
        status: step.status,
        unmet: 0,
        pos,
        level: 1,
      });
    }
    for (const node of this.#nodes.values()) this.#wire(node);
    this.#computeLevels();
    for (const node of this.#nodes.values()) if (this.#isReady(node)) this.#push(node);
    this.#unsubscribe = plan.subscribe((event, source) => this.#apply(event, source));
  }

  /** Stops following the plan. */
  close(): void {
    this.#unsubscribe();
  }

  /** Removes and returns the ready step first in display order, or `undefined`. */
  shift(): StepId | undefined {
    while (this.#heap.length > 0) {
      const node = this.#pop();
      if (this.#nodes.get(node.id) === node && this.#isReady(node)) return node.id;
    }
    return undefined;
  }

  #isReady(node: Node): boolean {
    return node.status === 'not_started' && node.unmet === 0;
  }

  #wire(node: Node): void {
    node.unmet = 0;
    for (const depId of node.deps) {
      const dep = this.#nodes.get(depId);
      if (dep === undefined) continue;
      dep.dependents.add(node.id);
      if (dep.status !== 'completed') node.unmet++;
    }
  }

  #apply(event: PlanEvent, plan: Plan): void {
    if (event.type === 'step-marked') {
      if (event.status === undefined) return;
      const node = this.#nodes.get(event.stepId);
      if (node === undefined || node.status === event.status) return;
      const previous = node.status;
      node.status = event.status;
      if (previous === 'completed' || event.status === 'completed') {
        const delta = event.status === 'completed' ? -1 : 1;
        for (const id of node.dependents) {
          const down = this.#nodes.get(id);
          if (down === undefined) continue;
          down.unmet += delta;
          if (this.#isReady(down)) this.#push(down);
        }
      }
      if (this.#isReady(node)) this.#push(node);
      return;
    }
    if (event.type === 'step-reset') {
      // in_progress | failed → not_started; its dependencies are completed, so it is ready again.
      const node = this.#nodes.get(event.stepId);
      if (node === undefined) return;
      node.status = 'not_started';
      if (this.#isReady(node)) this.#push(node);
      return;
    }
    if (event.type === 'replan-applied' || event.type === 'steps-added') {
      const removed = event.type === 'replan-applied' ? event.removed : [];
      for (const id of removed) {
        const node = this.#nodes.get(id);
        if (node === undefined) continue;
        for (const depId of node.deps) this.#nodes.get(depId)?.dependents.delete(id);
        this.#nodes.delete(id);
      }
      for (const step of event.added) {
        this.#nodes.set(step.id, {
          id: step.id,
          deps: [...step.dependsOn],
          dependents: new Set(),
          status: step.status,
          unmet: 0,
          pos: 0,
          level: 1,
        });
      }
      for (const step of event.added) this.#wire(this.#nodes.get(step.id)!);
      this.#computeLevels();
      // Positions shift after an insertion: renumber and rebuild the heap.
      for (const [pos, id] of plan.stepIds.entries()) {
        const node = this.#nodes.get(id);
        if (node !== undefined) node.pos = pos;
      }
      this.#heap = [];
      for (const node of this.#nodes.values()) if (this.#isReady(node)) this.#push(node);
    }
  }

  /** Longest chain to a sink, in steps (a reverse topological sweep; O(steps + edges)). */
  #computeLevels(): void {
    if (this.#order === 'display') return;
    const pending = new Map<Node, number>();
    const stack: Node[] = [];
    for (const node of this.#nodes.values()) {
      let count = 0;
      for (const id of node.dependents) if (this.#nodes.has(id)) count++;
      pending.set(node, count);
      if (count === 0) stack.push(node);
    }
    while (stack.length > 0) {
      const node = stack.pop()!;
      let level = 1;
      for (const id of node.dependents) {
        const down = this.#nodes.get(id);
        if (down !== undefined && down.level + 1 > level) level = down.level + 1;
      }
      node.level = level;
      for (const depId of node.deps) {
        const dep = this.#nodes.get(depId);
        if (dep === undefined) continue;
        const left = pending.get(dep)! - 1;
        pending.set(dep, left);
        if (left === 0) stack.push(dep);
      }
    }
  }

  /** True when `a` should run before `b`. */
  #before(a: Node, b: Node): boolean {
    if (this.#order === 'critical-path' && a.level !== b.level) return a.level > b.level;
    return a.pos < b.pos;
  }

  #push(node: Node): void {
    const heap = this.#heap;
    heap.push(node);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#before(node, heap[parent]!)) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = node;
  }

  #pop(): Node {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && this.#before(heap[right]!, heap[left]!) ? right : left;
        if (!this.#before(heap[child]!, last)) break;
        heap[index] = heap[child]!;
        index = child;
      }
      heap[index] = last;
    }
    return top;
  }
}
