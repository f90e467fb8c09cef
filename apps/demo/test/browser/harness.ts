/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createDemoRunner, type DemoRunner, type DemoRunnerOptions } from '../../src/runner/demo-runner';
import type { ResumeRunFunction } from '../../src/server/run-backend';
import { startWebServer, type WebServer } from '../../src/server/web-server';
import { ensureWebBuild } from '../ensure-build';
import { launchChromium } from './chromium';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const assetsDir = join(packageDir, 'dist', 'web');

/**
 * Where screenshots go: `artifacts/screenshots` (ignored by git) unless `CLOSEDLOOP_SCREENSHOTS`
 * names another folder (`apps/demo/screenshots` holds the committed set).
 */
export const screenshotDir = resolve(
  process.env.CLOSEDLOOP_SCREENSHOTS ?? join(packageDir, 'artifacts', 'screenshots'),
);

/** The two viewports every main view is shot at. */
export const desktop = { width: 1440, height: 900 };
export const narrow = { width: 420, height: 860 };

/** A web server over the real runner (cortex, workspace tools, journal) in temp folders. */
export interface TestServer {
  server: WebServer;
  runner: DemoRunner;
  url: string;
  journal: string;
  workspace: string;
  close(): Promise<void>;
}

export async function startTestServer(
  options: Partial<DemoRunnerOptions> & {
    latencyMs?: number;
    sharedWorkspace?: boolean;
    /** A resume is accepted at once but its run starts this much later (a slow machine's window). */
    resumeDelayMs?: number;
  },
) {
  const { latencyMs = 0, sharedWorkspace = false, resumeDelayMs = 0, ...rest } = options;
  const base = mkdtempSync(join(tmpdir(), 'closedloop-web-ui-'));
  const env: NodeJS.ProcessEnv = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: String(latencyMs) };
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  const workspace = join(base, 'ws');
  const runner = createDemoRunner({
    journal: join(base, 'runs'),
    ...(sharedWorkspace ? { workspace } : {}),
    env,
    ...rest,
  });
  const resumeRun: ResumeRunFunction = async (input) => {
    if (resumeDelayMs === 0) return runner.resumeRun(input);
    const started = new Promise((resolve) => setTimeout(resolve, resumeDelayMs)).then(() =>
      runner.resumeRun(input),
    );
    return { runId: input.runId, result: started.then((run) => run.result) };
  };
  const server = await startWebServer({ journalDir: runner.journal, ...runner, resumeRun, assetsDir });
  return {
    server,
    runner,
    url: server.url,
    journal: runner.journal,
    workspace,
    async close() {
      await server.close();
      rmSync(base, { recursive: true, force: true });
    },
  } satisfies TestServer;
}

/** A page in a fresh context, with every page error and console error collected. */
export async function openPage(browser: Browser, viewport = desktop) {
  const context: BrowserContext = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page: Page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // A refused request (4xx) is logged by Chromium as a console error: that is the page working.
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) errors.push(message.text());
  });
  return {
    page,
    errors,
    async close() {
      await context.close();
      expect(errors).toEqual([]);
    },
  };
}

/** Saves a screenshot of the viewport as `<name>.png`. */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}

/** Waits until the page shows a finished run (stop reason in the report, input unlocked). */
export async function waitForIdle(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForSelector('.page[data-phase="idle"] .msg--answer .stop', { timeout });
}

/** The run id in the page's hash. */
export async function runIdFromHash(page: Page): Promise<string> {
  await page.waitForFunction(() => /#run=./.test(location.hash));
  return page.evaluate(() => decodeURIComponent(location.hash.replace(/^#run=/, '')));
}

export { ensureWebBuild, launchChromium };
