import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium: the browser tests drive it through playwright-core (no bundled browser download). */
export const chromiumPath = '/usr/bin/chromium';

/** Flags for a quiet, offline, headless Chromium in a container. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Makes sure `/usr/bin/chromium` exists: installs Debian's `chromium` package with apt-get when it
 * is missing and we are root, else throws with what to run. Idempotent and fast when present.
 */
export function ensureChromium(): void {
  if (existsSync(chromiumPath)) return;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    throw new Error(
      `The browser tests need Chromium at ${chromiumPath}, and it is missing. Install it as root: ` +
        'apt-get update && apt-get install -y chromium',
    );
  }
  const apt = (args: string[]) =>
    execFileSync('apt-get', args, {
      stdio: 'inherit',
      timeout: 15 * 60_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    apt(['install', '-y', '--no-install-recommends', 'chromium']);
  } catch {
    // The package lists may be missing in a fresh container.
    apt(['update']);
    apt(['install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (!existsSync(chromiumPath)) {
    throw new Error(`apt-get install chromium finished but ${chromiumPath} is still missing.`);
  }
}

/**
 * Launches headless Chromium. playwright's `launch` gives every browser a fresh temporary
 * user-data-dir (removed on close), so no profile state leaks between runs.
 */
export async function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    timeout: 30_000,
  });
}
