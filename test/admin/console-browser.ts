/**
 * Chromium (Debian's package, driven by playwright-core) for the admin console's suites: one
 * page that records console errors, CSP violations, failed and off-host requests; axe-core
 * run inside the page; screenshots into test-artifacts/admin-console/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/admin-console/', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsoleBrowser {
  page: Page;
  /** Console errors (CSP violations among them), uncaught exceptions, failed or off-host requests. */
  problems: string[];
  screenshot(name: string): Promise<void>;
  /** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 AA rules and best practices). */
  accessibilityViolations(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openConsoleBrowser(origin: string): Promise<ConsoleBrowser> {
  // A laptop screen; the clipboard permission lets the copy buttons be tested.
  const browser = await launchChromium([], { viewport: { width: 1366, height: 768 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const { page } = browser;
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  const host = new URL(origin).host;
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // The admin API's refusals (401 before sign-in, a 400 naming a bad line) are answers the
    // console shows; Chromium logs each as an error. Anything else (a CSP violation) is a problem.
    const { url } = message.location();
    if (/status of 4\d\d/.test(message.text()) && new URL(url, origin).pathname.startsWith('/admin/api/')) return;
    problems.push(`console: ${message.text()} (${url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.host !== host) problems.push(`off-host request: ${request.url()}`);
  });
  page.on('requestfailed', (request) => {
    // A <video> drops its first request once it has read the index and asks again by Range, or
    // when its page is left: an aborted media request is how players work, not a failure.
    if (request.resourceType() === 'media' && request.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`failed request: ${request.url()}: ${request.failure()?.errorText}`);
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    page,
    problems,
    screenshot: async (name) => {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    accessibilityViolations: async () => {
      // Evaluated through the DevTools protocol, not as a <script>: the console's CSP allows no inline script.
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
        const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
      });
      return violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.targets.join(', ')}`);
    },
    close: () => browser.close(),
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}
