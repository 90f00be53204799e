import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerApp } from '../../src/operations/apps.js';
import { issueUserSetupLink } from '../../src/operations/user-sign-in.js';
import { openConsoleBrowser, type ConsoleBrowser } from '../admin/console-browser.js';
import { skipWithoutChromium, warnIfSkippedWithoutChromium } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { USER_PASSWORD } from '../helpers/users.js';

warnIfSkippedWithoutChromium('test/user-auth/pages-browser.test.ts');

describe.skipIf(skipWithoutChromium)('the account pages in Chromium', () => {
  let t: TestApp;
  let browser: ConsoleBrowser;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await openConsoleBrowser(t.url);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a user opens the setup link, chooses a password, signs in with the labelled form; every page passes axe', async () => {
    const link = await issueUserSetupLink(t.runtime, 'browser-user@example.com', 'invite', { actor: 'test' });
    const { page } = browser;
    await page.goto(`${t.url}/account/setup#${link.setupLink.split('#')[1]}`);
    // The script took the token out of the address bar and into the form.
    expect(new URL(page.url()).hash).toBe('');
    expect(await browser.accessibilityViolations()).toEqual([]);
    await page.getByLabel('New password', { exact: true }).fill(USER_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(USER_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(/\/account\/sign-in\?notice=password-set$/);
    expect(await browser.accessibilityViolations()).toEqual([]);
    await browser.screenshot('user-sign-in');

    await page.getByLabel('Email').fill('browser-user@example.com');
    await page.getByLabel('Password', { exact: true }).fill('not the password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not right');
    expect(await browser.accessibilityViolations()).toEqual([]);

    await page.getByLabel('Password', { exact: true }).fill(USER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/account\/apps$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Apps you approved');
    expect(await browser.accessibilityViolations()).toEqual([]);

    await page.getByRole('link', { name: 'Two-step sign-in' }).click();
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    expect(await browser.accessibilityViolations()).toEqual([]);
    expect(browser.problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
  });

  it('the consent page: the user allows an app and the browser lands on its redirect URI with a code; the page passes axe', async () => {
    const received: string[] = [];
    // The app's callback (the browser may ask it for /favicon.ico too, which is not counted).
    const callback = createServer((req, res) => {
      if (req.url?.startsWith('/cb')) received.push(req.url);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const port = (callback.address() as AddressInfo).port;
    try {
      const { app } = await registerApp(t.runtime, { name: 'Browser App', redirectUris: ['http://127.0.0.1/cb'], scopes: ['studies:read', 'clips:read'], clientType: 'public' }, { actor: 'test' });
      const server = t.runtime.servers.custom;
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: `http://127.0.0.1:${port}/cb`,
        response_type: 'code',
        scope: 'clips:read',
        state: 'browser-state',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const { page } = browser;
      await page.goto(`${t.url}/oauth2/${server.id}/v1/authorize?${query}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow Browser App to read your results?');
      expect(await page.getByText('Watch clips and highlight reels').count()).toBe(1);
      expect(await browser.accessibilityViolations()).toEqual([]);
      await browser.screenshot('user-consent');
      await page.getByRole('button', { name: 'Allow' }).click();
      await expect.poll(() => received.length).toBe(1);
      const back = new URL(received[0]!, 'http://x');
      expect(back.searchParams.get('state')).toBe('browser-state');
      expect(back.searchParams.get('iss')).toBe(server.issuer);
      expect(back.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      callback.close();
    }
  });

  it('the pages refuse to be framed', async () => {
    const { page } = browser;
    await page.setContent(`<iframe src="${t.url}/account/sign-in" title="framed"></iframe>`);
    const frame = page.frames()[1]!;
    await page.waitForTimeout(500);
    // A frame blocked by frame-ancestors shows Chromium's error page, never our form.
    expect(await frame.locator('input[name=password]').count()).toBe(0);
  });
});
