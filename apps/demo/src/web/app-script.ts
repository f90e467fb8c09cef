/**
 * The page's controller, served as the ES module `/assets/app.js`: chat panel, execution-mode
 * selector, input lock with the Thinking…/Executing… status, cancel, the live DAG as inline SVG,
 * step details, and the final report. State comes from `/assets/run-state.js`; events from
 * `GET /api/runs/:id` (the journal) and then `GET /api/runs/:id/events` (SSE). The run id lives in
 * `location.hash` (`#run=<id>`), so a reload restores the run.
 *
 * Plain JavaScript inside `String.raw` (no build step): it must not contain a backtick or a
 * dollar-brace sequence. DOM is built with createElement/textContent only (no innerHTML).
 */
export const appScript = String.raw`
import {
  NODE_HEIGHT,
  NODE_WIDTH,
  VISUAL_KEYS,
  applyEvent,
  createRunState,
  edgePath,
  excerpt,
  formatDuration,
  layoutDag,
  stepVisual,
  uiStatus,
  visualLabel,
} from './run-state.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

function setAttributes(element, attributes) {
  if (!attributes) return;
  for (const name of Object.keys(attributes)) {
    const value = attributes[name];
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
}

function appendChildren(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element. */
function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

/** Replaces an element's children; null/false children are skipped and arrays flattened (unlike replaceChildren). */
function fill(element, ...children) {
  element.replaceChildren();
  appendChildren(element, children);
}

/** An SVG element. */
function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

const $ = (id) => document.getElementById(id);
const dom = {
  statusPill: $('status-pill'),
  statusText: $('status-text'),
  activity: $('activity'),
  activityText: $('activity-text'),
  activityDetail: $('activity-detail'),
  runId: $('run-id'),
  connection: $('connection'),
  recent: $('recent-runs'),
  messages: $('messages'),
  composer: $('composer'),
  task: $('task'),
  modeInputs: Array.from(document.querySelectorAll('input[name="mode"]')),
  send: $('send'),
  cancel: $('cancel'),
  newRun: $('new-run'),
  dag: $('dag'),
  legend: $('legend'),
  detail: $('detail'),
  report: $('report'),
};

const ui = {
  state: createRunState(),
  runId: null,
  starting: false,
  /** A run this page follows live (started here, or opened while unfinished). */
  live: false,
  pendingTask: null,
  nextIndex: 0,
  source: null,
  streamEnded: false,
  streamError: null,
  connection: '',
  cancelling: false,
  selected: null,
  notice: null,
  load: 0,
};

// ---------------------------------------------------------------------------------------------
// Server I/O

async function api(method, path, body) {
  const init = { method: method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.error === 'string' ? data.error : 'HTTP ' + response.status;
    const failure = new Error(message);
    failure.status = response.status;
    throw failure;
  }
  return data;
}

function runPath(runId) {
  return '/api/runs/' + encodeURIComponent(runId);
}

function closeStream() {
  if (ui.source) {
    ui.source.close();
    ui.source = null;
  }
}

function subscribe(runId, load) {
  closeStream();
  const source = new EventSource(runPath(runId) + '/events?from=' + ui.nextIndex);
  ui.source = source;
  ui.connection = 'connecting';
  source.onopen = () => {
    if (load !== ui.load) return;
    ui.connection = 'live';
    renderHeader();
  };
  source.onmessage = (message) => {
    if (load !== ui.load) return;
    const index = Number(message.lastEventId);
    if (Number.isInteger(index) && index < ui.nextIndex) return;
    let event;
    try {
      event = JSON.parse(message.data);
    } catch (error) {
      return;
    }
    applyEvent(ui.state, event);
    ui.nextIndex = Number.isInteger(index) ? index + 1 : ui.nextIndex + 1;
    if (ui.state.finished) ui.cancelling = false;
    render();
  };
  source.addEventListener('end', (message) => {
    if (load !== ui.load) return;
    source.close();
    ui.source = null;
    ui.connection = '';
    ui.streamEnded = true;
    ui.cancelling = false;
    try {
      const data = JSON.parse(message.data || '{}');
      if (data && data.error) ui.streamError = data.error;
    } catch (error) {
      // A malformed end message still ends the stream.
    }
    render();
    refreshRecent();
  });
  source.onerror = () => {
    if (load !== ui.load || source.readyState === EventSource.CLOSED) return;
    ui.connection = 'reconnecting';
    renderHeader();
  };
}

function resetRun(runId) {
  closeStream();
  ui.load += 1;
  ui.state = createRunState();
  ui.runId = runId;
  ui.nextIndex = 0;
  ui.streamEnded = false;
  ui.streamError = null;
  ui.connection = '';
  ui.cancelling = false;
  ui.selected = null;
  ui.notice = null;
  ui.starting = false;
  ui.live = false;
  ui.pendingTask = null;
  return ui.load;
}

/** Shows a run: its journaled events first, then the live stream from where they end. */
async function openRun(runId) {
  const load = resetRun(runId);
  render();
  try {
    const data = await api('GET', runPath(runId));
    if (load !== ui.load) return;
    for (const event of data.events) applyEvent(ui.state, event);
    ui.nextIndex = data.events.length;
    if (!ui.state.finished) {
      ui.live = true;
      subscribe(runId, load);
    } else ui.streamEnded = true;
  } catch (error) {
    if (load !== ui.load) return;
    ui.runId = null;
    ui.notice = { kind: 'error', text: 'Could not open run ' + runId + ': ' + error.message };
    if (readHash() === runId) history.replaceState(null, '', location.pathname + location.search);
  }
  render();
}

function selectedMode() {
  const checked = dom.modeInputs.find((input) => input.checked);
  return checked ? checked.value : 'auto';
}

async function startRun(event) {
  event.preventDefault();
  if (isLocked()) return;
  const task = dom.task.value.trim();
  const load = resetRun(null);
  ui.starting = true;
  ui.pendingTask = task || 'Run the built-in offline scenario';
  render();
  try {
    const body = task ? { task: task, mode: selectedMode() } : { mode: selectedMode() };
    const data = await api('POST', '/api/runs', body);
    if (load !== ui.load) return;
    ui.runId = data.runId;
    ui.starting = false;
    ui.live = true;
    dom.task.value = '';
    location.hash = 'run=' + encodeURIComponent(data.runId);
    subscribe(data.runId, load);
  } catch (error) {
    if (load !== ui.load) return;
    ui.starting = false;
    ui.pendingTask = null;
    ui.notice = { kind: 'error', text: 'The run could not start: ' + error.message };
  }
  render();
  refreshRecent();
}

async function cancelRun() {
  if (!ui.runId || ui.cancelling) return;
  ui.cancelling = true;
  render();
  try {
    await api('POST', runPath(ui.runId) + '/cancel');
  } catch (error) {
    ui.cancelling = false;
    ui.notice = { kind: 'error', text: 'Cancel failed: ' + error.message };
    render();
  }
}

async function refreshRecent() {
  try {
    const data = await api('GET', '/api/runs');
    const options = [h('option', { value: '' }, 'Recent runs…')];
    for (const run of data.runs.slice(0, 30)) {
      const when = new Date(run.updatedAt).toLocaleString();
      options.push(h('option', { value: run.runId }, run.runId + ' — ' + when + (run.active ? ' (running)' : '')));
    }
    dom.recent.replaceChildren(...options);
    dom.recent.value = '';
  } catch (error) {
    // The list is a convenience; the page works without it.
  }
}

function readHash() {
  const match = /(?:^#|&)run=([^&]+)/.exec(location.hash);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch (error) {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering

function isLocked() {
  return currentStatus().phase !== 'idle';
}

function currentStatus() {
  // Between "run started" (POST answered) and its first event the run is live but the state is empty.
  const waiting = ui.starting || (ui.live && ui.state.runId === null && !ui.streamEnded);
  if (waiting) return uiStatus(ui.state, { starting: true });
  return uiStatus(ui.state, { ended: ui.streamEnded });
}

function renderHeader() {
  dom.runId.textContent = ui.runId ? 'Run ' + ui.runId : '';
  dom.runId.hidden = !ui.runId;
  const labels = { live: 'live', connecting: 'connecting…', reconnecting: 'reconnecting…' };
  dom.connection.textContent = labels[ui.connection] || '';
  dom.connection.dataset.state = ui.connection || 'none';
}

function renderStatus() {
  const status = currentStatus();
  const locked = status.phase !== 'idle';
  document.body.dataset.phase = status.phase;
  dom.statusPill.dataset.phase = status.phase;
  dom.statusText.textContent = status.text;
  dom.activity.dataset.phase = status.phase;
  dom.activityText.textContent = locked ? status.text : '';
  dom.activityDetail.textContent = locked ? status.detail : '';
  dom.task.disabled = locked;
  dom.task.placeholder = locked
    ? 'The input is locked while the agent works.'
    : 'Describe a task — or leave it empty to run the built-in offline scenario.';
  for (const input of dom.modeInputs) input.disabled = locked;
  dom.send.disabled = locked;
  dom.cancel.disabled = !locked || ui.cancelling || !ui.runId;
  dom.cancel.textContent = ui.cancelling ? 'Cancelling…' : 'Cancel';
  dom.newRun.hidden = locked || !ui.runId;
}

const MESSAGE_ICONS = { info: '•', warn: '↻', error: '✕', success: '✓' };

function stopKind(stopReason) {
  if (stopReason === 'completed') return 'ok';
  if (stopReason === 'completed-with-warnings') return 'warn';
  if (stopReason === 'cancelled') return 'neutral';
  return 'bad';
}

function renderMessages() {
  const list = dom.messages;
  const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const items = [];
  const state = ui.state;
  if (!state.messages.length && !ui.pendingTask && !ui.notice && !ui.runId) {
    items.push(
      h(
        'li',
        { class: 'msg msg--intro' },
        h('p', null, 'Ask for a task. The agent plans it as a graph of steps, runs each step with real tool calls, and every step is verified against evidence before it counts.'),
        h('p', { class: 'muted' }, 'Failed steps are redesigned by the replanner — watch it happen in the plan on the right.'),
      ),
    );
  }
  if (ui.pendingTask && !state.request) items.push(h('li', { class: 'msg msg--user' }, h('div', { class: 'bubble' }, ui.pendingTask)));
  for (const message of state.messages) {
    if (message.kind === 'user') {
      items.push(h('li', { class: 'msg msg--user' }, h('div', { class: 'bubble' }, message.text)));
    } else if (message.kind === 'answer') {
      const finished = state.finished;
      items.push(
        h(
          'li',
          { class: 'msg msg--answer' },
          h(
            'div',
            { class: 'bubble' },
            finished ? h('span', { class: 'stop stop--' + stopKind(finished.stopReason) }, finished.stopReason) : null,
            h('div', { class: 'answer-text' }, message.text),
          ),
        ),
      );
    } else {
      items.push(
        h(
          'li',
          { class: 'msg msg--event msg--' + message.kind },
          h('span', { class: 'msg-icon', 'aria-hidden': 'true' }, MESSAGE_ICONS[message.kind] || '•'),
          h('span', { class: 'msg-text' }, message.text),
        ),
      );
    }
  }
  if (ui.streamEnded && !state.finished && state.runId) {
    items.push(
      h(
        'li',
        { class: 'msg msg--event msg--error' },
        h('span', { class: 'msg-icon' }, '✕'),
        h('span', { class: 'msg-text' }, ui.streamError ? 'The run crashed: ' + ui.streamError : 'The run stopped before it finished (server restarted). Resume it with: closedloop resume ' + state.runId),
      ),
    );
  }
  if (ui.notice) {
    items.push(h('li', { class: 'msg msg--event msg--' + ui.notice.kind, role: 'alert' }, h('span', { class: 'msg-icon' }, '✕'), h('span', { class: 'msg-text' }, ui.notice.text)));
  }
  list.replaceChildren(...items);
  if (nearBottom) list.scrollTop = list.scrollHeight;
}

function truncate(text, max) {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function nodeStatusLine(step, key) {
  if (key === 'replaced') return 'replaced by ' + step.replacedBy.join(', ');
  if (step.interrupted && key === 'in_progress') return 'interrupted';
  let line = visualLabel(key);
  if (step.attempt > 1) line += ' · attempt ' + step.attempt;
  return line;
}

function renderDag() {
  const state = ui.state;
  const layout = layoutDag(state);
  if (!layout.nodes.length) {
    let text = 'Send a task to see its plan here.';
    if (ui.starting || (state.runId && !state.finished && !ui.streamEnded)) text = 'Drafting the plan…';
    else if (state.runId) text = 'This run has no plan.';
    dom.dag.replaceChildren(h('p', { class: 'empty' }, text));
    return;
  }
  const byId = new Map(layout.nodes.map((node) => [node.id, node]));
  const defs = svg(
    'defs',
    null,
    svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' })),
    svg('marker', { id: 'arrow-replaced', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head arrow-head--replaced' })),
  );
  const edges = layout.edges.map((edge) => {
    const from = byId.get(edge.from);
    const to = byId.get(edge.to);
    const classes = 'edge edge--' + edge.kind + (edge.faded ? ' is-faded' : '');
    return svg(
      'path',
      {
        class: classes,
        d: edgePath(from, to),
        'marker-end': edge.kind === 'replaced' ? 'url(#arrow-replaced)' : 'url(#arrow)',
        'data-from': edge.from,
        'data-to': edge.to,
        'data-kind': edge.kind,
      },
      edge.kind === 'replaced' ? svg('title', null, from.step.id + ' replaced by ' + to.step.id) : null,
    );
  });
  const nodes = layout.nodes.map((node) => {
    const step = node.step;
    const key = stepVisual(step);
    const selected = ui.selected === node.id;
    const calls = step.ledger.length;
    const group = svg(
      'g',
      {
        class: 'node node--' + key + (selected ? ' is-selected' : '') + (step.interrupted ? ' is-interrupted' : ''),
        transform: 'translate(' + node.x + ' ' + node.y + ')',
        tabindex: 0,
        role: 'button',
        'aria-pressed': selected ? 'true' : 'false',
        'aria-label': step.id + ': ' + step.title + ' — ' + nodeStatusLine(step, key),
        'data-step-id': step.id,
        'data-key': node.id,
        'data-status': key,
        onclick: () => select(node.id),
        onkeydown: (event) => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            select(node.id);
          }
        },
      },
      svg('title', null, step.title + (step.description && step.description !== step.title ? '\n' + step.description : '')),
      svg('rect', { class: 'node-box', width: NODE_WIDTH, height: NODE_HEIGHT, rx: 9, ry: 9 }),
      svg('rect', { class: 'node-accent', x: 0, y: 0, width: 5, height: NODE_HEIGHT, rx: 2.5 }),
      svg('circle', { class: 'node-dot', cx: 18, cy: 18, r: 4.5 }),
      svg('text', { class: 'node-id', x: 29, y: 22 }, truncate(step.id, 18)),
      calls ? svg('text', { class: 'node-meta', x: NODE_WIDTH - 12, y: 22, 'text-anchor': 'end' }, calls + (calls === 1 ? ' call' : ' calls')) : null,
      svg('text', { class: 'node-title', x: 14, y: 42 }, truncate(step.title, 40)),
      svg('text', { class: 'node-status', x: 14, y: 58 }, truncate(nodeStatusLine(step, key), 48)),
    );
    return group;
  });
  const picture = svg(
    'svg',
    {
      class: 'dag-svg',
      width: layout.width,
      height: layout.height,
      viewBox: '0 0 ' + layout.width + ' ' + layout.height,
      role: 'group',
      'aria-label': 'Plan graph',
    },
    defs,
    svg('g', { class: 'edges' }, edges),
    svg('g', { class: 'nodes' }, nodes),
  );
  const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest('.node') : null;
  const focusKey = focused ? focused.getAttribute('data-key') : null;
  dom.dag.replaceChildren(picture);
  fitDag(picture, layout);
  for (const text of picture.querySelectorAll('.node-title, .node-status')) fitText(text, NODE_WIDTH - 26);
  if (focusKey) {
    const again = dom.dag.querySelector('.node[data-key="' + CSS.escape(focusKey) + '"]');
    if (again) again.focus();
  }
}

/** Shrinks the picture to the panel's width (down to 70 %; below that the panel scrolls). */
function fitDag(picture, layout) {
  const available = dom.dag.clientWidth - 24;
  const scale = available > 0 ? Math.max(0.7, Math.min(1, available / layout.width)) : 1;
  picture.setAttribute('width', String(Math.round(layout.width * scale)));
  picture.setAttribute('height', String(Math.round(layout.height * scale)));
}

/** Cuts an SVG text with an ellipsis until it fits max user units. */
function fitText(text, max) {
  const full = text.textContent;
  if (text.getComputedTextLength() <= max) return;
  let length = full.length;
  while (length > 3) {
    length -= 1;
    text.textContent = full.slice(0, length).trimEnd() + '…';
    if (text.getComputedTextLength() <= max) return;
  }
}

function renderLegend() {
  dom.legend.replaceChildren(
    ...VISUAL_KEYS.map((key) => h('li', { class: 'legend-item legend--' + key }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), visualLabel(key))),
  );
}

function select(key) {
  ui.selected = ui.selected === key ? null : key;
  renderDag();
  renderDetail();
}

function badge(kind, text) {
  return h('span', { class: 'badge badge--' + kind }, text);
}

function metaRow(label, value) {
  if (value === null || value === undefined || value === '' || (Array.isArray(value) && !value.length)) return null;
  return [h('dt', null, label), h('dd', null, Array.isArray(value) ? value.join(', ') : value)];
}

function claimsList(claims) {
  if (!claims) return null;
  const rows = [];
  if (claims.filesWritten && claims.filesWritten.length) rows.push(['Files written', claims.filesWritten.join(', ')]);
  if (claims.filesDeleted && claims.filesDeleted.length) rows.push(['Files deleted', claims.filesDeleted.join(', ')]);
  if (claims.symbolsAdded && claims.symbolsAdded.length) {
    rows.push(['Symbols added', claims.symbolsAdded.map((symbol) => symbol.name + ' (' + symbol.file + ')').join(', ')]);
  }
  if (claims.commandsPassed && claims.commandsPassed.length) {
    rows.push(['Commands passed', claims.commandsPassed.map((command) => command.argv.join(' ')).join('; ')]);
  }
  if (!rows.length) return null;
  return h('dl', { class: 'claims' }, rows.map((row) => [h('dt', null, row[0]), h('dd', null, h('code', null, row[1]))]));
}

const STATUS_ORDER = { fail: 0, error: 1, warn: 2, pass: 3, skip: 4 };

/** Failing findings first, then by priority (P0 before P2); stable otherwise. */
function bySeverity(a, b) {
  const status = (STATUS_ORDER[a.status] ?? 5) - (STATUS_ORDER[b.status] ?? 5);
  return status !== 0 ? status : String(a.priority).localeCompare(String(b.priority));
}

function findingItem(finding) {
  return h(
    'li',
    { class: 'finding finding--' + finding.status },
    h('span', { class: 'chip chip--' + finding.priority }, finding.priority),
    h('code', { class: 'finding-check' }, finding.check),
    badge(finding.status, finding.status),
    finding.attempt ? h('span', { class: 'muted' }, 'attempt ' + finding.attempt) : null,
    h('p', { class: 'finding-message' }, finding.message),
  );
}

function renderDetail() {
  const container = dom.detail;
  const scroll = container.scrollTop;
  const step = ui.selected ? ui.state.steps.get(ui.selected) : null;
  if (!step) {
    container.replaceChildren(h('p', { class: 'empty' }, ui.state.steps.size ? 'Click a step in the plan to see its tool calls, notes, claims and findings.' : 'Step details appear here.'));
    return;
  }
  const key = stepVisual(step);
  const ledger = step.ledger.map((call) =>
    h(
      'li',
      { class: 'call call--' + call.status },
      h(
        'div',
        { class: 'call-head' },
        badge(call.status, call.status),
        h('code', { class: 'call-tool' }, call.tool),
        h('span', { class: 'muted' }, 'attempt ' + call.attempt + (call.respondedAt ? ' · ' + formatDuration(call.respondedAt - call.calledAt) : '')),
      ),
      h('pre', { class: 'excerpt excerpt--args' }, excerpt(call.args, 600)),
      call.status === 'error'
        ? h('pre', { class: 'excerpt excerpt--error' }, excerpt(call.error, 600))
        : call.result !== null
          ? h('pre', { class: 'excerpt excerpt--result' }, excerpt(call.result, 600))
          : null,
    ),
  );
  // The verifier's record has every check of the latest attempt (passes too); finding-reported
  // events only carry the non-passing ones.
  const verified = step.verification && Array.isArray(step.verification.findings) ? step.verification.findings : [];
  const findings = (verified.length ? verified : step.findings).slice().sort(bySeverity);
  fill(
    container,
    h('div', { class: 'detail-head' }, h('h3', null, step.title), badge(key, visualLabel(key))),
    h(
      'dl',
      { class: 'meta' },
      metaRow('Id', step.id),
      metaRow('Attempt', step.attempt ? String(step.attempt) : null),
      metaRow('Depends on', step.dependsOn),
      metaRow('Replaces', step.replaces),
      metaRow('Replaced by', step.replacedBy),
      metaRow('Verdict', step.verdict || (step.verification ? step.verification.verdict : null)),
      metaRow('Confidence', step.confidence === null ? null : step.confidence.toFixed(2)),
      metaRow('Duration', step.finishedAt && step.startedAt ? formatDuration(step.finishedAt - step.startedAt) : null),
      metaRow('Required tools', step.requiredTools),
    ),
    step.description && step.description !== step.title ? h('p', { class: 'description' }, step.description) : null,
    step.error ? h('p', { class: 'step-error' }, step.error) : null,
    h('h4', null, 'Tool calls ', h('span', { class: 'count' }, String(step.ledger.length))),
    ledger.length ? h('ol', { class: 'ledger' }, ledger) : h('p', { class: 'muted' }, 'No tool calls yet.'),
    h('h4', null, 'Notes'),
    step.notes ? h('pre', { class: 'notes' }, step.notes) : h('p', { class: 'muted' }, 'No notes.'),
    h('h4', null, 'Claims'),
    claimsList(step.claims) || h('p', { class: 'muted' }, 'No claims.'),
    h('h4', null, 'Findings ', h('span', { class: 'count' }, String(findings.length))),
    findings.length ? h('ul', { class: 'findings' }, findings.map(findingItem)) : h('p', { class: 'muted' }, 'No findings yet.'),
  );
  container.scrollTop = scroll;
}

function usageGrid(state) {
  const steps = Array.from(state.steps.values()).filter((step) => !step.removed);
  const completed = steps.filter((step) => step.status === 'completed').length;
  const usage = state.usage;
  return h(
    'dl',
    { class: 'usage' },
    [
      ['Input tokens', usage.inputTokens.toLocaleString('en-US')],
      ['Output tokens', usage.outputTokens.toLocaleString('en-US')],
      ['Cost', '$' + usage.costUsd.toFixed(4)],
      ['Model calls', String(usage.modelCalls)],
      ['Steps completed', completed + ' / ' + steps.length],
      ['Replans', String(state.replans.length)],
    ].map((pair) => h('div', { class: 'usage-cell' }, h('dt', null, pair[0]), h('dd', null, pair[1]))),
  );
}

function renderReport() {
  const state = ui.state;
  const finished = state.finished;
  if (!finished) {
    const waiting = state.runId && !ui.streamEnded;
    fill(
      dom.report,
      h('p', { class: 'empty' }, waiting ? 'The report appears when the run finishes.' : ui.streamEnded ? 'The run did not finish.' : 'No run yet.'),
      state.runId ? usageGrid(state) : null,
    );
    return;
  }
  const failingGoal = state.goalFindings.filter((finding) => finding.status !== 'pass' && finding.status !== 'skip');
  fill(
    dom.report,
    h(
      'div',
      { class: 'report-head' },
      h('span', { class: 'stop stop--' + stopKind(finished.stopReason), 'data-testid': 'stop-reason' }, finished.stopReason),
      state.startedAt ? h('span', { class: 'muted' }, 'after ' + formatDuration(finished.at - state.startedAt)) : null,
    ),
    h('p', { class: 'reason' }, finished.reason),
    finished.error ? h('p', { class: 'step-error' }, finished.error.message) : null,
    h('h4', null, 'Answer'),
    h('div', { class: 'answer' }, finished.answer || '—'),
    h('h4', null, 'Usage'),
    usageGrid(state),
    failingGoal.length
      ? [h('h4', null, 'Goal findings'), h('ul', { class: 'findings' }, failingGoal.sort(bySeverity).map(findingItem))]
      : null,
  );
}

function render() {
  renderHeader();
  renderStatus();
  renderMessages();
  renderDag();
  renderDetail();
  renderReport();
}

// ---------------------------------------------------------------------------------------------
// Wiring

dom.composer.addEventListener('submit', startRun);
dom.task.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) dom.composer.requestSubmit();
});
dom.cancel.addEventListener('click', cancelRun);
dom.newRun.addEventListener('click', () => {
  resetRun(null);
  history.replaceState(null, '', location.pathname + location.search);
  render();
  dom.task.focus();
});
dom.recent.addEventListener('change', () => {
  if (dom.recent.value) location.hash = 'run=' + encodeURIComponent(dom.recent.value);
});
let resizeFrame = 0;
window.addEventListener('resize', () => {
  cancelAnimationFrame(resizeFrame);
  resizeFrame = requestAnimationFrame(renderDag);
});
window.addEventListener('hashchange', () => {
  const runId = readHash();
  if (runId && runId !== ui.runId) openRun(runId);
});

renderLegend();
const initial = readHash();
if (initial) openRun(initial);
else render();
refreshRecent();
`;
