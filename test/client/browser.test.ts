import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium, warnIfSkippedWithoutChromium, type Browser } from '../helpers/chromium.js';
import { completedOnly, makeSessions, seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const BUILT_CLIENT = fileURLToPath(new URL('../../packages/client/dist/', import.meta.url));
/** Where the page finds the SDK's built modules: a path on the server's own origin, answered by the test. */
const SDK_PATH = '/sdk-under-test/';

warnIfSkippedWithoutChromium('test/client/browser.test.ts');

/** A page that imports the package's entry module, as a browser app would, and exposes it to the test. */
const PAGE = `<!doctype html><title>SDK</title>
<script type="module">import * as sdk from './index.js'; window.resultsSdk = sdk;</script>`;

interface PageOutcome {
  sessionIds?: string[];
  error?: { name: string; status?: number; message: string };
}

/**
 * The package's build, unbundled, as ES modules in a real browser: a `node:` import or a Node
 * global (process, Buffer) fails here, where the Node tests cannot notice it.
 */
describe.skipIf(skipWithoutChromium)('@results-api/client in headless Chromium against the live server', { timeout: 90_000 }, () => {
  let t: TestApp;
  let s: Seeded;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: makeSessions(9, { statuses: ['COMPLETE', 'ABANDONED', 'COMPLETE'] }) });
    browser = await launchChromium();
    const { page } = browser;
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    // The SDK's files are served from the API's origin, so its calls are same-origin, as for a
    // page the API's own host would serve; every other request reaches the real server.
    await page.route(
      (url) => url.pathname.startsWith(SDK_PATH),
      async (route) => {
        const name = new URL(route.request().url()).pathname.slice(SDK_PATH.length);
        if (name === 'index.html') return route.fulfill({ contentType: 'text/html', body: PAGE });
        if (!/^[\w-]+\.js$/.test(name)) return route.fulfill({ status: 404 });
        return route.fulfill({ contentType: 'text/javascript', body: readFileSync(`${BUILT_CLIENT}${name}`) });
      },
    );
    await page.goto(`${t.url}${SDK_PATH}index.html`);
    await page.waitForFunction(() => 'resultsSdk' in window, undefined, { timeout: 5_000 }).catch((error: unknown) => {
      throw new Error(`The SDK did not load in the browser: ${pageErrors.join('; ') || String(error)}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Runs the SDK in the page: every session of the test, or the error the call threw. */
  function inPage(options: { clientSecret?: string; authorizationServerId?: string; aborted?: boolean }): Promise<PageOutcome> {
    return browser.page.evaluate(
      async ({ baseUrl, testId, clientId, clientSecret, authorizationServerId, aborted }) => {
        const { ResultsClient, ResultsApiError } = (window as unknown as { resultsSdk: typeof import('@results-api/client') }).resultsSdk;
        const client = new ResultsClient({ authUrl: baseUrl, baseUrl, clientId, clientSecret, authorizationServerId });
        const controller = new AbortController();
        if (aborted) controller.abort();
        try {
          const sessionIds: string[] = [];
          for await (const session of client.sessionResults(testId, { pageSize: 2, signal: controller.signal })) sessionIds.push(session.sessionId);
          return { sessionIds };
        } catch (error) {
          const e = error as Error & { status?: number };
          return { error: { name: error instanceof ResultsApiError ? 'ResultsApiError' : e.name, status: e.status, message: e.message } };
        }
      },
      { baseUrl: t.url, testId: s.testId, clientId: s.clientId, clientSecret: options.clientSecret ?? s.clientSecret, authorizationServerId: options.authorizationServerId, aborted: options.aborted ?? false },
    );
  }

  const completedIds = () => completedOnly(s.sessions).map((session) => session.sessionId).toSorted();

  it('form B (custom server): mints a token and reads every completed session, page by page', async () => {
    const outcome = await inPage({ authorizationServerId: t.runtime.servers.custom.id });
    expect(outcome.error).toBeUndefined();
    expect(outcome.sessionIds?.toSorted()).toEqual(completedIds());
    expect(pageErrors).toEqual([]);
  });

  it('form A (default server): the same sessions', async () => {
    const outcome = await inPage({});
    expect(outcome.sessionIds?.toSorted()).toEqual(completedIds());
    expect(pageErrors).toEqual([]);
  });

  it('a wrong secret is a ResultsApiError 401; an aborted signal rejects with the AbortError', async () => {
    expect((await inPage({ clientSecret: 'not-the-secret' })).error).toMatchObject({ name: 'ResultsApiError', status: 401 });
    expect((await inPage({ aborted: true })).error).toMatchObject({ name: 'AbortError' });
  });
});
