import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormBrowser } from '../helpers/form-browser.js';
import { formBrowserAllows, InMemoryMcpUserProvider } from '../helpers/mcp-user-provider.js';
import { freePort } from '../helpers/net.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { seedUserWithPassword, signIn } from '../helpers/users.js';

let t: TestApp;
let s: Seeded;
let browser: FormBrowser;

beforeAll(async () => {
  const port = await freePort();
  t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
  s = await seed(t.runtime, { sessions: 1 });
  await seedUserWithPassword(t.runtime, s.email);
  browser = new FormBrowser(t.url);
  await signIn(browser, s.email);
});
afterAll(() => t.close());

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

describe('the official MCP SDK OAuth client (auth() with dynamic registration)', () => {
  it.each([
    ['the MCP endpoint', '/mcp'],
    ['the REST API', ''],
  ])('gets a user token for %s with nothing configured but its URL', async (_what, path) => {
    const provider = new InMemoryMcpUserProvider(formBrowserAllows(browser));
    const serverUrl = `${t.url}${path}`;
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.client?.client_id).toMatch(/^0oa/);
    expect(provider.callback!.searchParams.get('iss')).toBe(t.runtime.servers.custom.issuer);
    expect(await auth(provider, { serverUrl, authorizationCode: provider.code })).toBe('AUTHORIZED');
    const token = provider.saved!.access_token;
    const user = await t.runtime.store.credentials.findUserByEmail(s.email);
    expect(claimsOf(token)).toMatchObject({ sub: user!.id, aud: serverUrl, client_id: provider.client!.client_id });
    const rest = await fetch(`${t.url}/usertesting/api/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } });
    // A token bound to the MCP endpoint serves it alone (RFC 8707); one for the REST API reads as the user.
    expect(rest.status).toBe(path === '/mcp' ? 401 : 200);

    // The refresh token rotates: auth() with saved tokens refreshes.
    const before = provider.saved!.refresh_token;
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(provider.saved!.refresh_token).not.toBe(before);
  });

  it('an MCP client signs the user in, as a desktop client does: 401, discovery, registration, consent, code + PKCE, then /mcp serves its tools', async () => {
    const provider = new InMemoryMcpUserProvider(formBrowserAllows(browser));
    const url = new URL(`${t.url}/mcp`);
    const first = new Client({ name: 'sdk-user-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    // The first request is refused; the transport discovers the server, registers, and sends the user to consent.
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.callback).toBeDefined();
    await transport.finishAuth(provider.code);
    expect(claimsOf(provider.saved!.access_token)).toMatchObject({ aud: url.href, client_id: provider.client!.client_id });

    const client = new Client({ name: 'sdk-user-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('list_sessions');
    const listed = await client.callTool({ name: 'list_sessions', arguments: { testId: s.testId } });
    expect(listed.isError).toBeFalsy();
    expect((listed.structuredContent as { totalCount: number }).totalCount).toBe(1);
    const foreign = await client.callTool({ name: 'get_session', arguments: { sessionId: '00000000-0000-4000-8000-000000000000' } });
    expect(foreign.isError).toBe(true);
    expect(JSON.stringify(foreign.content)).toContain('Session not found');
    await client.close();
  });
});
