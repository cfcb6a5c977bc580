import { chromium, type Browser } from 'playwright-core';

/**
 * The machine's Chromium (CHROMIUM_PATH, else the distribution's), headless and quiet: no
 * sandbox (tests run as root in CI), no GPU, and none of the background traffic to Google's
 * services a first run would start, so a test sees only the requests its pages make.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
