/** The web UI's stylesheet (`/assets/styles.css`). Status colours are defined once, as custom properties. */
export const pageCss = `
:root {
  --bg: #f3f4f6;
  --panel: #ffffff;
  --border: #e2e5ea;
  --border-strong: #cfd4dc;
  --text: #1f2430;
  --muted: #667085;
  --accent: #2563eb;
  --accent-strong: #1d4ed8;
  --radius: 10px;
  --mono: ui-monospace, "SF Mono", "Cascadia Code", "DejaVu Sans Mono", Menlo, Consolas, monospace;

  --not_started-stroke: #9aa1ad; --not_started-fill: #f3f4f6; --not_started-text: #374151;
  --in_progress-stroke: #2563eb; --in_progress-fill: #eaf1ff; --in_progress-text: #1e3a8a;
  --completed-stroke: #16a34a;   --completed-fill: #ecfdf3;   --completed-text: #14532d;
  --unverified-stroke: #d97706;  --unverified-fill: #fff7e6;  --unverified-text: #78350f;
  --failed-stroke: #dc2626;      --failed-fill: #fef0f0;      --failed-text: #991b1b;
  --blocked-stroke: #6b1111;     --blocked-fill: #7f1d1d;     --blocked-text: #ffffff;
  --skipped-stroke: #d1d5db;     --skipped-fill: #fafafa;     --skipped-text: #9ca3af;
  --replaced-stroke: #a3aab5;    --replaced-fill: #f7f7f8;    --replaced-text: #8a919c;
}

* { box-sizing: border-box; }
html, body { height: 100%; }
body {
  margin: 0;
  display: flex;
  flex-direction: column;
  background: var(--bg);
  color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
}
code, pre { font-family: var(--mono); font-size: 12px; }
h2 { margin: 0; font-size: 13px; font-weight: 650; letter-spacing: .04em; text-transform: uppercase; color: #4b5563; }
h3 { margin: 0; font-size: 16px; font-weight: 650; }
h4 { margin: 18px 0 8px; font-size: 12px; font-weight: 650; letter-spacing: .04em; text-transform: uppercase; color: #4b5563; }
.muted { color: var(--muted); }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
[hidden] { display: none !important; }

/* Top bar ------------------------------------------------------------------------------------ */
.topbar {
  display: flex; align-items: center; gap: 20px;
  padding: 10px 20px;
  background: #111827; color: #f9fafb;
}
.brand { display: flex; align-items: baseline; gap: 10px; }
.brand-mark {
  align-self: center; width: 16px; height: 16px; border-radius: 50%;
  border: 3px solid #60a5fa; border-right-color: transparent; transform: rotate(-45deg);
}
.brand-name { font-weight: 700; font-size: 16px; letter-spacing: .01em; }
.brand-tagline { color: #9ca3af; font-size: 13px; }
.run-meta { margin-left: auto; display: flex; align-items: center; gap: 12px; color: #d1d5db; font-size: 13px; }
.run-id { font-family: var(--mono); font-size: 12px; color: #e5e7eb; }
.connection { font-size: 12px; color: #9ca3af; }
.connection[data-state="live"] { color: #86efac; }
.connection[data-state="reconnecting"] { color: #fcd34d; }
.recent-runs {
  max-width: 260px; padding: 4px 8px; border-radius: 6px;
  border: 1px solid #374151; background: #1f2937; color: #e5e7eb; font: inherit; font-size: 13px;
}
.status-pill {
  display: inline-flex; align-items: center; gap: 8px;
  min-width: 124px; justify-content: center;
  padding: 5px 14px; border-radius: 999px;
  background: #1f2937; border: 1px solid #374151; font-weight: 600; font-size: 13px;
}
.status-dot { width: 8px; height: 8px; border-radius: 50%; background: #9ca3af; }
.status-pill[data-phase="thinking"] { background: #312e81; border-color: #4f46e5; }
.status-pill[data-phase="thinking"] .status-dot { background: #a5b4fc; animation: blink 1.1s ease-in-out infinite; }
.status-pill[data-phase="executing"] { background: #1e3a8a; border-color: #2563eb; }
.status-pill[data-phase="executing"] .status-dot { background: #93c5fd; animation: blink .8s ease-in-out infinite; }

/* Layout ------------------------------------------------------------------------------------- */
.layout {
  flex: 1; min-height: 0;
  display: grid; gap: 16px; padding: 16px;
  grid-template-columns: minmax(320px, 400px) minmax(0, 1fr) minmax(0, 1fr);
  /* The plan takes the height it needs (up to 58 %); step detail and report get the rest. */
  grid-template-rows: fit-content(58%) minmax(260px, 1fr);
}
.panel {
  min-height: 0; min-width: 0;
  display: flex; flex-direction: column;
  background: var(--panel); border: 1px solid var(--border); border-radius: var(--radius);
  box-shadow: 0 1px 2px rgba(16, 24, 40, .04);
  overflow: hidden;
}
.panel-head {
  display: flex; align-items: center; gap: 12px; flex-wrap: wrap;
  min-height: 46px; padding: 10px 16px; border-bottom: 1px solid var(--border);
}
.panel-body { flex: 1; min-height: 0; overflow: auto; padding: 14px 16px 18px; }
.chat { grid-row: 1 / 3; }
.dag-panel { grid-column: 2 / 4; }
.empty { margin: 0; padding: 18px 2px; color: var(--muted); }

@media (max-width: 1100px) {
  body { height: auto; }
  .layout { grid-template-columns: 1fr; grid-template-rows: none; }
  .chat, .dag-panel { grid-row: auto; grid-column: auto; }
  .chat { min-height: 520px; }
  .panel-body { max-height: 520px; }
}

/* Chat --------------------------------------------------------------------------------------- */
.messages { flex: 1; min-height: 0; overflow: auto; margin: 0; padding: 14px 16px; list-style: none; display: flex; flex-direction: column; gap: 10px; }
.msg--intro { color: #374151; }
.msg--intro p { margin: 0 0 8px; }
.msg--user { align-self: flex-end; max-width: 88%; }
.msg--user .bubble { background: var(--accent); color: #fff; border-radius: 12px 12px 3px 12px; padding: 9px 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg--answer .bubble { background: #f6f7f9; border: 1px solid var(--border); border-radius: 12px 12px 12px 3px; padding: 10px 12px; }
.answer-text { margin-top: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg--event { display: flex; gap: 8px; align-items: flex-start; font-size: 13px; color: #374151; }
.msg-icon { flex: none; width: 18px; height: 18px; border-radius: 50%; display: inline-grid; place-items: center; font-size: 11px; font-weight: 700; background: #eef0f3; color: #4b5563; margin-top: 1px; }
.msg-text { overflow-wrap: anywhere; }
.msg--warn .msg-icon { background: #fff4dc; color: #b45309; }
.msg--error .msg-icon { background: #fde8e8; color: #b91c1c; }
.msg--error .msg-text { color: #991b1b; }
.msg--success .msg-icon { background: #dcfce7; color: #15803d; }

.composer { border-top: 1px solid var(--border); padding: 12px 16px 14px; display: flex; flex-direction: column; gap: 10px; background: #fbfbfc; }
.composer textarea {
  width: 100%; resize: vertical; min-height: 68px; max-height: 240px;
  padding: 9px 11px; border: 1px solid var(--border-strong); border-radius: 8px;
  font: inherit; color: inherit; background: #fff;
}
.composer textarea:focus { outline: 2px solid rgba(37, 99, 235, .35); border-color: var(--accent); }
.composer textarea:disabled { background: #f1f2f4; color: #6b7280; cursor: not-allowed; }
.mode { margin: 0; padding: 0; border: 0; display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.mode legend { padding: 0; margin-bottom: 6px; font-size: 12px; font-weight: 600; color: #4b5563; }
.mode-option {
  display: flex; gap: 8px; align-items: flex-start;
  padding: 8px 10px; border: 1px solid var(--border-strong); border-radius: 8px; background: #fff; cursor: pointer;
}
.mode-option:has(input:checked) { border-color: var(--accent); background: #f1f6ff; }
.mode-option:has(input:disabled) { cursor: not-allowed; opacity: .7; }
.mode-option input { margin: 2px 0 0; accent-color: var(--accent); }
.mode-text { display: flex; flex-direction: column; }
.mode-name { font-weight: 600; font-size: 13px; }
.mode-hint { font-size: 12px; color: var(--muted); line-height: 1.3; }
.composer-actions { display: flex; align-items: center; gap: 8px; }
.activity { margin: 0 auto 0 0; display: flex; align-items: center; gap: 7px; min-width: 0; font-size: 13px; }
.activity[data-phase="idle"] { visibility: hidden; }
.activity-text { font-weight: 600; white-space: nowrap; }
.activity[data-phase="thinking"] .activity-text { color: #4338ca; }
.activity[data-phase="executing"] .activity-text { color: var(--accent-strong); }
.activity-detail { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.spinner { flex: none; width: 13px; height: 13px; border-radius: 50%; border: 2px solid #c7d2fe; border-top-color: #4f46e5; animation: spin .8s linear infinite; }
.button {
  padding: 7px 16px; border-radius: 8px; font: inherit; font-weight: 600; cursor: pointer;
  border: 1px solid transparent;
}
.button:disabled { cursor: not-allowed; opacity: .45; }
.button--primary { background: var(--accent); color: #fff; }
.button--primary:hover:not(:disabled) { background: var(--accent-strong); }
.button--secondary { background: #fff; color: #b91c1c; border-color: #f0b4b4; }
.button--secondary:hover:not(:disabled) { background: #fef2f2; }
.link-button { margin-left: auto; border: 0; background: none; color: var(--accent); font: inherit; font-size: 13px; cursor: pointer; padding: 0; }

/* Legend + DAG ------------------------------------------------------------------------------- */
.legend { margin: 0 0 0 auto; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 6px 14px; font-size: 12px; color: #4b5563; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; }
.swatch { width: 12px; height: 12px; border-radius: 3px; border: 1.5px solid; }
.dag { flex: 1; min-height: 0; overflow: auto; padding: 6px 10px; background-image: radial-gradient(#e6e8ec 1px, transparent 1px); background-size: 18px 18px; }
.dag-svg { display: block; max-width: none; }
.edge { fill: none; stroke: #9aa1ad; stroke-width: 1.6; }
.edge.is-faded { stroke-opacity: .35; stroke-dasharray: 3 4; }
.edge--replaced { stroke: #b45309; stroke-width: 1.6; stroke-dasharray: 6 5; }
.arrow-head { fill: #9aa1ad; }
.arrow-head--replaced { fill: #b45309; }
.node { cursor: pointer; outline: none; }
.node-box { stroke-width: 1.6; }
.node-title { font-size: 13px; font-weight: 600; }
.node-id { font-family: var(--mono); font-size: 11px; fill: var(--muted); }
.node-meta { font-size: 11px; fill: var(--muted); }
.node-status { font-size: 11.5px; }
.node:hover .node-box { filter: drop-shadow(0 2px 4px rgba(16, 24, 40, .12)); }
.node:focus-visible .node-box, .node.is-selected .node-box { stroke-width: 3; }
.node.is-selected .node-box { filter: drop-shadow(0 3px 8px rgba(37, 99, 235, .25)); }

.badge {
  display: inline-block; padding: 1px 8px; border-radius: 999px; border: 1px solid var(--border-strong);
  font-size: 11.5px; font-weight: 600; white-space: nowrap; background: #f3f4f6; color: #374151;
}

/* Status colours: the same keys for nodes, legend swatches and badges. */
${['not_started', 'in_progress', 'completed', 'unverified', 'failed', 'blocked', 'skipped', 'replaced']
  .map(
    (key) => `.node--${key} .node-box { fill: var(--${key}-fill); stroke: var(--${key}-stroke); }
.node--${key} .node-accent, .node--${key} .node-dot { fill: var(--${key}-stroke); }
.node--${key} .node-title, .node--${key} .node-status { fill: var(--${key}-text); }
.legend--${key} .swatch { background: var(--${key}-fill); border-color: var(--${key}-stroke); }
.badge--${key} { background: var(--${key}-fill); color: var(--${key}-text); border-color: var(--${key}-stroke); }`,
  )
  .join('\n')}
.node--blocked .node-dot { fill: #fecaca; }
.node--blocked .node-id, .node--blocked .node-meta { fill: #fecaca; }
.node--skipped .node-box { stroke-dasharray: 4 3; }
.node--replaced { opacity: .62; }
.node--replaced .node-box { stroke-dasharray: 5 4; }
.node--replaced .node-title { text-decoration: line-through; }
.node--replaced .node-status { font-style: italic; fill: #b45309; }
.node--in_progress .node-box { animation: pulse 1.4s ease-in-out infinite; }
.node--in_progress .node-dot { animation: blink 1.4s ease-in-out infinite; }
.node.is-interrupted .node-box, .node.is-interrupted .node-dot { animation: none; }
.node.is-interrupted .node-box { stroke-dasharray: 4 3; }

@keyframes pulse {
  0%, 100% { stroke-opacity: 1; stroke-width: 1.6; }
  50% { stroke-opacity: .45; stroke-width: 3.2; }
}
@keyframes blink { 0%, 100% { opacity: 1; } 50% { opacity: .3; } }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) {
  .node--in_progress .node-box, .node--in_progress .node-dot, .status-dot, .spinner { animation: none !important; }
}

/* Detail + report ---------------------------------------------------------------------------- */
.badge--pending { background: #eef2ff; color: #3730a3; border-color: #a5b4fc; }
.badge--success, .badge--pass { background: #ecfdf3; color: #166534; border-color: #86efac; }
.badge--error, .badge--fail { background: #fef0f0; color: #991b1b; border-color: #fca5a5; }
.badge--warn { background: #fff7e6; color: #92400e; border-color: #fcd34d; }
.badge--skip { background: #f3f4f6; color: #6b7280; }
.detail-head { display: flex; align-items: center; gap: 10px; justify-content: space-between; }
.meta, .claims { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 12px 0 0; font-size: 13px; }
.meta dt, .claims dt { color: var(--muted); }
.meta dd, .claims dd { margin: 0; overflow-wrap: anywhere; }
.description { margin: 12px 0 0; color: #374151; }
.step-error { margin: 10px 0 0; padding: 8px 10px; border-radius: 6px; background: #fef2f2; color: #991b1b; font-size: 13px; }
.count { display: inline-block; min-width: 18px; padding: 0 5px; border-radius: 9px; background: #eef0f3; color: #4b5563; text-align: center; font-size: 11px; }
.ledger, .findings { margin: 0; padding: 0; list-style: none; display: flex; flex-direction: column; gap: 8px; }
.call { border: 1px solid var(--border); border-left-width: 3px; border-radius: 8px; padding: 8px 10px; }
.call--success { border-left-color: #16a34a; }
.call--error { border-left-color: #dc2626; }
.call--pending { border-left-color: #6366f1; }
.call-head { display: flex; align-items: center; gap: 8px; font-size: 13px; }
.call-tool { font-weight: 600; font-size: 12.5px; }
.call-head .muted { margin-left: auto; font-size: 12px; }
.excerpt, .notes {
  margin: 6px 0 0; padding: 6px 8px; border-radius: 6px; background: #f6f7f9;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 160px; overflow: auto;
}
.excerpt--error { background: #fef2f2; color: #991b1b; }
.excerpt--result { background: #f3faf5; }
.finding { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; padding: 8px 10px; border: 1px solid var(--border); border-radius: 8px; font-size: 13px; }
.finding--fail { border-color: #fca5a5; background: #fffafa; }
.finding-check { font-weight: 600; }
.finding .muted { margin-left: auto; font-size: 12px; }
.finding-message { flex-basis: 100%; margin: 0; color: #374151; overflow-wrap: anywhere; }
.chip { padding: 0 6px; border-radius: 4px; font-size: 11px; font-weight: 700; color: #fff; background: #6b7280; }
.chip--P0 { background: #b91c1c; }
.chip--P1 { background: #c2410c; }
.chip--P2 { background: #6b7280; }
.report-head { display: flex; align-items: center; gap: 10px; }
.stop { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 12px; font-weight: 700; border: 1px solid; }
.stop--ok { background: #ecfdf3; color: #166534; border-color: #86efac; }
.stop--warn { background: #fff7e6; color: #92400e; border-color: #fcd34d; }
.stop--neutral { background: #f3f4f6; color: #374151; border-color: #d1d5db; }
.stop--bad { background: #fef0f0; color: #991b1b; border-color: #fca5a5; }
.reason { margin: 10px 0 0; color: #374151; }
.answer { padding: 10px 12px; border-radius: 8px; background: #f6f7f9; border: 1px solid var(--border); white-space: pre-wrap; overflow-wrap: anywhere; }
.usage { margin: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(120px, 1fr)); gap: 8px; }
.usage-cell { padding: 8px 10px; border: 1px solid var(--border); border-radius: 8px; }
.usage-cell dt { font-size: 11.5px; color: var(--muted); }
.usage-cell dd { margin: 2px 0 0; font-size: 15px; font-weight: 650; font-variant-numeric: tabular-nums; }
`;
