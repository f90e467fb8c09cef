/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldRunEvents, type StepVisual, stepVisuals } from '../../src/run-state/run-state';
import { ensureChromium } from './chromium';
import {
  desktop,
  ensureWebBuild,
  launchChromium,
  narrow,
  openPage,
  runIdFromHash,
  shoot,
  startTestServer,
  type TestServer,
  waitForIdle,
} from './harness';

/**
 * The web UI against the real runner (cortex, workspace tools, journal) with the offline
 * scenario's scripted model and no model for typed tasks, in Debian's Chromium.
 */
const testTimeout = 60_000;
let browser: Browser;
let paced: TestServer;

beforeAll(async () => {
  ensureChromium();
  await ensureWebBuild();
  // The resumed run starts a second after the resume was accepted, so the page reads the journal
  // while it still ends with the cancel (a window a loaded machine opens by itself).
  paced = await startTestServer({ latencyMs: 220, resumeDelayMs: 1_000 });
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await paced?.close();
});

/** Records every text the status pill shows and every lock/unlock of the task input. */
async function recordStatus(page: Page) {
  await page.evaluate(() => {
    const seen = { status: [] as string[], locked: [] as boolean[] };
    (window as unknown as { seen: typeof seen }).seen = seen;
    const sample = () => {
      const text = document.getElementById('status-text')?.textContent ?? '';
      const locked = (document.getElementById('task') as HTMLTextAreaElement | null)?.disabled ?? false;
      if (seen.status.at(-1) !== text) seen.status.push(text);
      if (seen.locked.at(-1) !== locked) seen.locked.push(locked);
    };
    sample();
    new MutationObserver(sample).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
}

async function seen(page: Page): Promise<{ status: string[]; locked: boolean[] }> {
  return page.evaluate(() => (window as unknown as { seen: { status: string[]; locked: boolean[] } }).seen);
}

describe('closedloop web UI: the offline demo run', () => {
  it(
    'locks the input while the agent works, draws the replans with dagre, and unlocks with the answer',
    async () => {
      const { page, close } = await openPage(browser);
      await page.goto(paced.url);
      await expect.poll(() => page.textContent('#status-text')).toBe('Idle');
      expect(await page.textContent('#model')).toContain('none · demo only');
      expect(await page.isEnabled('#task')).toBe(true);
      expect(await page.isDisabled('#cancel')).toBe(true);
      expect(await page.isChecked('input[name="mode"][value="auto"]')).toBe(true);
      await shoot(page, '01-idle-desktop');

      await recordStatus(page);
      await page.click('#send');
      await expect.poll(() => page.isDisabled('#task')).toBe(true);
      expect(await page.isDisabled('#send')).toBe(true);
      await page.waitForSelector('#cancel:not([disabled])');
      await page.waitForSelector('.node[data-step-id="scaffold"]');
      expect(await page.textContent('#model')).toContain('scripted/scripted-is-prime');
      await page.waitForSelector('#status-text:text-matches("^(Thinking|Executing)…$")');
      await shoot(page, '02-running-desktop');

      // implement claims a file it never wrote → verification fails it → the replanner replaces it.
      await page.waitForSelector('.node[data-step-id="implement"][data-status="replaced"]', {
        timeout: 20_000,
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
      const messages = await page.textContent('#messages');
      expect(messages).toContain('“Write isPrime” failed verification');
      expect(messages).toContain('Replanned: Write isPrime, Run the tests, Release 1.0.1 →');

      await waitForIdle(page);
      expect(await page.textContent('.msg--answer .stop')).toBe('completed');
      expect(await page.isEnabled('#task')).toBe(true);
      expect(await page.isDisabled('#cancel')).toBe(true);
      // Every live step ended completed; the five replaced steps (implement, run-tests, the first
      // redesign's run-tests, and the release step each redesign replaced) stay drawn, laid out by
      // dagre without overlapping.
      const nodes = await page.$$eval('.node', (elements) =>
        elements.map((element) => {
          const box = element.getBoundingClientRect();
          return {
            status: element.getAttribute('data-status') ?? '',
            x: box.x,
            y: box.y,
            w: box.width,
            h: box.height,
          };
        }),
      );
      expect(nodes.filter((node) => node.status === 'replaced')).toHaveLength(5);
      expect(
        nodes.filter((node) => node.status !== 'replaced').every((node) => node.status === 'completed'),
      ).toBe(true);
      for (const node of nodes) expect(stepVisuals).toContain(node.status as StepVisual);
      for (const [index, a] of nodes.entries()) {
        for (const b of nodes.slice(index + 1)) {
          const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
          expect(overlap).toBe(false);
        }
      }
      expect(await page.locator('.edge[data-kind="dependency"]').count()).toBeGreaterThan(6);

      const { status, locked } = await seen(page);
      expect(status).toContain('Thinking…');
      expect(status).toContain('Executing…');
      expect(status.at(-1)).toBe('Idle');
      expect(locked).toEqual([false, true, false]);

      await page.click('[data-tab="report"]');
      expect(await page.textContent('[data-testid="stop-reason"]')).toBe('completed');
      expect(await page.textContent('#report .answer')).toContain('is-prime');
      expect(await page.textContent('#report .usage')).toMatch(/Replans\s*2/);
      await shoot(page, '03-finished-report-desktop');
      await page.setViewportSize(narrow);
      await shoot(page, '04-finished-420');
      await close();
    },
    testTimeout,
  );

  it(
    "shows a step's overview, tool calls and workspace changes (the server's diff), and the full timeline",
    async () => {
      const started = await paced.runner.startRun({
        mode: 'auto',
        signal: new AbortController().signal,
        onEvent: () => {},
      });
      expect((await started.result).stopReason).toBe('completed');
      const journal = (await paced.runner.readRun(started.runId)) ?? [];
      const { page, close } = await openPage(browser, { width: 1440, height: 1100 });
      await page.goto(`${paced.url}#run=${started.runId}`);
      await waitForIdle(page);
      expect(await page.textContent('#run-id')).toBe(`Run ${started.runId}`);

      await page.click('.node[data-step-id="implement"]');
      const detail = page.locator('#detail');
      await expect.poll(() => detail.locator('h3').textContent()).toBe('Write isPrime');
      expect(await detail.locator('.badge').first().textContent()).toBe('replaced');
      expect((await detail.locator('.finding--fail').allTextContents()).join('\n')).toContain(
        'src/is-prime.js',
      );
      expect(await detail.locator('.claims').textContent()).toContain('src/is-prime.js');
      await page.click('#detail [data-tab="changes"]');
      // It claimed a file and wrote none: nothing in its diff is its own; src/is-prime.js is absent.
      await detail.locator('.change-run').first().waitFor();
      expect(await detail.locator('.origin--step').count()).toBe(0);
      expect(await detail.locator('.file-change[data-path="src/is-prime.js"]').count()).toBe(0);

      await page.click(
        `.node[data-key="${await page.getAttribute('.edge[data-kind="replaced"][data-from="implement"]', 'data-to')}"]`,
      );
      await expect.poll(() => detail.locator('h3').textContent()).toBe('Write isPrime with write_file');
      await detail.locator('.file-change[data-path="src/is-prime.js"]').waitFor();
      const file = detail.locator('.file-change[data-path="src/is-prime.js"]');
      expect(await file.locator('.badge').textContent()).toBe('added');
      expect(await file.locator('.origin').textContent()).toBe("by this step's file tools");
      expect(await file.locator('.diff-line--add').count()).toBeGreaterThan(4);
      expect(await file.locator('.diff').textContent()).toContain('export function isPrime(n)');
      await shoot(page, '05-step-changes-desktop');

      await page.click('#detail [data-tab="calls"]');
      expect(await detail.locator('.call .call-tool').allTextContents()).toEqual(['write_file', 'mark_step']);
      expect(await detail.locator('.call .excerpt--args').first().textContent()).toContain('src/is-prime.js');

      // The timeline lists every entry of the shared fold, in order, tool calls included.
      const expected = foldRunEvents(journal).timeline.map((entry) => entry.text);
      await expect.poll(() => page.locator('#timeline .tl').count()).toBe(expected.length);
      expect(await page.locator('#timeline .tl-text').allTextContents()).toEqual(expected);
      await page.uncheck('.toggle input');
      expect(await page.locator('#timeline .tl[data-kind="tool-call"]').count()).toBe(0);
      await page.check('.toggle input');
      await shoot(page, '06-timeline-desktop');

      await page.click('#detail [data-tab="changes"]');
      await detail.locator('.file-change').first().waitFor();
      await page.setViewportSize(narrow);
      await detail.locator('.change-run').first().scrollIntoViewIfNeeded();
      await shoot(page, '07-step-changes-420');
      await close();
    },
    testTimeout,
  );

  it(
    'cancels a run, offers Resume, and the resumed run completes without redoing finished steps',
    async () => {
      const { page, close } = await openPage(browser);
      await page.goto(paced.url);
      await page.click('label.mode-option:has(input[value="single"])');
      await page.click('#send');
      const runId = await runIdFromHash(page);
      await page.waitForSelector('.node[data-step-id="scaffold"][data-status="completed"]', {
        timeout: 20_000,
      });
      await page.click('#cancel');
      await waitForIdle(page);
      expect(await page.textContent('.msg--answer .stop')).toBe('cancelled');
      await page.waitForSelector('#resume');
      expect(await page.isEnabled('#task')).toBe(true);
      await shoot(page, '08-cancelled-resume-desktop');

      await recordStatus(page);
      await page.click('#resume');
      // The resumed run holds the input while it runs (the phase the page showed before the
      // cancel may still be on it for a moment, so the input itself is what is waited for).
      await page.waitForSelector('#task:disabled', { timeout: 10_000 });
      expect(await page.isDisabled('#task')).toBe(true);
      // A resumed run re-checks its journal and workspace first: on a loaded CI machine that has
      // taken over 30 s (it takes about 3 s when the machine is quiet).
      await waitForIdle(page, 90_000);
      expect(await page.textContent('.msg--answer .stop')).toBe('completed');
      // From the click to the answer the input stayed locked: the journal read right after the
      // resume still ends with the cancel, which is not the run's answer.
      const { status, locked } = await seen(page);
      expect(locked).toEqual([false, true, false]);
      expect(status[1]).toBe('Resuming…');
      expect(status.slice(1, -1)).not.toContain('Idle');
      expect(await page.textContent('#messages')).toContain(`Resumed run ${runId} from its journal`);
      expect(await page.locator('#resume').count()).toBe(0);
      // scaffold ran once: its only start is from before the cancel.
      const journal = (await paced.runner.readRun(runId)) ?? [];
      const starts = journal.filter((event) => event.type === 'step-started' && event.stepId === 'scaffold');
      expect(starts).toHaveLength(1);
      expect(journal.filter((event) => event.type === 'run-started')).toHaveLength(2);
      await close();
    },
    // The resumed run may take up to 90 s on a loaded machine (see above).
    testTimeout + 90_000,
  );

  it(
    'refuses a typed task when the server has no model, saying so once',
    async () => {
      const { page, close } = await openPage(browser, narrow);
      await page.goto(paced.url);
      await page.fill('#task', 'Write a haiku about the sea');
      await page.click('#send');
      const notice = page.locator('#notice');
      await notice.waitFor();
      const text = (await notice.textContent()) ?? '';
      expect(text).toContain('No model is configured for a typed task');
      expect(text).toContain('OPENAI_API_KEY');
      expect(text.match(/No model is configured/g)).toHaveLength(1);
      expect(text).not.toMatch(/could not start: .*could not start/);
      expect(await page.isEnabled('#task')).toBe(true);
      expect(await page.locator('.node').count()).toBe(0);
      await shoot(page, '09-no-model-420');
      await close();
    },
    testTimeout,
  );

  it(
    'restores a run from the journal on reload and keeps following it live',
    async () => {
      const { page, close } = await openPage(browser);
      await page.goto(paced.url);
      await page.click('#send');
      const runId = await runIdFromHash(page);
      await page.waitForSelector('.node[data-step-id="scaffold"][data-status="completed"]', {
        timeout: 20_000,
      });
      await page.reload();
      await page.waitForSelector('.node[data-step-id="scaffold"][data-status="completed"]');
      expect(await page.isDisabled('#task')).toBe(true);
      expect(await page.textContent('#run-id')).toBe(`Run ${runId}`);
      await waitForIdle(page);
      expect(await page.textContent('.msg--answer .stop')).toBe('completed');
      const planned = (await page.locator('#messages li').allTextContents()).filter((text) =>
        text.includes('Planned 5 steps'),
      );
      expect(planned).toHaveLength(1);
      const journal = (await paced.runner.readRun(runId)) ?? [];
      const expected = foldRunEvents(journal).timeline.length;
      await expect.poll(() => page.locator('#timeline .tl').count()).toBe(expected);
      await close();
    },
    testTimeout,
  );

  it(
    'keeps the header whole at 420 px: nothing overflows or overlaps',
    async () => {
      const { page, close } = await openPage(browser, narrow);
      const runs = (await (await fetch(new URL('/api/runs', paced.url))).json()) as {
        runs: Array<{ runId: string }>;
      };
      await page.goto(`${paced.url}#run=${runs.runs[0]?.runId}`);
      await waitForIdle(page);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        narrow.width,
      );
      const boxes = await page.$$eval('.topbar > *, .run-meta > *:not(label)', (elements) =>
        elements.map((element) => {
          const box = element.getBoundingClientRect();
          return {
            id: element.id || element.className,
            left: box.left,
            right: box.right,
            top: box.top,
            bottom: box.bottom,
          };
        }),
      );
      for (const box of boxes) {
        expect(box.left, box.id).toBeGreaterThanOrEqual(0);
        expect(box.right, box.id).toBeLessThanOrEqual(narrow.width);
      }
      const pill = await page.locator('.status-pill').boundingBox();
      const brand = await page.locator('.brand').boundingBox();
      expect(pill && brand && brand.x + brand.width <= pill.x).toBe(true);
      const inMeta = boxes.filter((box) => ['model', 'run-id', 'recent-runs'].includes(box.id));
      expect(inMeta).toHaveLength(3);
      for (const [index, a] of inMeta.entries()) {
        for (const b of inMeta.slice(index + 1)) {
          const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          expect(overlap, `${a.id} / ${b.id}`).toBe(false);
        }
      }
      await shoot(page, '10-header-420');
      await page.setViewportSize(desktop);
      await close();
    },
    testTimeout,
  );
});
