import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type UiStatus, uiStatus } from '../run-state/run-state';
import type { ModelInfo } from '../runner/select-model';
import type { RunListEntry } from '../server/api-types';
import { api, failureNotice, readHashRunId } from './api';
import { ChatPanel } from './components/chat-panel';
import { Legend, PlanGraph } from './components/plan-graph';
import { SidePanel } from './components/side-panel';
import { StepDetail } from './components/step-detail';
import { useRun } from './use-run';

const connectionLabels = {
  none: '',
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
} as const;

function Header(props: {
  status: UiStatus;
  model: ModelInfo | null;
  modelKnown: boolean;
  modelBusy: boolean;
  runId: string | null;
  connection: keyof typeof connectionLabels;
  recent: RunListEntry[];
  onOpen: (runId: string) => void;
}) {
  const { model } = props;
  return (
    <header class="topbar">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true" />
        <span class="brand-name">closedloop</span>
        <span class="brand-tagline">agents that prove their work</span>
      </div>
      <div class="run-meta">
        <span
          id="model"
          class="model-chip"
          data-busy={props.modelBusy}
          title={
            model ? `Model: ${model.provider}/${model.modelId}` : 'No model is configured for typed tasks'
          }
        >
          <span class="model-label">model</span>
          <span class="model-name">
            {model ? `${model.provider}/${model.modelId}` : props.modelKnown ? 'none · demo only' : '…'}
          </span>
        </span>
        {props.runId ? (
          <span id="run-id" class="run-id" title={props.runId}>
            {`Run ${props.runId}`}
          </span>
        ) : null}
        <span id="connection" class="connection" data-state={props.connection}>
          {connectionLabels[props.connection]}
        </span>
        <label class="sr-only" for="recent-runs">
          Open a recent run
        </label>
        <select
          id="recent-runs"
          class="recent-runs"
          value=""
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (value) props.onOpen(value);
          }}
        >
          <option value="">Recent runs…</option>
          {props.recent.slice(0, 30).map((run) => (
            <option key={run.runId} value={run.runId}>
              {`${run.runId} — ${new Date(run.updatedAt).toLocaleString()}${run.active ? ' (running)' : ''}`}
            </option>
          ))}
        </select>
      </div>
      <div class="status-pill" data-phase={props.status.phase} role="status" aria-live="polite">
        <span class="status-dot" aria-hidden="true" />
        <span id="status-text">{props.status.text}</span>
      </div>
    </header>
  );
}

/** The page: header, chat, plan graph, step detail, timeline and report. */
export function App() {
  const [runId, setRunId] = useState<string | null>(readHashRunId());
  const [configModel, setConfigModel] = useState<{ model: ModelInfo | null } | null>(null);
  const [recent, setRecent] = useState<RunListEntry[]>([]);
  const [starting, setStarting] = useState(false);
  const [pendingTask, setPendingTask] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [resuming, setResuming] = useState(false);
  /** `run.loads` when the resume was accepted: resuming lasts until the run was read again. */
  const resumedAtLoad = useRef<number | null>(null);
  /** The run this page just started: it counts as starting until its journal was read. */
  const [justStarted, setJustStarted] = useState<string | null>(null);
  const run = useRun(runId);
  const { state } = run;

  const refreshRecent = useCallback(() => {
    api.listRuns().then(
      (answer) => setRecent(answer.runs),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    api.config().then(
      (answer) => setConfigModel({ model: answer.model }),
      () => setConfigModel({ model: null }),
    );
    refreshRecent();
    const onHash = () => setRunId(readHashRunId());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [refreshRecent]);
  useEffect(() => {
    setSelected(null);
    setCancelling(false);
    setResuming(false);
    resumedAtLoad.current = null;
    if (!starting) setPendingTask(null);
  }, [runId]);
  useEffect(() => {
    if (run.ended) refreshRecent();
  }, [run.ended, refreshRecent]);
  useEffect(() => {
    if (run.loadError) setNotice(`Could not open run ${runId}: ${run.loadError}`);
  }, [run.loadError, runId]);

  const open = (id: string | null) => {
    setNotice(null);
    if (id === null) history.replaceState(null, '', location.pathname + location.search);
    else location.hash = `run=${encodeURIComponent(id)}`;
    setRunId(id);
  };

  // Between "run started" (POST answered) and its first event the run is live but the state is empty.
  const waiting =
    starting ||
    (justStarted !== null && justStarted === runId && !run.loaded) ||
    (run.active && state.runId === null && !run.ended);
  // After a resume the journal read first still ends with the stop it resumes from, until the
  // resumed run's first event arrives: the run is busy then, not idle with its old answer.
  const resumingRun = resuming || (run.active && !run.ended && state.finished !== null);
  const status = waiting
    ? uiStatus(state, { starting: true, resuming: resumingRun })
    : uiStatus(state, { ended: !resuming && (run.ended || !run.active), resuming: resumingRun });
  const modelBusy = state.openModelCalls.size > 0;

  const send = async (task: string, mode: 'single' | 'auto') => {
    setNotice(null);
    setStarting(true);
    setPendingTask(task || 'Run the built-in offline demo');
    try {
      const answer = await api.startRun(task ? { task, mode } : { mode });
      setJustStarted(answer.runId);
      open(answer.runId);
      refreshRecent();
    } catch (error) {
      setPendingTask(null);
      // The server's message is complete ("No model is configured…", "The run could not start: …").
      setNotice(failureNotice('Start failed', error));
    } finally {
      setStarting(false);
    }
  };
  const cancel = async () => {
    if (!runId) return;
    setCancelling(true);
    try {
      await api.cancelRun(runId);
    } catch (error) {
      setCancelling(false);
      setNotice(failureNotice('Cancel failed', error));
    }
  };
  const resume = async () => {
    if (!runId) return;
    setNotice(null);
    setResuming(true);
    try {
      await api.resumeRun(runId);
      resumedAtLoad.current = run.loads;
      run.reload();
      refreshRecent();
    } catch (error) {
      setNotice(failureNotice('Resume failed', error));
      setResuming(false);
    }
  };
  useEffect(() => {
    if (resumedAtLoad.current !== null && run.loads > resumedAtLoad.current) {
      resumedAtLoad.current = null;
      setResuming(false);
    }
  }, [run.loads]);
  const answer = async (approvalId: string, approved: boolean) => {
    if (!runId) return;
    try {
      await api.answerApproval(runId, approvalId, { approved });
    } catch (error) {
      setNotice(failureNotice('The answer was not taken', error));
    }
  };

  let emptyText = 'Send a task to see its plan here.';
  if (starting || (state.runId && !state.finished && !run.ended)) emptyText = 'Drafting the plan…';
  else if (state.runId) emptyText = 'This run has no plan.';

  return (
    <div class="page" data-phase={status.phase}>
      <Header
        status={status}
        model={run.model ?? configModel?.model ?? null}
        modelKnown={configModel !== null}
        modelBusy={modelBusy}
        runId={runId}
        connection={run.connection}
        recent={recent}
        onOpen={open}
      />
      <main class="layout">
        <ChatPanel
          state={state}
          revision={run.revision}
          status={status}
          runId={runId}
          active={run.active}
          resumable={run.resumable}
          ended={run.ended}
          crash={run.crash}
          pendingTask={pendingTask}
          notice={notice}
          hasModel={configModel === null ? null : configModel.model !== null}
          cancelling={cancelling && !state.finished}
          resuming={resuming}
          onSend={send}
          onCancel={cancel}
          onResume={resume}
          onNewRun={() => open(null)}
          onAnswer={answer}
        />
        <section class="panel dag-panel" aria-labelledby="plan-title">
          <div class="panel-head">
            <h2 id="plan-title">Plan</h2>
            <Legend />
          </div>
          <PlanGraph
            state={state}
            revision={run.revision}
            selected={selected}
            onSelect={(key) => setSelected((current) => (current === key ? null : key))}
            emptyText={emptyText}
          />
        </section>
        <section class="panel detail-panel" aria-labelledby="detail-title">
          <div class="panel-head">
            <h2 id="detail-title">Step detail</h2>
          </div>
          <div id="detail" class="panel-body">
            <StepDetail runId={runId} state={state} stepKey={selected} revision={run.revision} />
          </div>
        </section>
        <SidePanel state={state} revision={run.revision} ended={run.ended || !run.active} />
      </main>
    </div>
  );
}
