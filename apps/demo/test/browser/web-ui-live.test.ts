/// <reference lib="dom" />
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askBeforeWrites, createNotesModel, notesNarration } from '../../src/__fixtures__/notes-model';
import { ensureChromium } from './chromium';
import {
  ensureWebBuild,
  launchChromium,
  narrow,
  openPage,
  shoot,
  startTestServer,
  type TestServer,
  waitForIdle,
} from './harness';

/**
 * Typed tasks on a model (a scripted one, the real runner around it): streamed model text, the
 * active model in the header, and approval buttons answering a guarded tool call.
 */
const testTimeout = 60_000;
let browser: Browser;
let guarded: TestServer;

beforeAll(async () => {
  ensureChromium();
  await ensureWebBuild();
  guarded = await startTestServer({
    chatModel: createNotesModel({ latencyMs: 300, chunkDelayMs: 100 }),
    guard: askBeforeWrites,
    sharedWorkspace: true,
  });
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await guarded?.close();
});

describe('closedloop web UI: a typed task on a model', () => {
  it(
    'names the active model, streams the model text live, asks for approval, and runs the call once approved',
    async () => {
      const { page, close } = await openPage(browser);
      await page.goto(guarded.url);
      await expect.poll(() => page.textContent('#model')).toContain('scripted/scripted-notes');
      await page.fill('#task', 'Write notes.txt with a greeting');
      await page.click('#send');
      await page.waitForSelector('.node[data-step-id="notes"][data-status="in_progress"]', {
        timeout: 20_000,
      });
      await page.click('.node[data-step-id="notes"]');
      await page.click('#detail [data-tab="output"]');
      // The text arrives in pieces while the model streams: seen partly, then whole.
      const live = page.locator('[data-testid="live-text"]');
      await live.waitFor({ timeout: 20_000 });
      const lengths = new Set<number>();
      await expect
        .poll(
          async () => {
            const text = (await live.textContent()) ?? '';
            lengths.add(text.length);
            return text;
          },
          { timeout: 20_000, interval: 20 },
        )
        .toContain(notesNarration);
      expect([...lengths].some((length) => length > 0 && length < notesNarration.length)).toBe(true);

      // The guard holds write_file until a human answers.
      const card = page.locator('.msg--approval');
      await card.waitFor({ timeout: 20_000 });
      await expect.poll(() => page.textContent('#status-text')).toBe('Waiting for approval…');
      expect(await card.textContent()).toContain('write_file changes the workspace');
      expect(await card.textContent()).toContain('notes.txt');
      expect(await page.getAttribute('.node[data-step-id="notes"]', 'class')).toContain('is-waiting');
      expect(existsSync(join(guarded.workspace, 'notes.txt'))).toBe(false);
      await page.click('#detail [data-tab="output"]');
      await shoot(page, '11-streamed-text-approval-desktop');
      await page.setViewportSize(narrow);
      await card.scrollIntoViewIfNeeded();
      await shoot(page, '12-approval-420');

      await card.locator('[data-action="approve"]').click();
      await waitForIdle(page);
      expect(await page.textContent('.msg--answer .stop')).toBe('completed');
      expect(await page.textContent('#messages')).toContain('Approved: “Write notes.txt”');
      expect(await page.locator('.msg--approval').count()).toBe(0);
      expect(existsSync(join(guarded.workspace, 'notes.txt'))).toBe(true);
      await close();
    },
    testTimeout,
  );

  it(
    'a Deny click keeps the file unwritten and the step fails its claim',
    async () => {
      const { page, close } = await openPage(browser);
      const before = existsSync(join(guarded.workspace, 'notes.txt'));
      await page.goto(guarded.url);
      await page.fill('#task', 'Write notes.txt again');
      await page.click('#send');
      const card = page.locator('.msg--approval');
      await card.waitFor({ timeout: 20_000 });
      await card.locator('[data-action="deny"]').click();
      await waitForIdle(page);
      expect(await page.textContent('#messages')).toContain('Denied: “Write notes.txt”');
      expect(await page.textContent('.msg--answer .stop')).not.toBe('completed');
      // The earlier run wrote the file; this one could not touch it (the denied call never ran).
      expect(existsSync(join(guarded.workspace, 'notes.txt'))).toBe(before);
      await page.click('.node[data-step-id="notes"]');
      await page.click('#detail [data-tab="calls"]');
      expect(await page.locator('#detail .call--error .call-tool').first().textContent()).toBe('write_file');
      await close();
    },
    testTimeout,
  );
});
