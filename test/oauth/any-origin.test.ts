import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium, warnIfSkippedWithoutChromium, type Browser } from '../helpers/chromium.js';
import { freePort } from '../helpers/net.js';
import { seedClient, type SeededClient } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfSkippedWithoutChromium('test/oauth/any-origin.test.ts');

const INSPECTOR_ORIGIN = 'http://localhost:6274';

/** The public endpoints a browser-based OAuth client calls itself, with the method it calls them with. */
function openEndpoints(t: TestApp): { path: string; method: 'GET' | 'POST' }[] {
  return [
    { path: '/.well-known/oauth-protected-resource', method: 'GET' },
    { path: '/.well-known/oauth-protected-resource/mcp', method: 'GET' },
    ...t.runtime.servers.all.flatMap((server) => [
      { path: `/oauth2/${server.id}/.well-known/oauth-authorization-server`, method: 'GET' as const },
      { path: `/oauth2/${server.id}/.well-known/openid-configuration`, method: 'GET' as const },
      { path: `/.well-known/oauth-authorization-server/oauth2/${server.id}`, method: 'GET' as const },
      { path: `/oauth2/${server.id}/v1/keys`, method: 'GET' as const },
      { path: `/oauth2/${server.id}/v1/token`, method: 'POST' as const },
      { path: `/oauth2/${server.id}/v1/revoke`, method: 'POST' as const },
      { path: `/oauth2/${server.id}/v1/register`, method: 'POST' as const },
    ]),
  ];
}

describe('CORS on the public OAuth endpoints (browser-based clients: the MCP Inspector, web connectors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const preflight = (path: string, method: string) =>
    fetch(`${t.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: INSPECTOR_ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    });

  it('answers each preflight: any origin, the method, the headers such a client sends, and no credentials', async () => {
    for (const { path, method } of openEndpoints(t)) {
      const res = await preflight(path, method);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-methods'), path).toBe(method);
      expect(res.headers.get('access-control-allow-headers'), path).toBe('Authorization, Content-Type, Accept, MCP-Protocol-Version');
      expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
  });

  it('lets the page read every answer, refusals included (the 401 challenge and Retry-After exposed)', async () => {
    for (const { path, method } of openEndpoints(t)) {
      const res = await fetch(`${t.url}${path}`, { method, headers: { origin: INSPECTOR_ORIGIN }, ...(method === 'POST' ? { body: new URLSearchParams({}) } : {}) });
      expect(res.headers.get('access-control-allow-origin'), `${method} ${path} (${res.status})`).toBe('*');
      expect(res.headers.get('access-control-expose-headers'), path).toBe('WWW-Authenticate, Retry-After');
    }
  });

  it('opens nothing that reads a cookie: the authorization endpoint, the sign-in page and the account pages stay same-origin', async () => {
    const server = t.runtime.servers.custom;
    for (const path of [`/oauth2/${server.id}/v1/authorize`, '/account/sign-in', '/account']) {
      const res = await fetch(`${t.url}${path}`, { headers: { origin: INSPECTOR_ORIGIN }, redirect: 'manual' });
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      const asked = await preflight(path, 'POST');
      expect(asked.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});

/**
 * What the MCP Inspector's page does before it can call /mcp, played by Chromium from a page of
 * another origin: discovery (with the SDK's version header, which makes the browser ask first),
 * dynamic registration (a JSON body) and a token with HTTP Basic, each answer read by the page.
 */
describe.skipIf(skipWithoutChromium)('a page of another origin in Chromium discovers, registers and gets a token', () => {
  let t: TestApp;
  let browser: Browser;
  let client: SeededClient;
  let base: string;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ port, env: { PUBLIC_URL: base } });
    client = await seedClient(t.runtime);
    browser = await launchChromium(['--host-resolver-rules=MAP inspector.test 127.0.0.1']);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('reads the metadata, its registration, the token and the refusal of a wrong secret', async () => {
    await browser.page.goto(`http://inspector.test:${port}/openapi.json`);
    const seen = await browser.page.evaluate(
      async ({ server, clientId, clientSecret }) => {
        const versioned = { 'mcp-protocol-version': '2025-11-25' };
        const resource = (await (await fetch(`${server}/.well-known/oauth-protected-resource/mcp`, { headers: versioned })).json()) as {
          resource: string;
          authorization_servers: string[];
        };
        const issuer = new URL(resource.authorization_servers[0]!);
        const metadata = (await (await fetch(`${issuer.origin}/.well-known/oauth-authorization-server${issuer.pathname}`, { headers: versioned })).json()) as {
          registration_endpoint: string;
          token_endpoint: string;
        };
        const registered = await fetch(metadata.registration_endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Inspector', redirect_uris: ['http://localhost:6274/oauth/callback'], token_endpoint_auth_method: 'none' }),
        });
        const tokenWith = (secret: string) =>
          fetch(metadata.token_endpoint, {
            method: 'POST',
            headers: { authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'studies:read', resource: resource.resource }),
          });
        const token = await tokenWith(clientSecret);
        const refused = await tokenWith('wrong');
        return {
          resource: resource.resource,
          registered: { status: registered.status, clientId: ((await registered.json()) as { client_id?: string }).client_id },
          token: { status: token.status, type: ((await token.json()) as { token_type?: string }).token_type },
          refused: { status: refused.status, challenge: refused.headers.get('www-authenticate') },
        };
      },
      { server: base, clientId: client.clientId, clientSecret: client.clientSecret },
    );
    expect(seen).toEqual({
      resource: `${base}/mcp`,
      registered: { status: 201, clientId: expect.any(String) },
      token: { status: 200, type: 'Bearer' },
      refused: { status: 401, challenge: expect.stringMatching(/^Basic /) },
    });
  });
});
