import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type LaunchOptions, type Page } from 'playwright-core';

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

/** What a suite may set on the browser context: everything but the executable, the flags and headless mode. */
export type ContextOptions = Omit<Parameters<typeof chromium.launchPersistentContext>[1], keyof LaunchOptions>;

/**
 * Headless Chromium with a throw-away profile; `close()` removes the profile. Every browser test
 * launches it here. `extraArgs` add to the flags every suite uses (e.g.
 * `--autoplay-policy=no-user-gesture-required` for video); `context` sets the page's viewport,
 * permissions and the like.
 */
export async function launchChromium(extraArgs: readonly string[] = [], context: ContextOptions = {}): Promise<Browser> {
  if (!haveChromium) throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs the Debian package chromium.`);
  const profile = mkdtempSync(join(tmpdir(), 'results-api-chromium-'));
  let browserContext: BrowserContext;
  try {
    browserContext = await chromium.launchPersistentContext(profile, { ...context, executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  const page = browserContext.pages()[0] ?? (await browserContext.newPage());
  return {
    page,
    context: browserContext,
    close: async () => {
      await browserContext.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
