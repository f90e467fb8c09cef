/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunOptions } from '../../src/cli-options';
import { createDemoRunner, type DemoRunner } from '../../src/run-task';
import { isPrimeTask } from '../../src/scenario/is-prime-scenario';
import { type StartRunInput, startWebServer, type WebServer } from '../../src/server/web-server';
import { ensureChromium, launchChromium } from './chromium';

const screenshotDir = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));
const testTimeout = 25_000;

let journalDir: string;
let browser: Browser;
let server: WebServer;
/** The real backend (run-task.ts) with the scripted model at a visible pace. */
let paced: DemoRunner;
/** The same backend without latency, for runs the page only reads back. */
let instant: DemoRunner;
const startInputs: Array<Pick<StartRunInput, 'task' | 'mode'>> = [];
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

function runOptions(journal: string): RunOptions {
  return {
    provider: 'scripted',
    model: undefined,
    baseURL: undefined,
    mode: 'auto',
    workspace: undefined,
    concurrency: 4,
    maxIterations: 3,
    budgetTokens: undefined,
    json: false,
    journal,
  };
}

beforeAll(async () => {
  ensureChromium();
  mkdirSync(screenshotDir, { recursive: true });
  journalDir = mkdtempSync(join(tmpdir(), 'closedloop-web-ui-'));
  const env = { ...process.env };
  paced = createDemoRunner(runOptions(journalDir), { ...env, CLOSEDLOOP_DEMO_LATENCY_MS: '220' });
  instant = createDemoRunner(runOptions(journalDir), { ...env, CLOSEDLOOP_DEMO_LATENCY_MS: '0' });
  server = await startWebServer({
    journalDir,
    startRun: (input) => {
      startInputs.push({ task: input.task, mode: input.mode });
      return paced.startRun(input);
    },
    readRun: (runId) => paced.readRun(runId),
  });
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (journalDir) rmSync(journalDir, { recursive: true, force: true });
});

beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  page = await context.newPage();
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
});

afterEach(async () => {
  await context.close();
  expect(pageErrors).toEqual([]);
});

async function shoot(name: string) {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}

/** Records every text the status pill shows and every lock/unlock of the task input. */
async function recordStatus() {
  await page.evaluate(() => {
    const statusText = document.getElementById('status-text')!;
    const task = document.getElementById('task') as HTMLTextAreaElement;
    const seen = { status: [statusText.textContent ?? ''], locked: [task.disabled] };
    (window as unknown as { seen: typeof seen }).seen = seen;
    new MutationObserver(() => {
      const text = statusText.textContent ?? '';
      if (seen.status.at(-1) !== text) seen.status.push(text);
    }).observe(statusText, { childList: true, characterData: true, subtree: true });
    new MutationObserver(() => {
      if (seen.locked.at(-1) !== task.disabled) seen.locked.push(task.disabled);
    }).observe(task, { attributes: true, attributeFilter: ['disabled'] });
  });
}

async function seen(): Promise<{ status: string[]; locked: boolean[] }> {
  return page.evaluate(() => (window as unknown as { seen: { status: string[]; locked: boolean[] } }).seen);
}

async function waitForIdle(timeout = 20_000) {
  await page.waitForSelector('body[data-phase="idle"] [data-testid="stop-reason"]', { timeout });
}

const knownStatuses = [
  'not_started',
  'in_progress',
  'completed',
  'unverified',
  'failed',
  'blocked',
  'skipped',
  'replaced',
];

/** Every drawn step has a status the stylesheet colours (an unknown one would render unstyled). */
async function expectKnownStatuses() {
  const statuses = await page.$$eval('.node', (nodes) =>
    nodes.map((node) => node.getAttribute('data-status')),
  );
  expect(statuses.length).toBeGreaterThan(0);
  for (const status of statuses) expect(knownStatuses).toContain(status);
}

async function runIdFromHash(): Promise<string> {
  await page.waitForFunction(() => /#run=./.test(location.hash));
  return page.evaluate(() => decodeURIComponent(location.hash.replace(/^#run=/, '')));
}

describe('closedloop web UI (real run-task backend, scripted model)', () => {
  it(
    'locks the input while the agent thinks and executes, replans the failed step in the DAG, and unlocks with the report',
    async () => {
      await page.goto(server.url);
      await expect.poll(() => page.textContent('#status-text')).toBe('Idle');
      expect(await page.isEnabled('#task')).toBe(true);
      expect(await page.isDisabled('#cancel')).toBe(true);
      expect(await page.isChecked('input[name="mode"][value="auto"]')).toBe(true);
      expect(await page.textContent('.mode')).toContain('Single step');
      await shoot('01-idle');

      await recordStatus();
      await page.fill('#task', isPrimeTask);
      await page.click('#send');

      // Locked at once; the status shows what the agent is doing.
      await expect.poll(() => page.isDisabled('#task')).toBe(true);
      expect(await page.isDisabled('#send')).toBe(true);
      expect(await page.isDisabled('input[name="mode"][value="single"]')).toBe(true);
      await page.waitForSelector('#cancel:not([disabled])');
      await page.waitForSelector('.node[data-step-id="scaffold"]');
      await page.waitForSelector('#status-text:text-matches("^(Thinking|Executing)…$")');
      await shoot('02-running-locked');

      // implement claims a file it never wrote → verification fails it → the replanner replaces it.
      await page.waitForSelector('.node[data-step-id="implement"][data-status="replaced"]', {
        timeout: 15_000,
      });
      const replacement = await page.getAttribute(
        '.edge[data-kind="replaced"][data-from="implement"]',
        'data-to',
      );
      expect(replacement).toBeTruthy();
      await page.waitForSelector(`.node[data-key="${replacement}"]`);
      expect(await page.textContent('.node[data-step-id="implement"] .node-status')).toMatch(
        new RegExp(`^replaced by .*\\b${replacement}\\b`),
      );
      expect(await page.textContent('#messages')).toContain('“Write isPrime” failed verification');
      expect(await page.textContent('#messages')).toContain(
        'Replanned: Write isPrime, Run the tests, Release 1.0.1 →',
      );
      await shoot('03-replanned');

      await waitForIdle();
      expect(await page.textContent('[data-testid="stop-reason"]')).toBe('completed');
      expect(await page.isEnabled('#task')).toBe(true);
      expect(await page.isDisabled('#cancel')).toBe(true);
      expect(await page.textContent('#status-text')).toBe('Idle');
      expect(await page.textContent('#report .answer')).toContain('is-prime');
      expect(await page.textContent('#report .usage')).toMatch(/Replans\s*2/);
      // Every live step ended completed; the replaced steps (implement, run-tests, the first redesign's
      // run-tests, and the release step each redesign replaced) stay drawn.
      const statuses = await page.$$eval('.node', (nodes) =>
        nodes.map((node) => node.getAttribute('data-status')),
      );
      expect(statuses.filter((status) => status === 'replaced')).toHaveLength(5);
      expect(
        statuses.filter((status) => status !== 'replaced').every((status) => status === 'completed'),
      ).toBe(true);

      await expectKnownStatuses();
      const { status, locked } = await seen();
      expect(status).toContain('Thinking…');
      expect(status).toContain('Executing…');
      expect(status.at(-1)).toBe('Idle');
      expect(status.every((text) => ['Idle', 'Thinking…', 'Executing…'].includes(text))).toBe(true);
      expect(locked).toEqual([false, true, false]);
      expect(startInputs.at(-1)).toEqual({ task: isPrimeTask, mode: 'auto' });
      await shoot('04-finished-report');
    },
    testTimeout,
  );

  it(
    "shows a step's tool calls, notes, claims and findings on click (run read back from the journal)",
    async () => {
      const started = await instant.startRun({
        mode: 'auto',
        signal: new AbortController().signal,
        onEvent: () => {},
      });
      expect((await started.result).stopReason).toBe('completed');

      await page.setViewportSize({ width: 1440, height: 1280 });
      await page.goto(`${server.url}#run=${started.runId}`);
      await waitForIdle();
      expect(await page.textContent('#run-id')).toBe(`Run ${started.runId}`);

      await page.click('.node[data-step-id="implement"]');
      const detail = page.locator('#detail');
      await expect.poll(() => detail.locator('h3').textContent()).toBe('Write isPrime');
      expect(await detail.locator('.badge').first().textContent()).toBe('replaced');
      expect(await detail.locator('.finding').first().getAttribute('class')).toBe('finding finding--fail');
      const findings = await detail.locator('.finding--fail').allTextContents();
      expect(findings.join('\n')).toContain('src/is-prime.js');
      expect(await detail.locator('.claims').textContent()).toContain('src/is-prime.js');
      expect(await detail.locator('.call').count()).toBe(1);
      expect(await detail.locator('.call .call-tool').textContent()).toBe('mark_step');
      await shoot('05-step-detail-failed');

      await page.click('.node[data-step-id="scaffold"]');
      await expect.poll(() => detail.locator('h3').textContent()).toBe('Create package.json');
      const calls = detail.locator('.call');
      expect(await calls.count()).toBe(2);
      expect(await calls.nth(0).locator('.call-tool').textContent()).toBe('write_file');
      expect(await calls.nth(0).locator('.badge').textContent()).toBe('success');
      expect(await calls.nth(0).locator('.excerpt--args').textContent()).toContain('package.json');
      expect(await detail.locator('.notes').textContent()).toContain('Created package.json');
      expect(await page.getAttribute('.node[data-step-id="scaffold"]', 'aria-pressed')).toBe('true');
      await shoot('06-step-detail-ledger');
    },
    testTimeout,
  );

  it(
    'cancels a second run: the UI returns to idle with stop reason cancelled',
    async () => {
      // The first test's run is over; this is the server's next run, in single-step mode.
      await page.goto(server.url);
      await page.click('label.mode-option:has(input[value="single"])');
      expect(await page.isChecked('input[name="mode"][value="single"]')).toBe(true);
      await page.fill('#task', 'Second run: cancel me');
      await page.click('#send');
      await page.waitForSelector('.node[data-step-id="scaffold"]');
      await page.waitForSelector('#cancel:not([disabled])');
      expect(startInputs.at(-1)).toEqual({ task: 'Second run: cancel me', mode: 'single' });
      await page.click('#cancel');
      await waitForIdle(10_000);
      expect(await page.textContent('[data-testid="stop-reason"]')).toBe('cancelled');
      expect(await page.textContent('#status-text')).toBe('Idle');
      expect(await page.isEnabled('#task')).toBe(true);
      expect(await page.isEnabled('#send')).toBe(true);
      expect(await page.isDisabled('#cancel')).toBe(true);
      expect(await page.textContent('#messages')).toContain('Second run: cancel me');
      expect(await page.locator('.node--in_progress:not(.is-interrupted)').count()).toBe(0);
      await expectKnownStatuses();
      await shoot('07-cancelled');
    },
    testTimeout,
  );

  it(
    'restores a run from the journal on reload and keeps following it live',
    async () => {
      await page.goto(server.url);
      await page.click('#send');
      const runId = await runIdFromHash();
      await page.waitForSelector('.node[data-step-id="scaffold"][data-status="completed"]', {
        timeout: 10_000,
      });
      const before = await page.$$eval('.node', (nodes) =>
        nodes.map((node) => `${node.getAttribute('data-key')}:${node.getAttribute('data-status')}`),
      );
      const active = (await (await fetch(new URL(`/api/runs/${runId}`, server.url))).json()) as {
        active: boolean;
      };
      expect(active.active).toBe(true);

      await page.reload();
      // Restored from GET /api/runs/:id before any new live event: the same steps, still running.
      await page.waitForSelector('.node[data-step-id="scaffold"][data-status="completed"]');
      const after = new Map(
        await page.$$eval('.node', (nodes) =>
          nodes.map((node) => [node.getAttribute('data-key'), node.getAttribute('data-status')] as const),
        ),
      );
      // Every step seen before the reload is back; finished ones kept their status (the run went on meanwhile).
      for (const entry of before) {
        const [key, status] = entry.split(':');
        expect(after.has(key ?? null), entry).toBe(true);
        if (status === 'completed' || status === 'replaced')
          expect(after.get(key ?? null), entry).toBe(status);
      }
      expect(await page.isDisabled('#task')).toBe(true);
      expect(await page.textContent('#run-id')).toBe(`Run ${runId}`);
      await shoot('08-reloaded-mid-run');

      // …and the live stream continues from where the journal ended: no gaps, no duplicates.
      await waitForIdle();
      expect(await page.textContent('[data-testid="stop-reason"]')).toBe('completed');
      const planned = (
        await page.$$eval('#messages li', (items) => items.map((item) => item.textContent ?? ''))
      ).filter((text) => text.startsWith('•Planned'));
      expect(planned).toHaveLength(1);
      await page.click('.node[data-step-id="scaffold"]');
      expect(await page.locator('#detail .call').count()).toBe(2);
      const journal = (await paced.readRun(runId)) ?? [];
      const toolCalls = journal.filter((event) => event.type === 'tool-call-started').length;
      const drawnCalls = await page.$$eval('.node .node-meta', (metas) =>
        metas.reduce((sum, meta) => sum + Number.parseInt(meta.textContent ?? '0', 10), 0),
      );
      expect(drawnCalls).toBe(toolCalls);
    },
    testTimeout,
  );
});
