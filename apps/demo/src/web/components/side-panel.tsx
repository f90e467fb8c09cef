import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { formatDuration } from '../../run-state/format';
import { type RunState, stopTone } from '../../run-state/run-state';
import { bySeverity, FindingItem, Tabs } from './bits';

type SideTab = 'timeline' | 'report';

const kindIcons: Record<string, string> = {
  'run-started': '▶',
  plan: '◇',
  'step-started': '›',
  'step-finished': '■',
  'tool-call': '⚙',
  'tool-error': '✕',
  finding: '!',
  replan: '↻',
  'steps-added': '+',
  'step-reset': '↺',
  goal: '◎',
  approval: '?',
  'run-finished': '■',
  note: '•',
};

function Timeline(props: { state: RunState; revision: number }) {
  const { state } = props;
  const [tools, setTools] = useState(true);
  const list = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => {
    const element = list.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [props.revision, tools]);
  const start = state.startedAt ?? state.timeline[0]?.at ?? 0;
  const entries = state.timeline.filter((entry) => tools || entry.kind !== 'tool-call');
  return (
    <div class="timeline-wrap">
      <label class="toggle">
        <input type="checkbox" checked={tools} onChange={(event) => setTools(event.currentTarget.checked)} />{' '}
        tool calls
      </label>
      {entries.length === 0 ? (
        <p class="empty">Every event of the run appears here, in order.</p>
      ) : (
        <ol
          class="timeline"
          id="timeline"
          ref={list}
          onScroll={(event) => {
            const element = event.currentTarget;
            stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
          }}
        >
          {entries.map((entry, index) => (
            <li key={index} class={`tl tl--${entry.tone}`} data-kind={entry.kind}>
              <span class="tl-time">+{formatDuration(Math.max(0, entry.at - start)) || '0 ms'}</span>
              <span class="tl-icon" aria-hidden="true">
                {kindIcons[entry.kind] ?? '•'}
              </span>
              <span class="tl-text">{entry.text}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function Report(props: { state: RunState; ended: boolean }) {
  const { state } = props;
  const { finished, usage } = state;
  const steps = [...state.steps.values()].filter((step) => !step.removed);
  const completed = steps.filter((step) => step.status === 'completed').length;
  const grid = (
    <dl class="usage">
      {(
        [
          ['Input tokens', usage.inputTokens.toLocaleString('en-US')],
          ['Output tokens', usage.outputTokens.toLocaleString('en-US')],
          ['Cost', `$${usage.costUsd.toFixed(4)}`],
          ['Model calls', String(usage.modelCalls)],
          ['Steps completed', `${completed} / ${steps.length}`],
          ['Replans', String(state.replans.length)],
        ] as const
      ).map(([label, value]) => (
        <div key={label} class="usage-cell">
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
  if (!finished) {
    return (
      <>
        <p class="empty">
          {state.runId && !props.ended
            ? 'The report appears when the run finishes.'
            : state.runId
              ? 'The run did not finish.'
              : 'No run yet.'}
        </p>
        {state.runId ? grid : null}
      </>
    );
  }
  const failingGoal = state.goalFindings.filter(
    (finding) => finding.status !== 'pass' && finding.status !== 'skip',
  );
  return (
    <>
      <div class="report-head">
        <span class={`stop stop--${stopTone(finished.stopReason)}`} data-testid="stop-reason">
          {finished.stopReason}
        </span>
        {state.startedAt !== null ? (
          <span class="muted">after {formatDuration(finished.at - state.startedAt)}</span>
        ) : null}
      </div>
      <p class="reason">{finished.reason}</p>
      {finished.error ? <p class="step-error">{finished.error.message}</p> : null}
      <h4>Answer</h4>
      <div class="answer">{finished.answer || '—'}</div>
      <h4>Usage</h4>
      {grid}
      {failingGoal.length ? (
        <>
          <h4>Goal findings</h4>
          <ul class="findings">
            {[...failingGoal].sort(bySeverity).map((finding) => (
              <FindingItem key={`${finding.check}:${finding.message}`} finding={finding} />
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}

/** Timeline of every event, and the final report, as two tabs. */
export function SidePanel(props: { state: RunState; revision: number; ended: boolean }) {
  const [tab, setTab] = useState<SideTab>('timeline');
  return (
    <section class="panel side-panel" aria-label="Timeline and report">
      <div class="panel-head">
        <Tabs<SideTab>
          label="Run views"
          selected={tab}
          onSelect={setTab}
          tabs={[
            {
              id: 'timeline',
              label: (
                <>
                  Timeline <span class="count">{props.state.timeline.length}</span>
                </>
              ),
            },
            { id: 'report', label: props.state.finished ? 'Report ✓' : 'Report' },
          ]}
        />
      </div>
      <div class="panel-body" id={tab === 'report' ? 'report' : 'timeline-panel'}>
        {tab === 'timeline' ? (
          <Timeline state={props.state} revision={props.revision} />
        ) : (
          <Report state={props.state} ended={props.ended} />
        )}
      </div>
    </section>
  );
}
