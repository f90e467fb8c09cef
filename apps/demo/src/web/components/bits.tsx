import type { ComponentChildren } from 'preact';
import type { StepFinding } from '../../run-state/run-state';

/** A small status label; `kind` picks its colours. */
export function Badge(props: { kind: string; children: ComponentChildren }) {
  return <span class={`badge badge--${props.kind}`}>{props.children}</span>;
}

const statusOrder: Record<string, number> = { fail: 0, error: 1, warn: 2, pass: 3, skip: 4 };

/** Failing findings first, then by priority (P0 before P2). */
export function bySeverity(a: { status: string; priority: string }, b: { status: string; priority: string }) {
  const status = (statusOrder[a.status] ?? 5) - (statusOrder[b.status] ?? 5);
  return status !== 0 ? status : a.priority.localeCompare(b.priority);
}

/** One verifier finding. */
export function FindingItem(props: { finding: Omit<StepFinding, 'attempt'> & { attempt?: number } }) {
  const { finding } = props;
  return (
    <li class={`finding finding--${finding.status}`}>
      <span class={`chip chip--${finding.priority}`}>{finding.priority}</span>
      <code class="finding-check">{finding.check}</code>
      <Badge kind={finding.status}>{finding.status}</Badge>
      <p class="finding-message">{finding.message}</p>
    </li>
  );
}

/** Tabs with buttons (roles for screen readers and tests). */
export function Tabs<T extends string>(props: {
  label: string;
  tabs: ReadonlyArray<{ id: T; label: ComponentChildren }>;
  selected: T;
  onSelect: (id: T) => void;
}) {
  return (
    <div class="tabs" role="tablist" aria-label={props.label}>
      {props.tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          class="tab"
          data-tab={tab.id}
          aria-selected={props.selected === tab.id}
          onClick={() => props.onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
