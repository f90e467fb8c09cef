import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { excerpt } from '../../run-state/format';
import {
  type ApprovalState,
  pendingApprovals,
  type RunState,
  stepTitle,
  stopTone,
  type TimelineEntry,
  type UiStatus,
} from '../../run-state/run-state';

/** Timeline entries worth a line in the chat (the timeline panel has all of them). */
function inChat(entry: TimelineEntry): boolean {
  switch (entry.kind) {
    case 'plan':
    case 'replan':
    case 'steps-added':
    case 'step-reset':
    case 'goal':
      return true;
    case 'step-finished':
      return entry.tone === 'error';
    case 'run-started':
      return entry.text.startsWith('Resumed');
    case 'approval':
      return !entry.text.startsWith('Approval requested');
    default:
      return false;
  }
}

const icons: Record<string, string> = { info: '•', warn: '↻', error: '✕', success: '✓', neutral: '•' };

function ApprovalCard(props: {
  approval: ApprovalState;
  state: RunState;
  canAnswer: boolean;
  onAnswer: (approvalId: string, approved: boolean) => Promise<void>;
}) {
  const { approval } = props;
  const [sending, setSending] = useState(false);
  const answer = (approved: boolean) => {
    setSending(true);
    props.onAnswer(approval.approvalId, approved).finally(() => setSending(false));
  };
  return (
    <li class="msg msg--approval" data-approval-id={approval.approvalId}>
      <div class="approval">
        <p class="approval-title">
          Approval needed: “{stepTitle(props.state, approval.stepId)}”
          <span class="muted"> · {approval.kind}</span>
        </p>
        <p class="approval-reason">{approval.reason}</p>
        {approval.tool ? (
          <pre class="excerpt">{`${approval.tool}(${excerpt(approval.args, 300, { flat: true })})`}</pre>
        ) : null}
        {props.canAnswer ? (
          <div class="approval-actions">
            <button
              type="button"
              class="button button--danger"
              data-action="deny"
              disabled={sending}
              onClick={() => answer(false)}
            >
              Deny
            </button>
            <button
              type="button"
              class="button button--primary"
              data-action="approve"
              disabled={sending}
              onClick={() => answer(true)}
            >
              Approve
            </button>
          </div>
        ) : (
          <p class="muted">This run is not running in this server; resume it to be asked again.</p>
        )}
      </div>
    </li>
  );
}

/** The chat: the task, what happened in short, approvals to answer, the answer; and the composer. */
export function ChatPanel(props: {
  state: RunState;
  revision: number;
  status: UiStatus;
  runId: string | null;
  active: boolean;
  resumable: boolean;
  ended: boolean;
  crash: string | null;
  pendingTask: string | null;
  notice: string | null;
  hasModel: boolean | null;
  cancelling: boolean;
  resuming: boolean;
  onSend: (task: string, mode: 'single' | 'auto') => void;
  onCancel: () => void;
  onResume: () => void;
  onNewRun: () => void;
  onAnswer: (approvalId: string, approved: boolean) => Promise<void>;
}) {
  const { state, status } = props;
  const [task, setTask] = useState('');
  const [mode, setMode] = useState<'single' | 'auto'>('auto');
  const list = useRef<HTMLOListElement>(null);
  const locked = status.phase !== 'idle';
  useLayoutEffect(() => {
    const element = list.current;
    if (element && element.scrollHeight - element.scrollTop - element.clientHeight < 160)
      element.scrollTop = element.scrollHeight;
  }, [props.revision, props.notice]);
  const send = (event: Event) => {
    event.preventDefault();
    if (locked) return;
    props.onSend(task.trim(), mode);
    setTask('');
  };
  const placeholder = locked
    ? 'The input is locked while the agent works.'
    : props.hasModel === false
      ? 'No model is configured: leave this empty to run the built-in offline demo (start the server with --provider for typed tasks).'
      : 'Describe a task — or leave it empty to run the built-in offline demo.';
  const pending = pendingApprovals(state);

  return (
    <section class="panel chat" aria-labelledby="chat-title">
      <div class="panel-head">
        <h2 id="chat-title">Chat</h2>
        {!locked && props.runId ? (
          <button type="button" id="new-run" class="link-button" onClick={props.onNewRun}>
            New run
          </button>
        ) : null}
      </div>
      <ol id="messages" class="messages" aria-live="polite" ref={list}>
        {!state.timeline.length && !props.pendingTask && !props.notice && !props.runId ? (
          <li class="msg msg--intro">
            <p>
              Ask for a task. The agent plans it as a graph of steps, runs each step with real tool calls, and
              every step is verified against evidence before it counts.
            </p>
            <p class="muted">Failed steps are redesigned by the replanner — watch it happen in the plan.</p>
          </li>
        ) : null}
        {props.pendingTask && !state.request ? (
          <li class="msg msg--user">
            <div class="bubble">{props.pendingTask}</div>
          </li>
        ) : null}
        {state.request ? (
          <li class="msg msg--user">
            <div class="bubble">{state.request}</div>
          </li>
        ) : null}
        {state.timeline.filter(inChat).map((entry, index) => (
          <li key={index} class={`msg msg--event msg--${entry.tone}`}>
            <span class="msg-icon" aria-hidden="true">
              {icons[entry.tone]}
            </span>
            <span class="msg-text">{entry.text}</span>
          </li>
        ))}
        {pending.map((approval) => (
          <ApprovalCard
            key={approval.approvalId}
            approval={approval}
            state={state}
            canAnswer={props.active}
            onAnswer={props.onAnswer}
          />
        ))}
        {state.finished ? (
          <li class="msg msg--answer">
            <div class="bubble">
              <span class={`stop stop--${stopTone(state.finished.stopReason)}`}>
                {state.finished.stopReason}
              </span>
              <div class="answer-text">{state.finished.answer || state.finished.reason}</div>
            </div>
          </li>
        ) : null}
        {props.ended && !state.finished && state.runId ? (
          <li class="msg msg--event msg--error">
            <span class="msg-icon">✕</span>
            <span class="msg-text">
              {props.crash
                ? `The run crashed: ${props.crash}`
                : 'The run stopped before it finished (the server restarted or the process died).'}
            </span>
          </li>
        ) : null}
        {props.resumable && !props.active ? (
          <li class="msg msg--resume">
            <p>This run was interrupted; it can continue from its journal (completed steps are kept).</p>
            <button
              type="button"
              id="resume"
              class="button button--primary"
              disabled={props.resuming}
              onClick={props.onResume}
            >
              {props.resuming ? 'Resuming…' : 'Resume'}
            </button>
          </li>
        ) : null}
        {props.notice ? (
          <li class="msg msg--event msg--error" role="alert">
            <span class="msg-icon">✕</span>
            <span class="msg-text" id="notice">
              {props.notice}
            </span>
          </li>
        ) : null}
      </ol>
      <form id="composer" class="composer" autocomplete="off" onSubmit={send}>
        <label class="sr-only" for="task">
          Task
        </label>
        <textarea
          id="task"
          name="task"
          rows={3}
          maxLength={20000}
          value={task}
          disabled={locked}
          placeholder={placeholder}
          onInput={(event) => setTask(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) send(event);
          }}
        />
        <fieldset class="mode">
          <legend>Execution mode</legend>
          {(
            [
              ['single', 'Single step', 'at most one successful action per step — fine control'],
              ['auto', 'Auto', 'several actions in a row — run it through'],
            ] as const
          ).map(([value, name, hint]) => (
            <label key={value} class="mode-option">
              <input
                type="radio"
                name="mode"
                value={value}
                checked={mode === value}
                disabled={locked}
                onChange={() => setMode(value)}
              />
              <span class="mode-text">
                <span class="mode-name">{name}</span>
                <span class="mode-hint">{hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <div class="composer-actions">
          <p id="activity" class="activity" data-phase={status.phase} aria-live="polite">
            <span class="spinner" aria-hidden="true" />
            <span class="activity-text">{locked ? status.text : ''}</span>
            <span class="activity-detail">{locked ? status.detail : ''}</span>
          </p>
          <button
            type="button"
            id="cancel"
            class="button button--secondary"
            disabled={!locked || props.cancelling || !props.runId}
            onClick={props.onCancel}
          >
            {props.cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
          <button type="submit" id="send" class="button button--primary" disabled={locked}>
            Send
          </button>
        </div>
      </form>
    </section>
  );
}
