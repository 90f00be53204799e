import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as openid from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../src/operations/apps.js';
import { InMemoryMcpUserProvider } from '../helpers/mcp-user-provider.js';
import { launchChromium, skipWithoutChromium, warnIfSkippedWithoutChromium, type Browser } from '../helpers/chromium.js';
import { freePort } from '../helpers/net.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { seedUserWithPassword, USER_PASSWORD } from '../helpers/users.js';

warnIfSkippedWithoutChromium('test/user-auth/browser-clients.test.ts');

/**
 * Issue 34's "done when": a partner app (openid-client, with its registration) and an MCP
 * client (the official SDK) each obtain a user's token through a real browser, knowing nothing
 * but the server's URL. Chromium is the user: it signs in on the labelled form and presses
 * Allow; the apps' callbacks are a loopback listener, as a native or local app's would be.
 */
describe.skipIf(skipWithoutChromium)('apps get a user\'s token through Chromium, from the server\'s URL alone', () => {
  let t: TestApp;
  let s: Seeded;
  let chromium: Browser;
  let callback: Server;
  let callbackOrigin: string;
  /** What reached the apps' callback, in order. */
  const received: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    // Advertised where it listens, so the clients see the issuer they talk to.
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
    s = await seed(t.runtime, { sessions: 1 });
    await seedUserWithPassword(t.runtime, s.email);
    callback = createServer((req, res) => {
      if (req.url?.startsWith('/cb')) received.push(req.url);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('You may close this window.');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    callbackOrigin = `http://127.0.0.1:${(callback.address() as AddressInfo).port}`;
    chromium = await launchChromium();
    chromium.page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await chromium?.close();
    callback?.close();
    await t?.close();
  });

  /** The user at the authorization URL: signs in if asked, presses Allow; returns where the browser came back to. */
  async function userAllows(authorizationUrl: URL): Promise<URL> {
    const { page } = chromium;
    const before = received.length;
    await page.goto(authorizationUrl.href);
    if (new URL(page.url()).pathname === '/account/sign-in') {
      await page.getByLabel('Email').fill(s.email);
      await page.getByLabel('Password', { exact: true }).fill(USER_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => received.length).toBe(before + 1);
    return new URL(received[before]!, callbackOrigin);
  }

  it('a partner app (openid-client): protected resource metadata, discovery, sign-in, consent, code with PKCE, the API as the user, introspection', async () => {
    const { app, clientSecret } = await registerApp(
      t.runtime,
      { name: 'Insights Hub', redirectUris: ['http://127.0.0.1/cb'], scopes: ['studies:read', 'sessions:read'], clientType: 'confidential' },
      { actor: 'test' },
    );
    // The server's URL is all the app knows: RFC 9728 names the authorization server, RFC 8414 the rest.
    const resource = (await (await fetch(`${t.url}/.well-known/oauth-protected-resource`)).json()) as { authorization_servers: string[] };
    const config = await openid.discovery(new URL(resource.authorization_servers[0]!), app.clientId, clientSecret!, undefined, {
      algorithm: 'oauth2',
      execute: [openid.allowInsecureRequests],
    });
    const verifier = openid.randomPKCECodeVerifier();
    const state = openid.randomState();
    const redirectUri = `${callbackOrigin}/cb`;
    const authorizationUrl = openid.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'sessions:read',
      state,
      code_challenge: await openid.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });

    const back = await userAllows(authorizationUrl);
    const tokens = await openid.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state }, { redirect_uri: redirectUri });
    expect(tokens.scope).toBe('sessions:read');
    const sessions = await fetch(`${t.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(sessions.status).toBe(200);
    expect(((await sessions.json()) as { sessions: unknown[] }).sessions).toHaveLength(1);
    const user = await t.runtime.store.credentials.findUserByEmail(s.email);
    expect(await openid.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, sub: user!.id, username: s.email, client_id: app.clientId });
    expect(await openid.tokenIntrospection(config, tokens.refresh_token!)).toMatchObject({ active: true, sub: user!.id, scope: 'sessions:read' });
  });

  it('an MCP client (the official SDK, dynamic registration): the user allows it in the browser and /mcp serves its tools', async () => {
    const provider = new InMemoryMcpUserProvider(userAllows, `${callbackOrigin}/cb`, 'Browser MCP client');
    const serverUrl = `${t.url}/mcp`;
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.callback!.searchParams.get('iss')).toBe(t.runtime.servers.custom.issuer);
    expect(await auth(provider, { serverUrl, authorizationCode: provider.callback!.searchParams.get('code')! })).toBe('AUTHORIZED');
    const client = new Client({ name: 'browser-mcp-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    const listed = await client.callTool({ name: 'list_sessions', arguments: { testId: s.testId } });
    expect(listed.isError).toBeFalsy();
    expect((listed.structuredContent as { totalCount: number }).totalCount).toBe(1);
    await client.close();
  });
});
