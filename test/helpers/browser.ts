/**
 * Headless Chromium for the browser tests, driven by playwright-core: Debian's `chromium`
 * (.ci/run installs it), or the one LOCUS_CHROMIUM names. `chromiumPath()` is undefined when
 * none is installed: those tests then skip, saying why.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium binary the tests use, if any. */
export function chromiumPath(): string | undefined {
  const env = process.env.LOCUS_CHROMIUM;
  if (env) return existsSync(env) ? env : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

/** Why the browser tests skip, or false when they run. */
export function browserSkip(): string | false {
  return chromiumPath() ? false : 'no Chromium here (apt-get install chromium, or set LOCUS_CHROMIUM)';
}

/** Starts headless Chromium (no sandbox: CI runs as root). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chromiumPath()!, args: ['--no-sandbox'] });
}

/**
 * A page of `browser` with the network off, recording console errors and page errors into
 * `errors`.
 */
export async function offlinePage(
  browser: Browser,
  errors: string[],
  viewport = { width: 1280, height: 900 },
): Promise<Page> {
  const context = await browser.newContext({ viewport, offline: true });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  return page;
}
