import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { RunState, StepState } from '../run-state/run-state';

/** Size of a step's box in the picture (px). */
export const nodeWidth = 216;
export const nodeHeight = 68;

/** A laid-out step: the centre of its box. */
export interface GraphNode {
  key: string;
  step: StepState;
  x: number;
  y: number;
}

/** A laid-out edge: `dependency` (from a dependency to its dependent) or `replaced` (a removed step to its redesign). */
export interface GraphEdge {
  kind: 'dependency' | 'replaced';
  from: string;
  to: string;
  /** Either end was replaced: drawn faded. */
  faded: boolean;
  points: Array<{ x: number; y: number }>;
}

export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

/** Points of a "replaced by" edge between two laid-out boxes (not part of the layering). */
function replacementPoints(from: GraphNode, to: GraphNode): Array<{ x: number; y: number }> {
  if (Math.abs(from.x - to.x) < nodeWidth / 2) {
    // Same column (the usual case: a redesign depends on what the replaced step depended on):
    // loop out on the left side.
    const x = Math.min(from.x, to.x) - nodeWidth / 2;
    const bend = 22 + Math.abs(to.y - from.y) / 8;
    return [
      { x, y: from.y },
      { x: x - bend, y: from.y },
      { x: x - bend, y: to.y },
      { x: x - 3, y: to.y },
    ];
  }
  const forward = to.x > from.x;
  const x1 = from.x + (forward ? nodeWidth / 2 : -nodeWidth / 2);
  const x2 = to.x + (forward ? -nodeWidth / 2 : nodeWidth / 2);
  return [
    { x: x1, y: from.y },
    { x: (x1 + x2) / 2, y: from.y },
    { x: (x1 + x2) / 2, y: to.y },
    { x: x2, y: to.y },
  ];
}

/**
 * Lays out the plan left to right with dagre (layered, crossing-minimised) from the dependency
 * edges: every step, replaced ones included. A redesigned step usually depends on what the step
 * it replaced depended on, so it lands in the same column; its "replaced by" edge is drawn
 * around the left side. Unknown dependencies are skipped; dagre breaks cycles itself.
 */
export function layoutGraph(state: RunState): GraphLayout {
  const graph = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true });
  graph.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 56, edgesep: 10, marginx: 40, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const key of state.order) graph.setNode(key, { width: nodeWidth, height: nodeHeight });
  const dependencies: Array<Omit<GraphEdge, 'points'>> = [];
  const replacements: Array<Omit<GraphEdge, 'points'>> = [];
  for (const key of state.order) {
    const step = state.steps.get(key);
    if (!step) continue;
    for (const dependency of step.dependsOn) {
      // A dependency names a step id; the live step with that id has it as its key.
      const from = state.steps.get(dependency);
      if (!from || from.key === key) continue;
      dependencies.push({ kind: 'dependency', from: from.key, to: key, faded: from.removed || step.removed });
    }
    if (step.drawnFrom !== null && state.steps.has(step.drawnFrom)) {
      replacements.push({ kind: 'replaced', from: step.drawnFrom, to: key, faded: false });
    }
  }
  dependencies.forEach((edge, index) => {
    graph.setEdge(edge.from, edge.to, {}, String(index));
  });
  dagre.layout(graph);
  const nodes = state.order.flatMap((key) => {
    const step = state.steps.get(key);
    const node = graph.node(key);
    return step && node ? [{ key, step, x: node.x ?? 0, y: node.y ?? 0 }] : [];
  });
  const byKey = new Map(nodes.map((node) => [node.key, node]));
  const edges: GraphEdge[] = dependencies.map((edge, index) => ({
    ...edge,
    points: (graph.edge({ v: edge.from, w: edge.to, name: String(index) })?.points ?? []).map((point) => ({
      x: point.x,
      y: point.y,
    })),
  }));
  for (const edge of replacements) {
    const from = byKey.get(edge.from);
    const to = byKey.get(edge.to);
    if (from && to) edges.push({ ...edge, points: replacementPoints(from, to) });
  }
  const size = graph.graph();
  return { nodes, edges, width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0) };
}
/** An SVG path through an edge's points, smoothed with quadratic curves at the bends. */
export function edgePath(points: ReadonlyArray<{ x: number; y: number }>): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let path = `M ${first.x.toFixed(1)} ${first.y.toFixed(1)}`;
  for (let index = 0; index < rest.length; index++) {
    const point = rest[index]!;
    const after = rest[index + 1];
    if (!after) {
      path += ` L ${point.x.toFixed(1)} ${point.y.toFixed(1)}`;
      break;
    }
    const midX = (point.x + after.x) / 2;
    const midY = (point.y + after.y) / 2;
    path += ` Q ${point.x.toFixed(1)} ${point.y.toFixed(1)} ${midX.toFixed(1)} ${midY.toFixed(1)}`;
  }
  return path;
}
