import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's `chromium` package; .ci/run installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
/** In CI a missing browser fails the suite; elsewhere its tests are skipped with a warning. */
export const skipWithoutChromium = !haveChromium && process.env.CI !== 'true';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  page: Page;
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a throw-away profile; `close()` removes the profile. */
export async function launchChromium(): Promise<Browser> {
  if (!haveChromium) throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs the Debian package chromium.`);
  const profile = mkdtempSync(join(tmpdir(), 'results-api-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
