import { ensureChromium } from './chromium';

/**
 * vitest globalSetup for the browser tests: installs Debian's Chromium when it is missing (as
 * root), else fails with the command to run. The test files call `ensureChromium()` too, so they
 * also work when this file is not registered as a globalSetup.
 */
export default function setup(): void {
  ensureChromium();
}
