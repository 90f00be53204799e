/**
 * Issue 35's console page in a real browser: the Webhooks section lists API users'
 * subscriptions (disabled ones with why), shows one with its delivery log, and disables,
 * enables and deletes it, audited with the admin. Each page is checked with axe-core and for
 * CSP violations, as in console.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../src/admin/app.js';
import { registerAdminConsole } from '../../src/admin/console-route.js';
import { createAdminWithLink } from '../../src/admin/setup-links.js';
import { skipWithoutChromium, warnIfSkippedWithoutChromium } from '../helpers/chromium.js';
import { freePort, within } from '../helpers/net.js';
import { seedClient } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { openConsoleBrowser, type ConsoleBrowser } from './console-browser.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PASSWORD = 'a long enough console password';
const by = { actor: 'cli:test' };

warnIfSkippedWithoutChromium('test/admin/console-webhooks.test.ts');

describe.skipIf(skipWithoutChromium)('the console\'s Webhooks page', { timeout: 120_000 }, () => {
  let t: TestApp;
  let admin: FastifyInstance;
  let adminUrl: string;
  let browser: ConsoleBrowser;
  let buildDir: string | undefined;
  let owner: string;
  let webhookId: string;
  let eventId: string;
  const email = `webhooks-${Date.now()}@example.com`;

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), 'results-api-console-build-'));
    execFileSync(process.execPath, ['scripts/build-console.mjs', buildDir], { cwd: ROOT, stdio: 'pipe' });
    const port = await freePort();
    adminUrl = `http://127.0.0.1:${port}`;
    t = await startTestApp({ env: { ADMIN_PORT: '0', ADMIN_URL: adminUrl } });
    admin = await buildAdminApp({ ...t.runtime, logger: undefined }, [(app) => registerAdminConsole(app, { buildDir })]);
    await admin.listen({ host: '127.0.0.1', port });
    const store = t.runtime.store;
    const client = await seedClient(t.runtime);
    owner = client.email;
    const user = (await store.credentials.findUserByEmail(owner))!;
    const subscribe = (url: string) => store.webhooks.create({ userId: user.id, clientId: client.clientId, url, events: ['session.completed', 'clip.generated'], secret: 'whsec_c2VjcmV0c2VjcmV0' }, by);
    webhookId = (await subscribe('https://hooks.example.com/results')).id;
    eventId = await store.webhooks.sendTest(webhookId, by);
    const paused = await subscribe('https://paused.example.com/in');
    await store.webhooks.update(paused.id, { disabled: true }, by);
    browser = await openConsoleBrowser(adminUrl);
    const { setupLink } = await createAdminWithLink(t.runtime, { email, role: 'support' }, by);
    await browser.page.goto(setupLink);
    await browser.page.getByLabel('New password').fill(PASSWORD);
    await browser.page.getByLabel('Repeat the password').fill(PASSWORD);
    await browser.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await heading('API users').waitFor();
  }, 120_000);

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      await browser?.screenshot(`webhooks-failure-${task.name.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
      console.error(`console problems: ${JSON.stringify(browser?.problems)}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    admin?.server.closeAllConnections();
    await admin?.close();
    await t?.close();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  const heading = (name: string | RegExp) => browser.page.getByRole('heading', { level: 1, name });

  async function checkPage(name: string): Promise<void> {
    await browser.screenshot(name);
    expect(await browser.accessibilityViolations()).toEqual([]);
    expect(browser.problems).toEqual([]);
  }

  it('lists the subscriptions with their owner, marking the disabled one and why', async () => {
    const { page } = browser;
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhooks').waitFor();
    const table = page.getByRole('table', { name: '2 subscriptions' });
    const active = table.getByRole('row', { name: /hooks\.example\.com\/results/ });
    await expect(active.innerText()).resolves.toMatch(new RegExp(`${owner}.*clip\\.generated session\\.completed\tenabled`, 's'));
    const paused = await table.getByRole('row', { name: /paused\.example\.com/ }).innerText();
    expect(paused).toContain('disabled');
    expect(paused).toContain('disabled by its owner or an operator');
    expect(await page.content()).not.toContain('whsec_');
    await checkPage('webhooks-list');
  });

  it('filters by owner, from the address or from an API user\'s page', async () => {
    const { page } = browser;
    await page.getByLabel("Owner's email (empty: everyone)").fill('nobody@example.com');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('nobody@example.com has no webhook subscriptions.').waitFor();
    await page.goto(`${adminUrl}/#/users/${owner}`);
    await page.getByRole('link', { name: 'Its webhook subscriptions' }).click();
    await heading('Webhooks').waitFor();
    await page.getByRole('table', { name: '2 subscriptions' }).waitFor();
    await checkPage('webhooks-of-a-user');
  });

  it('shows a subscription and its delivery log', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'https://hooks.example.com/results' }).click();
    await heading('Webhook subscription').waitFor();
    await page.getByRole('definition').filter({ hasText: webhookId }).waitFor();
    const row = page.getByRole('table', { name: 'Deliveries' }).getByRole('row', { name: new RegExp(eventId) });
    await expect(row.innerText()).resolves.toContain('webhook.test');
    await checkPage('webhook-detail');
  });

  it('disables and enables it from its buttons, audited with the admin', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').filter({ hasText: 'Disabled: nothing more is sent to it.' }).waitFor();
    await within(10_000, async () => expect((await t.runtime.store.webhooks.get(webhookId))?.disabledAt).not.toBeNull());
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('status').filter({ hasText: 'Enabled' }).waitFor();
    await within(10_000, async () => expect((await t.runtime.store.webhooks.get(webhookId))?.disabledAt).toBeNull());
    const audit = await t.runtime.store.audit.list({ action: 'webhook', subject: webhookId });
    expect(audit.filter((e) => e.actor === `admin:${email}`).map((e) => e.action)).toEqual(['webhook.disable', 'webhook.enable']);
    await checkPage('webhook-enabled-again');
  });

  it('deletes it after a confirmation, back on the list', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Delete the subscription to https://hooks.example.com/results' }).click();
    await page.getByRole('button', { name: 'Confirm: delete the subscription to https://hooks.example.com/results' }).click();
    await heading('Webhooks').waitFor();
    await page.getByRole('status').filter({ hasText: 'Deleted the subscription to https://hooks.example.com/results' }).waitFor();
    await page.getByRole('table', { name: '1 subscription' }).waitFor();
    expect(await t.runtime.store.webhooks.get(webhookId)).toBeNull();
    await checkPage('webhook-deleted');
  });
});
