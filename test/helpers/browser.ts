/**
 * Headless Chromium for the browser tests, driven by playwright-core: Debian's `chromium`
 * (.ci/run installs it), or the one LOCUS_CHROMIUM names. `chromiumPath()` is undefined when
 * none is installed: those tests then skip, saying why.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * Starts headless Chromium (no sandbox: CI runs as root), its configuration folder (where
 * Debian's Chromium keeps its crash reports, even with a temporary profile) in a temporary
 * folder removed when the browser closes, never the user's ~/.config.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const home = mkdtempSync(join(tmpdir(), 'locus-chromium-'));
  const browser = await chromium.launch({
    executablePath: chromiumPath()!,
    args: ['--no-sandbox'],
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
    },
  });
  browser.on('disconnected', () => rmSync(home, { recursive: true, force: true }));
  return browser;
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
