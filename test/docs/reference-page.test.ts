import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { freePort } from '../helpers/net.js';
import { launchChromium, skipWithoutChromium, warnIfSkippedWithoutChromium, type Browser } from '../helpers/chromium.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
warnIfSkippedWithoutChromium('test/docs/reference-page.test.ts');

/**
 * The page is served on the port its own document names, but opened at another host name
 * for it (127.0.0.1 against PUBLIC_URL's localhost), as a user following the server's first
 * log line does: Swagger UI's requests (token, API) must go to the origin the page came from.
 */
// In CI a missing browser must fail the suite, never skip it.
describe.skipIf(skipWithoutChromium)('the API reference page in headless Chromium', { timeout: 90_000 }, () => {
  let t: TestApp;
  let seeded: Seeded;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const offHostRequests: string[] = [];
  const failedRequests: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    // PUBLIC_URL names localhost, the page is opened at 127.0.0.1 (the address the server logs):
    // every request the page makes must still reach this server, at the address it came from.
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://localhost:${port}` } });
    seeded = await seed(t.runtime, { sessions: 3 });
    browser = await launchChromium();
    page = browser.page;
    // Fail a step with the locator that did not appear, well before the test's own timeout.
    page.setDefaultTimeout(20_000);
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    page.on('request', (request) => {
      const { protocol, hostname } = new URL(request.url());
      if ((protocol === 'http:' || protocol === 'https:') && hostname !== '127.0.0.1') offHostRequests.push(request.url());
    });
    page.on('requestfailed', (request) => failedRequests.push(`${request.url()}: ${request.failure()?.errorText}`));
  });

  // What the page showed when a step failed, for whoever reads the CI artifacts.
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail' || !page) return;
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'docs-failure.png'), fullPage: true }).catch(() => undefined);
    console.error(`reference page: console errors ${JSON.stringify(consoleErrors)}, failed requests ${JSON.stringify(failedRequests)}`);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The session-results operation, found by the operationId Swagger UI displays. */
  const listOperation = () =>
    page.locator('.opblock', { has: page.locator('.opblock-summary-operation-id', { hasText: /^SessionResultsController_getSessionSummaryResults$/ }) });

  it('loads /docs from this server alone (also from its address alone), shows the session-results operation, and logs no errors', async () => {
    const response = await page.goto(`${t.url}/`);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toMatch(/^\/docs\/?/);
    await listOperation().waitFor({ state: 'visible' });
    await expect(listOperation().locator('.opblock-summary-path').textContent()).resolves.toBe('/api/v2/sessionResults');
    await expect(page.locator('.info .title').textContent()).resolves.toContain('results-api');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'docs.png'), fullPage: true });

    expect(consoleErrors).toEqual([]);
    expect(offHostRequests).toEqual([]);
    expect(failedRequests).toEqual([]);
  });

  it('gets a token with pasted client credentials and lists session results', async () => {
    await page.goto(`${t.url}/docs`);
    // Authorize: the custom server's client-credentials flow, as a user would paste it.
    await page.locator('.auth-wrapper .authorize').click();
    const dialog = page.locator('.dialog-ux');
    const customServer = dialog.locator('.auth-container', { has: page.locator('h4', { hasText: /^oauth2\b/ }) }).first();
    await customServer.locator('input[data-name="clientId"]').fill(seeded.clientId);
    await customServer.locator('input[data-name="clientSecret"]').fill(seeded.clientSecret);
    await customServer.locator('button.authorize').click();
    // Swagger UI swaps Authorize for Logout once the token endpoint has answered 200.
    await dialog.getByRole('button', { name: 'Remove authorization' }).waitFor({ state: 'visible' });
    await dialog.locator('button.close-modal').click();

    // Try it out: the list request with only the test id.
    const operation = listOperation();
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('tr[data-param-name="testId"] input').fill(seeded.testId);
    await operation.locator('button.execute').click();

    const response = operation.locator('.live-responses-table tr.response');
    await response.waitFor({ state: 'visible' });
    await expect(response.locator('.response-col_status').textContent()).resolves.toBe('200');
    const bodyText = await response.locator('.response-col_description .microlight').first().textContent();
    const body = JSON.parse(bodyText ?? '') as { testId: string; sessions: unknown[] };
    expect(body.testId).toBe(seeded.testId);
    expect(body.sessions).toHaveLength(3);

    await page.screenshot({ path: join(ARTIFACTS, 'docs-try-it-out.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
    expect(offHostRequests).toEqual([]);
    expect(failedRequests).toEqual([]);
  });
});
