/** How deep and how large a JSON-like value is, measured without recursion. */
export interface JsonMeasure {
  /** Nesting depth (a scalar is 0, `{}` or `[]` is 1). */
  depth: number;
  /** Objects, arrays and scalars visited. */
  nodes: number;
  /** Stopped early because a limit was passed. */
  exceeded: boolean;
}

/**
 * Measures a JSON-like value iteratively (a deeply nested argument cannot overflow the stack
 * here), stopping as soon as `maxDepth` or `maxNodes` is passed. Cycles count as exceeding.
 */
export function measureJson(value: unknown, limits: { maxDepth: number; maxNodes: number }): JsonMeasure {
  const measure: JsonMeasure = { depth: 0, nodes: 0, exceeded: false };
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    measure.nodes++;
    if (current === null || typeof current !== 'object') {
      measure.depth = Math.max(measure.depth, depth);
    } else {
      if (seen.has(current)) {
        measure.exceeded = true;
        return measure;
      }
      seen.add(current);
      measure.depth = Math.max(measure.depth, depth + 1);
      const children = Array.isArray(current) ? current : Object.values(current);
      for (const child of children) stack.push([child, depth + 1]);
    }
    if (measure.depth > limits.maxDepth || measure.nodes > limits.maxNodes) {
      measure.exceeded = true;
      return measure;
    }
  }
  return measure;
}
