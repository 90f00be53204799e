import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's `chromium` package; .ci/run installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
/** In CI a missing browser fails the suite; elsewhere its tests are skipped with a warning. */
export const skipWithoutChromium = !haveChromium && process.env.CI !== 'true';

/** Says, once per suite, that `file`'s browser tests are skipped (outside CI, without Chromium). */
export function warnIfSkippedWithoutChromium(file: string): void {
  if (skipWithoutChromium) console.warn(`\n⚠ SKIPPED ${file}: no Chromium at ${CHROMIUM} (apt-get install -y chromium).\n`);
}

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

/**
 * Headless Chromium with a throw-away profile; `close()` removes the profile. `extraArgs` add
 * to the flags every suite uses (e.g. `--autoplay-policy=no-user-gesture-required` for video).
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!haveChromium) throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs the Debian package chromium.`);
  const profile = mkdtempSync(join(tmpdir(), 'results-api-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true });
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
