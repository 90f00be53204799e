import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { FormBrowser } from '../helpers/form-browser.js';
import { formBrowserAllows, InMemoryMcpUserProvider } from '../helpers/mcp-user-provider.js';
import { freePort } from '../helpers/net.js';
import { freshPostgresSchema } from '../helpers/postgres.js';
import { completedOnly, seed } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { seedUserWithPassword, signIn } from '../helpers/users.js';

/** A fetch on a fresh connection each time, so the cluster spreads a client's requests over its workers. */
const fetchOnFreshConnections: typeof fetch = (url, init) => {
  const headers = new Headers(init?.headers);
  headers.set('connection', 'close');
  return fetch(url, { ...init, headers });
};

/** The processes that answered /mcp among the server's log lines from `from` on. */
const mcpPids = (server: ServerProcess, from: number) =>
  new Set(server.lines.slice(from).filter((l) => l.includes('"url":"/mcp"')).map((l) => (JSON.parse(l) as { pid: number }).pid));

/**
 * The stateless MCP endpoint behind `serve --workers 2`, on SQLite and (in the postgres
 * project) on PostgreSQL: the official SDK's client, signed in both ways it can be (the API
 * user's client credentials, a user's authorization code), lands on either worker and is served.
 */
// In the postgres project a fresh schema (in CI PostgreSQL must be there; elsewhere, without it, SQLite again).
const postgres = process.env.RESULTS_API_TEST_STORE === 'postgres' ? await freshPostgresSchema('t_mcp_workers') : null;

describe(`MCP on serve --workers 2 (${postgres ? 'PostgreSQL' : 'SQLite'})`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-mcp-workers-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: postgres?.url ?? `sqlite:${join(dir, 'results.db')}`,
    MEDIA_URL: `file:${join(dir, 'media')}`,
    PUBLIC_URL: base,
    RATE_LIMIT_API: '100000',
  };
  const cli = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  const s = await seed(cli, { sessions: 3 });
  await seedUserWithPassword(cli, s.email);
  const issuer = cli.servers.custom.issuer;
  await cli.close();
  const server = await startServerProcess({ ...env, PORT: String(port) }, ['--workers', '2']);
  // Both workers listening before the first request, so the cluster has two to spread them over.
  const listening = () => new Set(server.lines.filter((l) => l.includes('"address"')).map((l) => (JSON.parse(l) as { pid: number }).pid)).size;
  for (let i = 0; i < 200 && listening() < 2; i++) await new Promise((r) => setTimeout(r, 50));
  afterAll(async () => {
    await server.stop();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Six fresh clients with `authProvider`, each calling a tool: every call served, by both workers. */
  async function callsSpreadOverWorkers(authProvider: OAuthClientProvider) {
    const from = server.lines.length;
    for (let i = 0; i < 6; i++) {
      const client = new Client({ name: `worker-test-${i}`, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider, fetch: fetchOnFreshConnections }));
      const result = await client.callTool({ name: 'list_sessions', arguments: { testId: s.testId } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { totalCount: number }).totalCount).toBe(completedOnly(s.sessions).length);
      await client.close();
    }
    expect(mcpPids(server, from).size, server.lines.filter((l) => l.includes('/mcp')).slice(-3).join('\n')).toBe(2);
  }

  it("client credentials: ClientCredentialsProvider with the URL, the issuer and the API user's id and secret", async () => {
    await callsSpreadOverWorkers(new ClientCredentialsProvider({ clientId: s.clientId, clientSecret: s.clientSecret, expectedIssuer: issuer }));
  });

  it("authorization code: the SDK discovers, registers, sends the user to consent, and redeems the code (with PKCE)", async () => {
    const browser = new FormBrowser(base);
    expect((await signIn(browser, s.email)).status).toBe(303);
    const provider = new InMemoryMcpUserProvider(formBrowserAllows(browser));
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider, fetch: fetchOnFreshConnections });
    await expect(new Client({ name: 'sign-in', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(provider.code);
    await callsSpreadOverWorkers(provider);
  });
});
