/**
 * The page's run model, served as the ES module `/assets/run-state.js`: a pure fold of
 * `RunEvent`s into what the page shows (steps, ledger, findings, chat lines, usage, stop
 * reason), the Thinking…/Executing… status, and the layered DAG layout. No DOM access, so the
 * same text is imported by the node tests.
 *
 * Plain JavaScript inside `String.raw` (no build step): it must not contain a backtick or a
 * dollar-brace sequence.
 */
// biome-ignore lint/complexity/noUselessStringRaw: keeps any backslash escape verbatim in the served JS.
export const runStateScript = String.raw`
/** Geometry of the DAG picture (px). */
export const NODE_WIDTH = 208;
export const NODE_HEIGHT = 66;
export const GAP_X = 72;
export const GAP_Y = 22;
export const PADDING = 24;

/** Status keys the page colours, in legend order. */
export const VISUAL_KEYS = ['not_started', 'in_progress', 'completed', 'unverified', 'failed', 'blocked', 'skipped', 'replaced'];

const VISUAL_LABELS = {
  not_started: 'not started',
  in_progress: 'in progress',
  completed: 'completed',
  unverified: 'completed · unverified',
  failed: 'failed',
  blocked: 'blocked',
  skipped: 'skipped',
  replaced: 'replaced',
};

/** A fresh, empty run. */
export function createRunState() {
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
    messages: [],
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 },
    finished: null,
    eventCount: 0,
  };
}

/** Shortens a value to one readable excerpt: strings as they are, anything else as JSON. */
export function excerpt(value, max) {
  const limit = max === undefined ? 400 : max;
  if (value === undefined || value === null) return '';
  let text;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value, null, 1);
    } catch (error) {
      text = String(value);
    }
  }
  if (text === undefined) return '';
  return text.length > limit ? text.slice(0, limit - 1) + '…' : text;
}

function addStep(state, draft, extra) {
  const step = {
    id: draft.id,
    /** Key in state.steps and state.order: the id, or id~n once a later redesign reused the id. */
    key: draft.id,
    title: draft.title || draft.description || draft.id,
    description: draft.description || '',
    dependsOn: Array.isArray(draft.dependsOn) ? draft.dependsOn.slice() : [],
    requiredTools: Array.isArray(draft.requiredTools) ? draft.requiredTools.slice() : [],
    successCriteria: Array.isArray(draft.successCriteria) ? draft.successCriteria.slice() : [],
    status: 'not_started',
    attempt: 0,
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
    /** Still in_progress when the run finished (cancelled, deadline…). */
    interrupted: false,
    replacedBy: [],
    replaces: Array.isArray(draft.replaces) ? draft.replaces.slice() : [],
    /** The removed step the picture draws this (redesigned) step from, with a dashed "replaced by" edge. */
    drawnFrom: null,
    startedAt: null,
    finishedAt: null,
  };
  if (extra) Object.assign(step, extra);
  state.steps.set(step.id, step);
  return step;
}

/** Moves a removed step whose id a later redesign reuses to a key of its own (it stays drawn). */
function archiveStep(state, step) {
  let n = 1;
  while (state.steps.has(step.id + '~' + n)) n += 1;
  const key = step.id + '~' + n;
  state.steps.delete(step.id);
  state.order[state.order.indexOf(step.id)] = key;
  step.key = key;
  state.steps.set(key, step);
}

function say(state, kind, text, at) {
  state.messages.push({ kind: kind, text: text, at: at });
}

function stepName(state, id) {
  const step = state.steps.get(id);
  return step ? step.title : id;
}

function clearOpenCallsOf(state, stepId) {
  for (const [key, call] of state.openModelCalls) if (call.stepId === stepId) state.openModelCalls.delete(key);
  for (const [key, call] of state.openToolCalls) if (call.stepId === stepId) state.openToolCalls.delete(key);
}

/** Folds one RunEvent into the state (mutates it and returns it). Unknown events are counted and ignored. */
export function applyEvent(state, event) {
  state.eventCount += 1;
  if (!event || typeof event.type !== 'string') return state;
  const at = event.at;
  switch (event.type) {
    case 'run-started':
      state.runId = event.runId;
      state.request = event.request;
      state.resumed = Boolean(event.resumed);
      if (state.startedAt === null) state.startedAt = at;
      state.planning = state.steps.size === 0;
      if (event.resumed) say(state, 'info', 'Resumed from the journal.', at);
      else say(state, 'user', event.request, at);
      break;
    case 'plan-created': {
      state.planning = false;
      for (const draft of event.steps || []) {
        if (!state.steps.has(draft.id)) {
          addStep(state, draft);
          state.order.push(draft.id);
        }
      }
      const titles = (event.steps || []).map((draft) => draft.title || draft.id);
      say(state, 'info', 'Planned ' + titles.length + ' step' + (titles.length === 1 ? '' : 's') + ': ' + titles.join(' → '), at);
      break;
    }
    case 'plan-drafted':
      state.planning = false;
      break;
    case 'step-started': {
      const step = state.steps.get(event.stepId);
      if (step) {
        step.status = 'in_progress';
        step.attempt = event.attempt || step.attempt + 1;
        step.startedAt = at;
        step.finishedAt = null;
        step.unverified = false;
        step.interrupted = false;
        step.error = null;
      }
      break;
    }
    case 'step-marked': {
      const step = state.steps.get(event.stepId);
      if (!step) break;
      if (event.status) step.status = event.status;
      if (typeof event.notes === 'string') step.notes = event.notes;
      if (typeof event.output === 'string') step.output = event.output;
      if (Array.isArray(event.files)) step.files = event.files.slice();
      if (event.claims) step.claims = event.claims;
      break;
    }
    case 'model-call-started':
      state.openModelCalls.set(event.stepId + ':' + event.iteration + ':' + event.purpose, { stepId: event.stepId });
      break;
    case 'model-call-finished':
      state.openModelCalls.delete(event.stepId + ':' + event.iteration + ':' + event.purpose);
      break;
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
        });
      }
      state.openToolCalls.set(event.stepId + ':' + event.callId, { stepId: event.stepId, tool: event.tool });
      break;
    }
    case 'tool-call-finished': {
      const step = state.steps.get(event.stepId);
      if (step) {
        for (let index = step.ledger.length - 1; index >= 0; index -= 1) {
          const call = step.ledger[index];
          if (call.callId === event.callId && call.status === 'pending') {
            call.status = event.status;
            call.result = event.result === undefined ? null : event.result;
            call.error = event.error === undefined ? null : event.error;
            call.respondedAt = at;
            break;
          }
        }
      }
      state.openToolCalls.delete(event.stepId + ':' + event.callId);
      break;
    }
    case 'step-finalized':
      for (const callId of event.pendingCallIds || []) state.openToolCalls.delete(event.stepId + ':' + callId);
      break;
    case 'step-verified': {
      const step = state.steps.get(event.stepId);
      if (step) step.verification = event.verification;
      break;
    }
    case 'finding-reported':
      if (event.scope === 'step' && event.stepId) {
        const step = state.steps.get(event.stepId);
        if (step) step.findings.push(Object.assign({ attempt: step.attempt }, event.finding));
      } else {
        state.goalFindings.push(event.finding);
      }
      break;
    case 'step-finished': {
      const step = state.steps.get(event.stepId);
      clearOpenCallsOf(state, event.stepId);
      if (!step) break;
      if (event.status === 'interrupted') {
        // The run stopped while the step ran: it stays in_progress (a resume decides), drawn as interrupted.
        step.status = 'in_progress';
        step.interrupted = true;
        step.finishedAt = at;
        break;
      }
      step.status = event.status;
      step.interrupted = false;
      step.unverified = Boolean(event.unverified);
      step.verdict = event.verdict || null;
      step.confidence = typeof event.confidence === 'number' ? event.confidence : null;
      step.error = event.error || null;
      step.finishedAt = at;
      if (event.status === 'failed') {
        const failing = step.findings.filter((finding) => finding.attempt === step.attempt && finding.status === 'fail');
        const why = failing.length ? failing[0].message : event.error || 'verification failed';
        say(state, 'error', '“' + step.title + '” failed verification: ' + why, at);
      } else if (event.status === 'blocked') {
        say(state, 'error', '“' + step.title + '” is blocked' + (event.error ? ': ' + event.error : '.'), at);
      }
      break;
    }
    case 'replan-requested':
      state.replanning += 1;
      break;
    case 'replan-finished':
      state.replanning = Math.max(0, state.replanning - 1);
      if (event.action !== 'redesign') {
        say(state, 'error', 'Replanner ' + (event.action === 'give-up' ? 'gave up' : 'failed') + (event.message ? ': ' + event.message : '.'), at);
      }
      break;
    case 'replan-applied': {
      const added = (event.added || []).map((step) => step.id);
      let insertAfter = -1;
      for (const id of event.removed || []) {
        const step = state.steps.get(id);
        if (step) {
          step.removed = true;
          insertAfter = Math.max(insertAfter, state.order.indexOf(id));
        }
      }
      const fresh = [];
      for (const draft of event.added || []) {
        const existing = state.steps.get(draft.id);
        if (existing && !existing.removed) continue;
        if (existing) archiveStep(state, existing);
        addStep(state, draft);
        fresh.push(draft.id);
      }
      const removedIds = (event.removed || []).filter((id) => state.steps.has(id));
      for (const id of removedIds) {
        const step = state.steps.get(id);
        const explicit = fresh.filter((newId) => state.steps.get(newId).replaces.indexOf(id) !== -1);
        step.replacedBy = explicit.length ? explicit : fresh.slice();
      }
      // A new step's replaces lists the failed steps whose failure caused the redesign; the whole
      // removed subgraph (failed + downstream) is event.removed. For the picture, each new step
      // gets one predecessor: the removed step with the same title, else the removed steps in
      // order (by the new step's position), preferring the failed ones.
      const claimed = new Set();
      const pairs = new Map();
      for (const id of fresh) {
        const step = state.steps.get(id);
        const twin = removedIds.find((old) => state.steps.get(old).title.toLowerCase() === step.title.toLowerCase());
        if (twin) {
          pairs.set(id, twin);
          claimed.add(twin);
        }
      }
      fresh.forEach((id, index) => {
        if (pairs.has(id)) return;
        const step = state.steps.get(id);
        const candidates = step.replaces.filter((old) => removedIds.indexOf(old) !== -1);
        const pool = (candidates.length ? candidates : removedIds).filter((old) => !claimed.has(old));
        const fallback = pool.length ? pool : candidates.length ? candidates : removedIds;
        if (fallback.length) pairs.set(id, fallback[Math.min(index, fallback.length - 1)]);
      });
      for (const [id, old] of pairs) state.steps.get(id).drawnFrom = old;
      // Each new step goes right after the step it is drawn from (else after the last removed
      // one), after the new steps already placed there, so a redesign reads in its draft order.
      const lastRemoved = insertAfter === -1 ? null : state.order[insertAfter];
      const inserted = new Set();
      for (const id of fresh) {
        const anchor = pairs.has(id) ? pairs.get(id) : lastRemoved;
        let position = anchor === null ? state.order.length : state.order.indexOf(anchor) + 1;
        while (position < state.order.length && inserted.has(state.order[position])) position += 1;
        state.order.splice(position, 0, id);
        inserted.add(id);
      }
      state.replans.push({ failed: event.failed || [], removed: event.removed || [], added: added, at: at });
      say(
        state,
        'warn',
        'Replanned: ' + (event.removed || []).map((id) => stepName(state, id)).join(', ') + ' → ' + added.map((id) => stepName(state, id)).join(', '),
        at,
      );
      break;
    }
    case 'steps-added': {
      // Steps inserted without removing any (goal-level repair): placed at the plan's insertAt,
      // counted among the live (not replaced) steps.
      const live = state.order.filter((key) => !state.steps.get(key).removed);
      const before = live[event.insertAt];
      let position = before === undefined ? state.order.length : state.order.indexOf(before);
      for (const draft of event.added || []) {
        if (state.steps.has(draft.id)) continue;
        addStep(state, draft);
        state.order.splice(position, 0, draft.id);
        position += 1;
      }
      say(state, 'info', 'Added: ' + (event.added || []).map((draft) => draft.title || draft.id).join(', '), at);
      break;
    }
    case 'step-reset': {
      // The step runs again from scratch: its earlier ledger and findings move to its history.
      const step = state.steps.get(event.stepId);
      if (!step) break;
      step.previousAttempts = (step.previousAttempts || []).concat([
        { ledger: step.ledger, findings: step.findings, notes: step.notes, reason: event.reason },
      ]);
      step.status = 'not_started';
      step.ledger = [];
      step.findings = [];
      step.notes = '';
      step.finishedAt = null;
      step.interrupted = false;
      step.unverified = false;
      step.verdict = null;
      step.error = null;
      say(state, 'info', 'Running “' + step.title + '” again: ' + event.reason, at);
      break;
    }
    case 'goal-verified':
      state.goalChecks.push({ iteration: event.iteration, assessment: event.assessment, verdict: event.verdict || null });
      if (Array.isArray(event.findings) && event.findings.length) state.goalFindings = event.findings.slice();
      say(
        state,
        event.assessment === 'all-pass' ? 'success' : 'warn',
        'Goal verification (iteration ' + event.iteration + '): ' + (event.assessment === 'all-pass' ? 'all checks pass' : event.assessment),
        at,
      );
      break;
    case 'approval-requested':
      state.approvals.push({ approvalId: event.approvalId, stepId: event.stepId, reason: event.reason, resolved: null });
      say(state, 'warn', 'Approval requested for “' + stepName(state, event.stepId) + '”: ' + event.reason, at);
      break;
    case 'approval-resolved':
      for (const approval of state.approvals) if (approval.approvalId === event.approvalId) approval.resolved = event.approved;
      break;
    case 'usage-recorded':
      // One per model call of any purpose (planner, step, replanner, verifier, aggregate).
      state.usage.modelCalls += 1;
      if (event.usage) {
        state.usage.inputTokens += event.usage.inputTokens || 0;
        state.usage.outputTokens += event.usage.outputTokens || 0;
      }
      state.usage.costUsd += event.costUsd || 0;
      break;
    case 'run-finished':
      state.finished = {
        stopReason: event.stopReason,
        reason: event.reason || '',
        answer: typeof event.answer === 'string' ? event.answer : null,
        answerSource: event.answerSource || null,
        error: event.error || null,
        at: at,
      };
      state.planning = false;
      state.replanning = 0;
      for (const step of state.steps.values()) if (step.status === 'in_progress') step.interrupted = true;
      state.openModelCalls.clear();
      state.openToolCalls.clear();
      say(state, 'answer', state.finished.answer || event.reason || event.stopReason, at);
      break;
    default:
      break;
  }
  return state;
}

/** Folds a list of events into a fresh state. */
export function foldEvents(events) {
  const state = createRunState();
  for (const event of events) applyEvent(state, event);
  return state;
}

/** The colour key of a step: its status, 'unverified' for an unverified completion, 'replaced' once redesigned away. */
export function stepVisual(step) {
  if (step.removed) return 'replaced';
  if (step.status === 'completed' && step.unverified) return 'unverified';
  return step.status;
}

/** The human label of a visual key. */
export function visualLabel(key) {
  return VISUAL_LABELS[key] || key;
}

/**
 * What the input area shows (seed ADR-006 §3): idle → the input is free; 'thinking' while an LLM
 * answer is awaited (a model call is open, or the plan is being drafted or redesigned);
 * 'executing' while a tool call runs (and while a started run is between calls: verification,
 * scheduling). Executing wins when both happen in parallel steps.
 */
export function uiStatus(state, options) {
  const starting = Boolean(options && options.starting);
  const ended = Boolean(options && options.ended);
  if (state.finished || ended || (!starting && state.runId === null)) {
    return { phase: 'idle', text: 'Idle', detail: '' };
  }
  if (state.openToolCalls.size > 0) {
    const tools = [];
    for (const call of state.openToolCalls.values()) tools.push(call.tool + ' in ' + stepName(state, call.stepId));
    return { phase: 'executing', text: 'Executing…', detail: tools.join(', ') };
  }
  if (state.openModelCalls.size > 0 || state.planning || state.replanning > 0 || state.runId === null) {
    let detail = 'waiting for the model';
    if (state.runId === null || state.planning) detail = 'drafting the plan';
    else if (state.replanning > 0) detail = 'redesigning the failed steps';
    else {
      const names = [];
      for (const call of state.openModelCalls.values()) names.push(stepName(state, call.stepId));
      detail = names.join(', ');
    }
    return { phase: 'thinking', text: 'Thinking…', detail: detail };
  }
  const running = state.order.filter((id) => state.steps.get(id).status === 'in_progress' && !state.steps.get(id).removed);
  return {
    phase: 'executing',
    text: 'Executing…',
    detail: running.length ? 'verifying ' + running.map((id) => stepName(state, id)).join(', ') : 'checking the goal',
  };
}

/** Longest-path depth of every step (roots are 0); unknown dependencies are ignored, cycles cut. */
export function stepDepths(state) {
  const depths = new Map();
  const visiting = new Set();
  const depthOf = (id) => {
    if (depths.has(id)) return depths.get(id);
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const step = state.steps.get(id);
    let depth = 0;
    for (const dep of step ? step.dependsOn : []) {
      if (state.steps.has(dep)) depth = Math.max(depth, depthOf(dep) + 1);
    }
    visiting.delete(id);
    depths.set(id, depth);
    return depth;
  };
  for (const id of state.order) depthOf(id);
  return depths;
}

/**
 * Layered layout: one column per longest-path depth, steps in display order within a column
 * (a redesign's new steps sit right under the steps they replace). Edges run from each
 * dependency to its dependent; 'replaced' edges from a removed step to its replacements.
 */
export function layoutDag(state) {
  const depths = stepDepths(state);
  const rows = [];
  const nodes = new Map();
  for (const id of state.order) {
    const layer = depths.get(id) || 0;
    const row = rows[layer] || 0;
    rows[layer] = row + 1;
    nodes.set(id, {
      id: id,
      layer: layer,
      row: row,
      x: PADDING + layer * (NODE_WIDTH + GAP_X),
      y: PADDING + row * (NODE_HEIGHT + GAP_Y),
      step: state.steps.get(id),
    });
  }
  const edges = [];
  for (const node of nodes.values()) {
    for (const dep of node.step.dependsOn) {
      const from = nodes.get(dep);
      if (!from) continue;
      edges.push({ kind: 'dependency', from: dep, to: node.id, faded: from.step.removed || node.step.removed });
    }
    if (node.step.drawnFrom !== null && nodes.has(node.step.drawnFrom)) {
      edges.push({ kind: 'replaced', from: node.step.drawnFrom, to: node.id, faded: false });
    }
  }
  let layers = 0;
  let maxRows = 0;
  for (let layer = 0; layer < rows.length; layer += 1) {
    if (rows[layer] === undefined) continue;
    layers = layer + 1;
    maxRows = Math.max(maxRows, rows[layer]);
  }
  return {
    nodes: Array.from(nodes.values()),
    edges: edges,
    width: layers === 0 ? 0 : PADDING * 2 + layers * NODE_WIDTH + (layers - 1) * GAP_X,
    height: maxRows === 0 ? 0 : PADDING * 2 + maxRows * NODE_HEIGHT + (maxRows - 1) * GAP_Y,
  };
}

/**
 * SVG path of an edge between two laid-out nodes: dependency edges leave the right side and
 * enter the left side; a same-column replacement loops out on the left.
 */
export function edgePath(from, to) {
  if (from.layer === to.layer) {
    const x = from.x;
    const y1 = from.y + NODE_HEIGHT / 2;
    const y2 = to.y + NODE_HEIGHT / 2;
    const bend = Math.min(GAP_X - 12, 26 + Math.abs(y2 - y1) / 6);
    return 'M ' + x + ' ' + y1 + ' C ' + (x - bend) + ' ' + y1 + ', ' + (x - bend) + ' ' + y2 + ', ' + (x - 4) + ' ' + y2;
  }
  const forward = to.layer > from.layer;
  const x1 = forward ? from.x + NODE_WIDTH : from.x;
  const x2 = forward ? to.x - 4 : to.x + NODE_WIDTH + 4;
  const y1 = from.y + NODE_HEIGHT / 2;
  const y2 = to.y + NODE_HEIGHT / 2;
  const mid = (x1 + x2) / 2;
  return 'M ' + x1 + ' ' + y1 + ' C ' + mid + ' ' + y1 + ', ' + mid + ' ' + y2 + ', ' + x2 + ' ' + y2;
}

/** Milliseconds as "1.2 s" / "2 min 5 s". */
export function formatDuration(ms) {
  if (typeof ms !== 'number' || !isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return Math.round(ms) + ' ms';
  if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
  return Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
}
`;
