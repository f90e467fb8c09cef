import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatDuration } from '../../run-state/format';
import {
  pendingApprovals,
  type RunState,
  type StepState,
  stepVisual,
  stepVisuals,
  visualLabel,
} from '../../run-state/run-state';
import { edgePath, layoutGraph, nodeHeight, nodeWidth } from '../graph-layout';

function statusLine(step: StepState, waiting: boolean): string {
  const key = stepVisual(step);
  if (key === 'replaced') return `replaced by ${step.replacedBy.join(', ')}`;
  if (waiting) return 'awaiting approval';
  if (step.interrupted && key === 'in_progress') return 'interrupted';
  let line = visualLabel(key);
  if (step.runs > 1) line += ` · run ${step.runs}`;
  return line;
}

/** Below this share of its natural size the picture stops shrinking and scrolls instead. */
const minScale = 0.6;

/**
 * The plan as a graph laid out by dagre: HTML step boxes (focusable, selectable) over an SVG of
 * the edges. Replaced steps stay, faded, with a dashed edge to their redesign.
 */
export function PlanGraph(props: {
  state: RunState;
  revision: number;
  selected: string | null;
  onSelect: (key: string) => void;
  emptyText: string;
}) {
  const { state, revision } = props;
  const layout = useMemo(() => layoutGraph(state), [state, revision]);
  const box = useRef<HTMLDivElement>(null);
  const [available, setAvailable] = useState(0);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setAvailable(element.clientWidth - 16));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const waitingSteps = new Set(pendingApprovals(state).map((approval) => approval.stepId));
  const scale =
    layout.width > 0 && available > 0 ? Math.max(minScale, Math.min(1, available / layout.width)) : 1;

  return (
    <div class="dag" ref={box} id="dag">
      {layout.nodes.length === 0 ? (
        <p class="empty">{props.emptyText}</p>
      ) : (
        <div
          class="dag-frame"
          style={{ width: `${layout.width * scale}px`, height: `${layout.height * scale}px` }}
        >
          <div
            class="dag-canvas"
            style={{ width: `${layout.width}px`, height: `${layout.height}px`, transform: `scale(${scale})` }}
          >
            <svg class="dag-edges" width={layout.width} height={layout.height} aria-hidden="true">
              <defs>
                {(['arrow', 'arrow-replaced'] as const).map((id) => (
                  <marker
                    key={id}
                    id={id}
                    viewBox="0 0 10 10"
                    refX="9"
                    refY="5"
                    markerWidth="7"
                    markerHeight="7"
                    orient="auto"
                  >
                    <path
                      d="M 0 0 L 10 5 L 0 10 z"
                      class={`arrow-head${id === 'arrow-replaced' ? ' arrow-head--replaced' : ''}`}
                    />
                  </marker>
                ))}
              </defs>
              {layout.edges.map((edge) => (
                <path
                  key={`${edge.kind}:${edge.from}:${edge.to}`}
                  class={`edge edge--${edge.kind}${edge.faded ? ' is-faded' : ''}`}
                  d={edgePath(edge.points)}
                  marker-end={edge.kind === 'replaced' ? 'url(#arrow-replaced)' : 'url(#arrow)'}
                  data-kind={edge.kind}
                  data-from={edge.from}
                  data-to={edge.to}
                />
              ))}
            </svg>
            {layout.nodes.map((node) => {
              const { step } = node;
              const key = stepVisual(step);
              const waiting = waitingSteps.has(step.id) && !step.removed;
              const duration =
                step.startedAt !== null && step.finishedAt !== null
                  ? formatDuration(step.finishedAt - step.startedAt)
                  : '';
              const calls = step.ledger.length;
              return (
                <button
                  type="button"
                  key={node.key}
                  class={`node node--${key}${step.interrupted ? ' is-interrupted' : ''}${waiting ? ' is-waiting' : ''}${props.selected === node.key ? ' is-selected' : ''}`}
                  style={{ left: `${node.x - nodeWidth / 2}px`, top: `${node.y - nodeHeight / 2}px` }}
                  data-step-id={step.id}
                  data-key={node.key}
                  data-status={key}
                  aria-pressed={props.selected === node.key}
                  title={`${step.title} (${step.id}): ${statusLine(step, waiting)}`}
                  onClick={() => props.onSelect(node.key)}
                >
                  <span class="node-title">{step.title}</span>
                  <span class="node-meta">
                    <span class="node-id">{step.id}</span>
                    <span class="node-calls">{`${calls} call${calls === 1 ? '' : 's'}`}</span>
                    {duration ? <span>{duration}</span> : null}
                  </span>
                  <span class="node-status">
                    <span class="node-dot" aria-hidden="true" />
                    {statusLine(step, waiting)}
                  </span>
                </button>
              );
            })}
          </div>
        </div>
      )}
    </div>
  );
}

/** The colour legend of the graph. */
export function Legend() {
  return (
    <ul class="legend" aria-label="Step colours">
      {stepVisuals.map((key) => (
        <li key={key} class={`legend-item legend--${key}`}>
          <span class="swatch" aria-hidden="true" />
          {visualLabel(key)}
        </li>
      ))}
    </ul>
  );
}
