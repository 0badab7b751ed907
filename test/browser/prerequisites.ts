/**
 * Vitest global setup of the browser suite (vitest.browser.config.ts): Chromium must be there
 * (Debian's `chromium`; .ci/run installs it), or the run stops with one line saying what to
 * install: never a silent skip. Then artifacts/browser/ (the screenshots) is emptied.
 */
import { accessSync, constants, mkdirSync, rmSync } from 'node:fs';
import { ARTIFACTS, CHROMIUM } from './browser.js';

export default function setup(): void {
  try {
    accessSync(CHROMIUM, constants.X_OK);
  } catch {
    throw new Error(`the browser suite needs Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  }
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
}
