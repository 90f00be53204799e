import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { seed } from '../helpers/seed.js';
import { freePort } from '../helpers/net.js';
import { startTestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';

const TOOL_NAMES = [
  'list_workspaces',
  'list_tests',
  'list_sessions',
  'get_session',
  'get_transcript',
  'get_qx_scores',
  'list_clips',
  'list_highlight_reels',
  'get_video_link',
  'search',
];

/** The official SDK's client against /mcp. */
describe('MCP over Streamable HTTP with the official SDK client', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ port, env: { PUBLIC_URL: base } });
  afterAll(() => t.close());
  const s = await seed(t.runtime, { sessions: 3 });

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }

  it('with a token bound to /mcp: negotiates the latest protocol and lists read-only tools with schemas', async () => {
    const client = await connect(await mintToken(t, s, 'B', `${base}/mcp`));
    expect(client.getServerVersion()?.name).toBe('results-api');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const listed = await client.callTool({ name: 'list_sessions', arguments: { testId: s.testId } });
    expect(listed.isError).toBeFalsy();
    expect((listed.structuredContent as { totalCount: number }).totalCount).toBe(3);
    await client.close();
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
  });

  it.each(SUPPORTED_PROTOCOL_VERSIONS)('protocol %s: initialize answers it, and a request carrying it is served', async (version) => {
    const token = await mintToken(t, s, 'B', `${base}/mcp`);
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(version);
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': version });
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(TOOL_NAMES.length);
  });

  it('a REST API token (no resource, or resource = BASE_URL) is refused at /mcp with the MCP metadata', async () => {
    for (const token of [await mintToken(t, s, 'B'), await mintToken(t, s, 'A'), await mintToken(t, s, 'B', base)]) {
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`error="invalid_token"`);
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    }
  });

  it('no token: 401 naming the MCP metadata, whose resource and servers lead to an MCP token', async () => {
    const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="results-api", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    const metadata = (await (await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
    expect(metadata.resource).toBe(`${base}/mcp`);
    expect(metadata.authorization_servers[0]).toBe(t.runtime.servers.custom.issuer);
  });

  it('Origin (DNS rebinding): another site is refused 403 before its token is read; our own origin, a loopback page and no Origin are served', async () => {
    const token = await mintToken(t, s, 'B', `${base}/mcp`);
    const initialize = (origin?: string) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(origin === undefined ? {} : { origin }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
    // A page of evil.example whose name now resolves to 127.0.0.1 reaches this port with its own Origin.
    for (const origin of ['https://evil.example', `http://rebind.evil.example:${port}`, 'null']) {
      const res = await initialize(origin);
      expect(res.status, origin).toBe(403);
      expect(((await res.json()) as { type: string }).type).toBe('urn:results-api:problem:origin-refused');
    }
    const unauthenticated = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(unauthenticated.status).toBe(403);
    // BASE_URL's origin; a loopback page (the server is bound to 127.0.0.1); a client that is no browser.
    for (const origin of [base, 'http://localhost:6274', undefined]) {
      const res = await initialize(origin);
      expect(res.status, origin).toBe(200);
      expect(((await res.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
    }
  });

  it('GET and DELETE /mcp: 405 (stateless: no stream, no session), naming POST; without a token, 401 as every method', async () => {
    const token = await mintToken(t, s, 'B', `${base}/mcp`);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(((await res.json()) as { detail: string }).detail).toBe(`/mcp answers POST, not ${method}.`);
      expect((await fetch(`${t.url}/mcp`, { method })).status).toBe(401);
    }
  });

  it.each([
    ['nothing but the /mcp URL', false],
    ['the expected issuer too', true],
  ])("ClientCredentialsProvider with %s and the API user's id and secret: discovers, gets a token bound to /mcp, calls a tool", async (_what, pinned) => {
    const client = new Client({ name: 'cc-client', version: '1.0.0' });
    const issuer = pinned ? { expectedIssuer: t.runtime.servers.custom.issuer } : {};
    const authProvider = new ClientCredentialsProvider({ clientId: s.clientId, clientSecret: s.clientSecret, ...issuer });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const listed = await client.callTool({ name: 'list_sessions', arguments: { testId: s.testId } });
    expect(listed.isError).toBeFalsy();
    expect((listed.structuredContent as { totalCount: number }).totalCount).toBe(3);
    const token = authProvider.tokens()!.access_token;
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())).toMatchObject({ aud: `${base}/mcp`, client_id: s.clientId });
    await client.close();
  });
});
