import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium, warnIfSkippedWithoutChromium, type Browser } from '../helpers/chromium.js';
import { freePort } from '../helpers/net.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';

warnIfSkippedWithoutChromium('test/mcp/origin-browser.test.ts');

/**
 * DNS rebinding in a real browser: Chromium resolves rebind.test to 127.0.0.1 (as an attacker's
 * DNS would after the page loaded), so the attacker's page and /mcp are "same origin" to it.
 * Chromium still sends the page's Origin with the POST, and that is what /mcp refuses.
 */
describe.skipIf(skipWithoutChromium)('/mcp against a DNS-rebinding page in Chromium', () => {
  let port: number;
  let base: string;
  let t: TestApp;
  let s: Seeded;
  let browser: Browser;

  beforeAll(async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ port, env: { PUBLIC_URL: base } });
    s = await seed(t.runtime, { sessions: 1 });
    browser = await launchChromium(['--host-resolver-rules=MAP rebind.test 127.0.0.1']);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** From a page of `origin`, the initialize request a script there would send (with a token it somehow has). */
  async function initializeFrom(origin: string): Promise<number> {
    await browser.page.goto(`${origin}/openapi.json`);
    const token = await mintToken(t, s, 'B', `${base}/mcp`);
    return browser.page.evaluate(async (bearer) => {
      const res = await fetch('/mcp', {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
      });
      return res.status;
    }, token);
  }

  it("refuses the rebinding page's request (403) and serves the same request from the server's own page", async () => {
    expect(await initializeFrom(`http://rebind.test:${port}`)).toBe(403);
    expect(await initializeFrom(base)).toBe(200);
  });
  /**
   * A browser-based MCP client on another origin (as the Inspector's page on localhost:6274):
   * from a page of `origin`, a cross-origin POST to the server's /mcp, first without a token,
   * then with one (which makes the browser ask first, in a preflight). What the page can read.
   */
  async function crossOriginFrom(origin: string) {
    await browser.page.goto(`${origin}/openapi.json`);
    const token = await mintToken(t, s, 'B', `${base}/mcp`);
    return browser.page.evaluate(
      async ({ mcp, bearer }) => {
        const init = (headers: Record<string, string>) => ({
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
        });
        try {
          const anonymous = await fetch(mcp, init({}));
          const signedIn = await fetch(mcp, init({ authorization: `Bearer ${bearer}` }));
          const body = (await signedIn.json()) as { result?: { serverInfo?: { name?: string } } };
          return { anonymous: anonymous.status, challenge: anonymous.headers.get('www-authenticate'), status: signedIn.status, server: body.result?.serverInfo?.name };
        } catch (error) {
          return { failed: String(error) };
        }
      },
      { mcp: `${base}/mcp`, bearer: token },
    );
  }

  it('serves a page of another allowed origin through CORS: its preflight, the 401 challenge it must read, and the answer', async () => {
    // localhost and 127.0.0.1 are different origins; a loopback page may call a server bound to loopback.
    expect(await crossOriginFrom(`http://localhost:${port}`)).toEqual({
      anonymous: 401,
      challenge: expect.stringContaining(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`) as string,
      status: 200,
      server: 'results-api',
    });
  });

  it("gives a page of an origin it does not allow nothing to read: the browser refuses the page the answer", async () => {
    expect(await crossOriginFrom(`http://rebind.test:${port}`)).toEqual({ failed: expect.stringContaining('Failed to fetch') as string });
  });
});
