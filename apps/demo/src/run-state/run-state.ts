import type { FindingLike, RunEvent, RunEventOf, StopReason } from '@closedloop/cortex';
import type { StepClaims, StepId, StepStatus, VerificationRecord } from '@closedloop/plan';
import { excerpt } from './format';

/**
 * The one fold of a run's events that both views render: the CLI's terminal view and the web
 * UI (which imports this module into its bundle). Pure data, no DOM and no Node APIs: every
 * `RunEvent` the server streams, journaled or live-only, goes through {@link applyRunEvent}.
 */

/** One call of a step's tool-call ledger. */
export interface LedgerEntry {
  callId: string;
  tool: string;
  args: unknown;
  status: 'pending' | 'success' | 'error';
  result: string | null;
  error: string | null;
  /** The step's attempt (`step-started.attempt`) when the call was made. */
  attempt: number;
  calledAt: number;
  respondedAt: number | null;
  /** Last progress message the tool reported while running (live only). */
  progress: string | null;
}

/** A finding about a step, with the attempt it was reported in. */
export type StepFinding = FindingLike & { attempt: number };

/** An attempt archived when the step was reset to run again (`step-reset`). */
export interface ArchivedAttempt {
  ledger: LedgerEntry[];
  findings: StepFinding[];
  notes: string;
  reason: string;
}

/** One step as the views show it. */
export interface StepState {
  id: StepId;
  /** Key in `steps` and `order`: the id, or `id~n` once a later redesign reused the id. */
  key: string;
  title: string;
  description: string;
  dependsOn: StepId[];
  requiredTools: string[];
  successCriteria: string[];
  status: StepStatus;
  /** `step-started.attempt` of the latest start (0 before the first). */
  attempt: number;
  /** How many times the step started (resumes and resets included). */
  runs: number;
  unverified: boolean;
  verdict: string | null;
  confidence: number | null;
  error: string | null;
  notes: string;
  output: string | null;
  claims: StepClaims | null;
  files: string[];
  ledger: LedgerEntry[];
  findings: StepFinding[];
  verification: VerificationRecord | null;
  /** Removed by a redesign: kept, drawn faded, so the surgery stays visible. */
  removed: boolean;
  /** Still in progress when the run stopped (cancelled, deadline, crash): a resume decides. */
  interrupted: boolean;
  replacedBy: StepId[];
  replaces: StepId[];
  /** The removed step this redesigned step is drawn from (a dashed "replaced by" edge). */
  drawnFrom: string | null;
  startedAt: number | null;
  finishedAt: number | null;
  previousAttempts: ArchivedAttempt[];
  /** Model text streamed during the current attempt (`text-delta`; live only, never journaled). */
  liveText: string;
}

/** A human decision the run asked for. */
export interface ApprovalState {
  approvalId: string;
  stepId: StepId;
  kind: RunEventOf<'approval-requested'>['kind'];
  reason: string;
  tool: string | null;
  args: unknown;
  requestedAt: number;
  resolved: { approved: boolean; note: string | null; at: number } | null;
}

/** What a timeline entry is about (views filter on it). */
export type TimelineKind =
  | 'run-started'
  | 'plan'
  | 'step-started'
  | 'step-finished'
  | 'tool-call'
  | 'tool-error'
  | 'finding'
  | 'replan'
  | 'steps-added'
  | 'step-reset'
  | 'goal'
  | 'approval'
  | 'run-finished'
  | 'note';

/** How a timeline entry reads: colour in both views. */
export type Tone = 'neutral' | 'info' | 'success' | 'warn' | 'error';

/** One line of the run's timeline. */
export interface TimelineEntry {
  at: number;
  kind: TimelineKind;
  tone: Tone;
  stepId?: StepId;
  text: string;
}

/** How the run ended (`run-finished`). */
export interface FinishedState {
  stopReason: StopReason;
  reason: string;
  answer: string | null;
  answerSource: string | null;
  error: { code?: string; message: string } | null;
  at: number;
}

/** Everything the CLI and the web UI render, folded from the run's events. */
export interface RunState {
  runId: string | null;
  request: string | null;
  resumed: boolean;
  startedAt: number | null;
  steps: Map<string, StepState>;
  /** Step keys in display order; replaced steps stay where they stood. */
  order: string[];
  /** The plan is being drafted (run started, no plan yet). */
  planning: boolean;
  /** Replanner calls in flight. */
  replanning: number;
  /** Open model calls by `stepId:iteration:purpose`. */
  openModelCalls: Map<string, { stepId: StepId }>;
  /** Open tool calls by `stepId:callId`. */
  openToolCalls: Map<string, { stepId: StepId; tool: string }>;
  goalFindings: FindingLike[];
  goalChecks: Array<{ iteration: number; assessment: string; verdict: string | null }>;
  replans: Array<{ failed: StepId[]; removed: StepId[]; added: StepId[]; at: number }>;
  approvals: ApprovalState[];
  timeline: TimelineEntry[];
  usage: { inputTokens: number; outputTokens: number; costUsd: number; modelCalls: number };
  finished: FinishedState | null;
  /** Events folded so far (live-only ones included). */
  eventCount: number;
}

/** Longest streamed text kept per step (the tail is kept). */
const maxLiveText = 20_000;

/** A fresh, empty run. */
export function createRunState(): RunState {
  return {
    runId: null,
    request: null,
    resumed: false,
    startedAt: null,
    steps: new Map(),
    order: [],
    planning: false,
    replanning: 0,
    openModelCalls: new Map(),
    openToolCalls: new Map(),
    goalFindings: [],
    goalChecks: [],
    replans: [],
    approvals: [],
    timeline: [],
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 },
    finished: null,
    eventCount: 0,
  };
}

interface StepInput {
  id: StepId;
  title?: string | undefined;
  description: string;
  dependsOn?: StepId[] | undefined;
  requiredTools?: string[] | undefined;
  successCriteria?: string[] | undefined;
  replaces?: StepId[] | undefined;
}

function addStep(state: RunState, draft: StepInput): StepState {
  const step: StepState = {
    id: draft.id,
    key: draft.id,
    title: draft.title || draft.description || draft.id,
    description: draft.description ?? '',
    dependsOn: [...(draft.dependsOn ?? [])],
    requiredTools: [...(draft.requiredTools ?? [])],
    successCriteria: [...(draft.successCriteria ?? [])],
    status: 'not_started',
    attempt: 0,
    runs: 0,
    unverified: false,
    verdict: null,
    confidence: null,
    error: null,
    notes: '',
    output: null,
    claims: null,
    files: [],
    ledger: [],
    findings: [],
    verification: null,
    removed: false,
    interrupted: false,
    replacedBy: [],
    replaces: [...(draft.replaces ?? [])],
    drawnFrom: null,
    startedAt: null,
    finishedAt: null,
    previousAttempts: [],
    liveText: '',
  };
  state.steps.set(step.id, step);
  return step;
}

/** Moves a removed step whose id a later redesign reuses to a key of its own (it stays drawn). */
function archiveStep(state: RunState, step: StepState): void {
  let n = 1;
  while (state.steps.has(`${step.id}~${n}`)) n += 1;
  const key = `${step.id}~${n}`;
  state.steps.delete(step.id);
  state.order[state.order.indexOf(step.id)] = key;
  step.key = key;
  state.steps.set(key, step);
  for (const other of state.steps.values()) if (other.drawnFrom === step.id) other.drawnFrom = key;
}

/** The title of a step (or its id when unknown), for messages. */
export function stepTitle(state: RunState, id: string): string {
  return state.steps.get(id)?.title ?? id;
}

function log(state: RunState, entry: Omit<TimelineEntry, 'at'>, at: number): void {
  state.timeline.push({ at, ...entry });
}

function clearOpenCallsOf(state: RunState, stepId: StepId): void {
  for (const [key, call] of state.openModelCalls)
    if (call.stepId === stepId) state.openModelCalls.delete(key);
  for (const [key, call] of state.openToolCalls) if (call.stepId === stepId) state.openToolCalls.delete(key);
}

function findingTone(status: FindingLike['status']): Tone {
  if (status === 'fail' || status === 'error') return 'error';
  if (status === 'warn') return 'warn';
  return status === 'pass' ? 'success' : 'neutral';
}

/** The tone of a stop reason: completed is a success, cancelled neutral, the rest failures. */
export function stopTone(stopReason: string): Tone {
  if (stopReason === 'completed') return 'success';
  if (stopReason === 'completed-with-warnings') return 'warn';
  if (stopReason === 'cancelled') return 'neutral';
  return 'error';
}

function onStepFinished(state: RunState, event: RunEventOf<'step-finished'>): void {
  const step = state.steps.get(event.stepId);
  clearOpenCallsOf(state, event.stepId);
  if (!step) return;
  const at = event.at;
  if (event.status === 'interrupted') {
    step.status = 'in_progress';
    step.interrupted = true;
    step.finishedAt = at;
    log(
      state,
      { kind: 'step-finished', tone: 'warn', stepId: step.id, text: `“${step.title}” was interrupted` },
      at,
    );
    return;
  }
  step.status = event.status;
  step.interrupted = false;
  step.unverified = event.unverified;
  step.verdict = event.verdict ?? null;
  step.confidence = typeof event.confidence === 'number' ? event.confidence : null;
  step.error = event.error ?? null;
  step.finishedAt = at;
  if (event.status === 'failed') {
    const failing = step.findings.filter(
      (finding) => finding.attempt === step.attempt && finding.status === 'fail',
    );
    const why = failing[0]?.message ?? event.error ?? 'verification failed';
    log(
      state,
      {
        kind: 'step-finished',
        tone: 'error',
        stepId: step.id,
        text: `“${step.title}” failed verification: ${why}`,
      },
      at,
    );
  } else if (event.status === 'blocked') {
    const text = `“${step.title}” is blocked${event.error ? `: ${event.error}` : '.'}`;
    log(state, { kind: 'step-finished', tone: 'error', stepId: step.id, text }, at);
  } else {
    const text = event.unverified
      ? `“${step.title}” completed, unverified`
      : `“${step.title}” completed and verified`;
    log(
      state,
      { kind: 'step-finished', tone: event.unverified ? 'warn' : 'success', stepId: step.id, text },
      at,
    );
  }
}

function onReplanApplied(state: RunState, event: RunEventOf<'replan-applied'>): void {
  const added = event.added.map((step) => step.id);
  let insertAfter = -1;
  for (const id of event.removed) {
    const step = state.steps.get(id);
    if (step) {
      step.removed = true;
      insertAfter = Math.max(insertAfter, state.order.indexOf(id));
    }
  }
  const fresh: string[] = [];
  for (const draft of event.added) {
    const existing = state.steps.get(draft.id);
    if (existing && !existing.removed) continue;
    if (existing) archiveStep(state, existing);
    addStep(state, draft);
    fresh.push(draft.id);
  }
  const removedIds = event.removed.filter((id) => state.steps.has(id));
  for (const id of removedIds) {
    const step = state.steps.get(id);
    if (!step) continue;
    const explicit = fresh.filter((newId) => state.steps.get(newId)?.replaces.includes(id));
    step.replacedBy = explicit.length ? explicit : [...fresh];
  }
  // A new step's `replaces` lists the failed steps whose failure caused the redesign; the whole
  // removed subgraph (failed + downstream) is `event.removed`. For the picture each new step gets
  // one predecessor: the removed step with the same title, else the removed steps in order (by the
  // new step's position), preferring the failed ones.
  const titleOf = (id: string) => (state.steps.get(id)?.title ?? id).toLowerCase();
  const claimed = new Set<string>();
  const pairs = new Map<string, string>();
  for (const id of fresh) {
    const twin = removedIds.find((old) => titleOf(old) === titleOf(id));
    if (twin) {
      pairs.set(id, twin);
      claimed.add(twin);
    }
  }
  fresh.forEach((id, index) => {
    if (pairs.has(id)) return;
    const replaces = state.steps.get(id)?.replaces ?? [];
    const candidates = replaces.filter((old) => removedIds.includes(old));
    const pool = (candidates.length ? candidates : removedIds).filter((old) => !claimed.has(old));
    const fallback = pool.length ? pool : candidates.length ? candidates : removedIds;
    const chosen = fallback[Math.min(index, fallback.length - 1)];
    if (chosen !== undefined) pairs.set(id, chosen);
  });
  for (const [id, old] of pairs) {
    const step = state.steps.get(id);
    if (step) step.drawnFrom = old;
  }
  // Each new step goes right after the step it is drawn from (else after the last removed one),
  // after the new steps already placed there, so a redesign reads in its draft order.
  const lastRemoved = insertAfter === -1 ? null : (state.order[insertAfter] ?? null);
  const inserted = new Set<string>();
  for (const id of fresh) {
    const anchor = pairs.get(id) ?? lastRemoved;
    let position = anchor === null ? state.order.length : state.order.indexOf(anchor) + 1;
    while (position < state.order.length && inserted.has(state.order[position] ?? '')) position += 1;
    state.order.splice(position, 0, id);
    inserted.add(id);
  }
  state.replans.push({ failed: event.failed, removed: event.removed, added, at: event.at });
  const names = (ids: string[]) => ids.map((id) => stepTitle(state, id)).join(', ');
  log(
    state,
    { kind: 'replan', tone: 'warn', text: `Replanned: ${names(event.removed)} → ${names(added)}` },
    event.at,
  );
}

function onStepsAdded(state: RunState, event: RunEventOf<'steps-added'>): void {
  // Steps inserted without removing any (goal-level repair): placed at the plan's insertAt,
  // counted among the live (not replaced) steps.
  const live = state.order.filter((key) => !state.steps.get(key)?.removed);
  const before = live[event.insertAt];
  let position = before === undefined ? state.order.length : state.order.indexOf(before);
  for (const draft of event.added) {
    if (state.steps.has(draft.id)) continue;
    addStep(state, draft);
    state.order.splice(position, 0, draft.id);
    position += 1;
  }
  const titles = event.added.map((draft) => draft.title || draft.id).join(', ');
  log(state, { kind: 'steps-added', tone: 'info', text: `Added: ${titles}` }, event.at);
}

function onStepReset(state: RunState, event: RunEventOf<'step-reset'>): void {
  // The step runs again from scratch: its earlier ledger and findings move to its history.
  const step = state.steps.get(event.stepId);
  if (!step) return;
  step.previousAttempts.push({
    ledger: step.ledger,
    findings: step.findings,
    notes: step.notes,
    reason: event.reason,
  });
  step.status = 'not_started';
  step.ledger = [];
  step.findings = [];
  step.notes = '';
  step.liveText = '';
  step.finishedAt = null;
  step.interrupted = false;
  step.unverified = false;
  step.verdict = null;
  step.error = null;
  log(
    state,
    {
      kind: 'step-reset',
      tone: 'info',
      stepId: step.id,
      text: `Running “${step.title}” again: ${event.reason}`,
    },
    event.at,
  );
}

function onToolCallFinished(state: RunState, event: RunEventOf<'tool-call-finished'>): void {
  const step = state.steps.get(event.stepId);
  if (step) {
    for (let index = step.ledger.length - 1; index >= 0; index -= 1) {
      const call = step.ledger[index];
      if (call && call.callId === event.callId && call.status === 'pending') {
        call.status = event.status;
        call.result = event.result ?? null;
        call.error = event.error ?? null;
        call.respondedAt = event.at;
        if (event.status === 'error') {
          const text = `${event.stepId} ✗ ${call.tool}: ${excerpt(event.error ?? 'error', 160)}`;
          log(state, { kind: 'tool-error', tone: 'error', stepId: event.stepId, text }, event.at);
        }
        break;
      }
    }
  }
  state.openToolCalls.delete(`${event.stepId}:${event.callId}`);
}

/** Approvals nobody answered before the run stopped: no longer pending (nothing waits for them). */
function expireApprovals(state: RunState, at: number): void {
  for (const approval of state.approvals) {
    approval.resolved ??= { approved: false, note: 'not answered before the run stopped', at };
  }
}

/**
 * Folds one event into the state (mutates it and returns it). Events of unknown types (from a
 * newer server) are counted and ignored.
 */
export function applyRunEvent(state: RunState, event: RunEvent): RunState {
  state.eventCount += 1;
  if (!event || typeof event.type !== 'string') return state;
  const at = event.at;
  switch (event.type) {
    case 'run-started':
      state.runId = event.runId;
      state.request = event.request;
      state.resumed = event.resumed;
      state.startedAt ??= at;
      // A resumed run goes on: the stop it resumes from is history (still in the timeline), and
      // questions of the interrupted session are asked again under new ids.
      state.finished = null;
      expireApprovals(state, at);
      state.planning = state.steps.size === 0;
      log(
        state,
        {
          kind: 'run-started',
          tone: 'info',
          text: event.resumed ? `Resumed run ${event.runId} from its journal` : `Started run ${event.runId}`,
        },
        at,
      );
      break;
    case 'plan-created': {
      state.planning = false;
      for (const draft of event.steps) {
        if (state.steps.has(draft.id)) continue;
        addStep(state, draft);
        state.order.push(draft.id);
      }
      const titles = event.steps.map((draft) => draft.title || draft.id);
      const count = `${titles.length} step${titles.length === 1 ? '' : 's'}`;
      log(state, { kind: 'plan', tone: 'info', text: `Planned ${count}: ${titles.join(' → ')}` }, at);
      break;
    }
    case 'plan-drafted':
      state.planning = false;
      break;
    case 'step-started': {
      const step = state.steps.get(event.stepId);
      if (!step) break;
      step.status = 'in_progress';
      step.attempt = event.attempt;
      step.runs += 1;
      step.startedAt = at;
      step.finishedAt = null;
      step.unverified = false;
      step.interrupted = false;
      step.error = null;
      step.liveText = '';
      const again = step.runs > 1 ? ` (run ${step.runs})` : '';
      log(
        state,
        { kind: 'step-started', tone: 'neutral', stepId: step.id, text: `Started “${step.title}”${again}` },
        at,
      );
      break;
    }
    case 'step-marked': {
      const step = state.steps.get(event.stepId);
      if (!step) break;
      if (event.status) step.status = event.status;
      if (typeof event.notes === 'string') step.notes = event.notes;
      if (typeof event.output === 'string') step.output = event.output;
      if (Array.isArray(event.files)) step.files = [...event.files];
      if (event.claims) step.claims = event.claims;
      break;
    }
    case 'model-call-started': {
      state.openModelCalls.set(`${event.stepId}:${event.iteration}:${event.purpose}`, {
        stepId: event.stepId,
      });
      const step = state.steps.get(event.stepId);
      if (step?.liveText && !step.liveText.endsWith('\n\n')) step.liveText += '\n\n';
      break;
    }
    case 'model-call-finished':
      state.openModelCalls.delete(`${event.stepId}:${event.iteration}:${event.purpose}`);
      break;
    case 'text-delta': {
      const step = state.steps.get(event.stepId);
      if (!step) break;
      step.liveText += event.delta;
      if (step.liveText.length > maxLiveText) step.liveText = `…${step.liveText.slice(-maxLiveText)}`;
      break;
    }
    case 'tool-call-progress': {
      const call = state.steps.get(event.stepId)?.ledger.find((entry) => entry.callId === event.callId);
      if (call) call.progress = event.progress.message;
      break;
    }
    case 'tool-call-started': {
      const step = state.steps.get(event.stepId);
      if (step) {
        step.ledger.push({
          callId: event.callId,
          tool: event.tool,
          args: event.args,
          status: 'pending',
          result: null,
          error: null,
          attempt: step.attempt,
          calledAt: at,
          respondedAt: null,
          progress: null,
        });
      }
      state.openToolCalls.set(`${event.stepId}:${event.callId}`, { stepId: event.stepId, tool: event.tool });
      const text = `${event.stepId} → ${event.tool}(${excerpt(event.args, 60, { flat: true })})`;
      log(state, { kind: 'tool-call', tone: 'neutral', stepId: event.stepId, text }, at);
      break;
    }
    case 'tool-call-finished':
      onToolCallFinished(state, event);
      break;
    case 'step-finalized':
      for (const callId of event.pendingCallIds) state.openToolCalls.delete(`${event.stepId}:${callId}`);
      break;
    case 'step-verified': {
      const step = state.steps.get(event.stepId);
      if (step) step.verification = event.verification;
      break;
    }
    case 'finding-reported': {
      const { finding } = event;
      if (event.scope === 'step' && event.stepId) {
        const step = state.steps.get(event.stepId);
        if (step) step.findings.push({ ...finding, attempt: step.attempt });
      } else {
        state.goalFindings.push(finding);
      }
      if (finding.status !== 'pass') {
        const where = event.stepId ?? 'goal';
        log(
          state,
          {
            kind: 'finding',
            tone: findingTone(finding.status),
            ...(event.stepId ? { stepId: event.stepId } : {}),
            text: `${where}: [${finding.priority} ${finding.check}] ${finding.message}`,
          },
          at,
        );
      }
      break;
    }
    case 'step-finished':
      onStepFinished(state, event);
      break;
    case 'replan-requested':
      state.replanning += 1;
      break;
    case 'replan-finished':
      state.replanning = Math.max(0, state.replanning - 1);
      if (event.action !== 'redesign') {
        const what = event.action === 'give-up' ? 'gave up' : 'failed';
        log(
          state,
          {
            kind: 'replan',
            tone: 'error',
            text: `Replanner ${what}${event.message ? `: ${event.message}` : '.'}`,
          },
          at,
        );
      }
      break;
    case 'replan-applied':
      onReplanApplied(state, event);
      break;
    case 'steps-added':
      onStepsAdded(state, event);
      break;
    case 'step-reset':
      onStepReset(state, event);
      break;
    case 'goal-verified': {
      state.goalChecks.push({
        iteration: event.iteration,
        assessment: event.assessment,
        verdict: event.verdict ?? null,
      });
      if (event.findings.length) state.goalFindings = [...event.findings];
      const pass = event.assessment === 'all-pass';
      const text = `Goal verification (iteration ${event.iteration}): ${pass ? 'all checks pass' : event.assessment}`;
      log(state, { kind: 'goal', tone: pass ? 'success' : 'warn', text }, at);
      break;
    }
    case 'approval-requested': {
      state.approvals.push({
        approvalId: event.approvalId,
        stepId: event.stepId,
        kind: event.kind,
        reason: event.reason,
        tool: event.tool ?? null,
        args: event.args,
        requestedAt: at,
        resolved: null,
      });
      const what = event.tool ? ` (${event.tool})` : '';
      const text = `Approval requested for “${stepTitle(state, event.stepId)}”${what}: ${event.reason}`;
      log(state, { kind: 'approval', tone: 'warn', stepId: event.stepId, text }, at);
      break;
    }
    case 'approval-resolved': {
      for (const approval of state.approvals) {
        if (approval.approvalId === event.approvalId) {
          approval.resolved = { approved: event.approved, note: event.note ?? null, at };
        }
      }
      const verb = event.approved ? 'Approved' : 'Denied';
      const text = `${verb}: “${stepTitle(state, event.stepId)}”${event.note ? ` — ${event.note}` : ''}`;
      log(
        state,
        { kind: 'approval', tone: event.approved ? 'success' : 'error', stepId: event.stepId, text },
        at,
      );
      break;
    }
    case 'tool-call-reconciled': {
      // Resume settled a call that was in flight when the run stopped.
      const settled: Record<RunEventOf<'tool-call-reconciled'>['outcome'], string> = {
        applied: 'it had already taken effect, not run again',
        'not-applied': 'it had not taken effect, runs again',
        conflicting: 'its target changed another way, not run again',
        're-run': 'runs again',
        accepted: 'accepted as done, not run again',
        declined: 'not approved, the step needs review',
        failed: 'the step fails (onUncertain: fail)',
      };
      const tone: Tone =
        event.outcome === 'conflicting' || event.outcome === 'declined' || event.outcome === 'failed'
          ? 'warn'
          : 'info';
      const text = `Resumed ${event.tool} in “${stepTitle(state, event.stepId)}”: ${settled[event.outcome]} (${event.detail})`;
      log(state, { kind: 'note', tone, stepId: event.stepId, text }, at);
      break;
    }
    case 'journal-repaired':
      log(
        state,
        {
          kind: 'note',
          tone: 'warn',
          text: `Dropped a torn last journal record (${event.droppedBytes} bytes): pid ${event.holder.pid} on ${event.holder.host} died in the middle of writing it`,
        },
        at,
      );
      break;
    case 'usage-recorded':
      // One per model call of any purpose (planner, step, replanner, verifier, aggregate).
      state.usage.modelCalls += 1;
      state.usage.inputTokens += event.usage.inputTokens || 0;
      state.usage.outputTokens += event.usage.outputTokens || 0;
      state.usage.costUsd += event.costUsd || 0;
      break;
    case 'run-finished':
      state.finished = {
        stopReason: event.stopReason,
        reason: event.reason,
        answer: typeof event.answer === 'string' ? event.answer : null,
        answerSource: event.answerSource ?? null,
        error: event.error ?? null,
        at,
      };
      state.planning = false;
      state.replanning = 0;
      for (const step of state.steps.values()) if (step.status === 'in_progress') step.interrupted = true;
      expireApprovals(state, at);
      state.openModelCalls.clear();
      state.openToolCalls.clear();
      log(
        state,
        {
          kind: 'run-finished',
          tone: stopTone(event.stopReason),
          text: `Run finished: ${event.stopReason} — ${event.reason}`,
        },
        at,
      );
      break;
    default:
      break;
  }
  return state;
}

/** Folds a list of events into a fresh state. */
export function foldRunEvents(events: Iterable<RunEvent>): RunState {
  const state = createRunState();
  for (const event of events) applyRunEvent(state, event);
  return state;
}

/** Adds a line of the view's own to the timeline (e.g. where the workspace is). */
export function addNote(state: RunState, text: string, at: number): void {
  log(state, { kind: 'note', tone: 'info', text }, at);
}

/** The colour key of a step: its status, `unverified` for an unverified completion, `replaced` once redesigned away. */
export type StepVisual = StepStatus | 'unverified' | 'replaced';

/** Every visual key, in legend order. */
export const stepVisuals: readonly StepVisual[] = [
  'not_started',
  'in_progress',
  'completed',
  'unverified',
  'failed',
  'blocked',
  'skipped',
  'replaced',
];

const visualLabels: Record<StepVisual, string> = {
  not_started: 'not started',
  in_progress: 'in progress',
  completed: 'completed',
  unverified: 'completed · unverified',
  failed: 'failed',
  blocked: 'blocked',
  skipped: 'skipped',
  replaced: 'replaced',
};

/** The colour key of a step. */
export function stepVisual(step: StepState): StepVisual {
  if (step.removed) return 'replaced';
  if (step.status === 'completed' && step.unverified) return 'unverified';
  return step.status;
}

/** The human label of a visual key. */
export function visualLabel(key: StepVisual): string {
  return visualLabels[key];
}

/** Approvals still waiting for an answer. */
export function pendingApprovals(state: RunState): ApprovalState[] {
  return state.approvals.filter((approval) => approval.resolved === null);
}

/** What the run is doing now: idle, waiting for a model, or running tools and checks. */
export interface UiStatus {
  phase: 'idle' | 'thinking' | 'executing' | 'waiting';
  text: string;
  detail: string;
}

/**
 * What the input area shows: idle → the input is free; `thinking` while an LLM answer is awaited
 * (a model call is open, or the plan is being drafted or redesigned); `executing` while a tool
 * call runs (and while a started run is between calls: verification, scheduling). `waiting`
 * wins while an approval is pending (a human must act), and executing wins over thinking when
 * both happen in parallel steps. `resuming` (a resume was asked for, or the server runs the run
 * again while its events still end with the stop it resumes from) is busy, never idle.
 */
export function uiStatus(
  state: RunState,
  options: { starting?: boolean; ended?: boolean; resuming?: boolean } = {},
): UiStatus {
  const starting = options.starting === true;
  // A resume is under way but the resumed run's start is not in the events yet: the stop they end
  // with is the one being resumed from, not the run's answer.
  if (options.resuming && !options.ended) {
    return { phase: 'thinking', text: 'Resuming…', detail: 're-checking the journal and the workspace' };
  }
  if (state.finished || options.ended || (!starting && state.runId === null)) {
    return { phase: 'idle', text: 'Idle', detail: '' };
  }
  const pending = pendingApprovals(state);
  if (pending.length > 0) {
    const names = pending.map((approval) => stepTitle(state, approval.stepId)).join(', ');
    return { phase: 'waiting', text: 'Waiting for approval…', detail: names };
  }
  if (state.openToolCalls.size > 0) {
    const tools = [...state.openToolCalls.values()].map(
      (call) => `${call.tool} in ${stepTitle(state, call.stepId)}`,
    );
    return { phase: 'executing', text: 'Executing…', detail: tools.join(', ') };
  }
  if (state.openModelCalls.size > 0 || state.planning || state.replanning > 0 || state.runId === null) {
    let detail = 'waiting for the model';
    if (state.runId === null || state.planning) detail = 'drafting the plan';
    else if (state.replanning > 0) detail = 'redesigning the failed steps';
    else detail = [...state.openModelCalls.values()].map((call) => stepTitle(state, call.stepId)).join(', ');
    return { phase: 'thinking', text: 'Thinking…', detail };
  }
  const running = state.order.filter((key) => {
    const step = state.steps.get(key);
    return step?.status === 'in_progress' && !step.removed;
  });
  return {
    phase: 'executing',
    text: 'Executing…',
    detail: running.length
      ? `verifying ${running.map((key) => stepTitle(state, key)).join(', ')}`
      : 'checking the goal',
  };
}
