/**
 * The web UI's single page (`GET /`). Static markup only: `/assets/app.js` fills it in. The
 * execution modes follow seed ADR-006 §4 (單步執行 = "Single step", 自動流程 = "Auto").
 */
export const pageHtml = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>closedloop</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/assets/styles.css">
    <script type="module" src="/assets/app.js"></script>
  </head>
  <body data-phase="idle">
    <header class="topbar">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true"></span>
        <span class="brand-name">closedloop</span>
        <span class="brand-tagline">agents that prove their work</span>
      </div>
      <div class="run-meta">
        <span id="run-id" class="run-id" hidden></span>
        <span id="connection" class="connection" data-state="none"></span>
        <label class="sr-only" for="recent-runs">Open a recent run</label>
        <select id="recent-runs" class="recent-runs"><option value="">Recent runs…</option></select>
      </div>
      <div id="status-pill" class="status-pill" data-phase="idle" role="status" aria-live="polite">
        <span class="status-dot" aria-hidden="true"></span>
        <span id="status-text">Idle</span>
      </div>
    </header>

    <main class="layout">
      <section class="panel chat" aria-labelledby="chat-title">
        <div class="panel-head">
          <h2 id="chat-title">Chat</h2>
          <button type="button" id="new-run" class="link-button" hidden>New run</button>
        </div>
        <ol id="messages" class="messages" aria-live="polite"></ol>
        <form id="composer" class="composer" autocomplete="off">
          <label class="sr-only" for="task">Task</label>
          <textarea id="task" name="task" rows="3" maxlength="20000"
            placeholder="Describe a task — or leave it empty to run the built-in offline scenario."></textarea>
          <fieldset class="mode">
            <legend>Execution mode</legend>
            <label class="mode-option">
              <input type="radio" name="mode" value="single">
              <span class="mode-text"><span class="mode-name">Single step</span>
                <span class="mode-hint">at most one successful action per step — fine control</span></span>
            </label>
            <label class="mode-option">
              <input type="radio" name="mode" value="auto" checked>
              <span class="mode-text"><span class="mode-name">Auto</span>
                <span class="mode-hint">several actions in a row — run it through</span></span>
            </label>
          </fieldset>
          <div class="composer-actions">
            <p id="activity" class="activity" data-phase="idle" aria-live="polite">
              <span class="spinner" aria-hidden="true"></span>
              <span id="activity-text" class="activity-text"></span>
              <span id="activity-detail" class="activity-detail"></span>
            </p>
            <button type="button" id="cancel" class="button button--secondary" disabled>Cancel</button>
            <button type="submit" id="send" class="button button--primary">Send</button>
          </div>
        </form>
      </section>

      <section class="panel dag-panel" aria-labelledby="plan-title">
        <div class="panel-head">
          <h2 id="plan-title">Plan</h2>
          <ul id="legend" class="legend" aria-label="Step colours"></ul>
        </div>
        <div id="dag" class="dag"></div>
      </section>

      <section class="panel detail-panel" aria-labelledby="detail-title">
        <div class="panel-head"><h2 id="detail-title">Step detail</h2></div>
        <div id="detail" class="panel-body"></div>
      </section>

      <section class="panel report-panel" aria-labelledby="report-title">
        <div class="panel-head"><h2 id="report-title">Report</h2></div>
        <div id="report" class="panel-body"></div>
      </section>
    </main>
  </body>
</html>
`;
