import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { freePort } from '../helpers/net.js';
import { seed } from '../helpers/seed.js';
import { startServerProcess } from '../helpers/server-process.js';

/** The stateless MCP endpoint behind `serve --workers 2`: a client's requests land on either worker and all succeed. */
describe('MCP on serve --workers 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-mcp-workers-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { DATABASE_URL: `sqlite:${join(dir, 'results.db')}`, MEDIA_URL: `file:${join(dir, 'media')}`, PUBLIC_URL: base, RATE_LIMIT_API: '100000' };
  const cli = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  const s = await seed(cli, { sessions: 3 });
  const customId = cli.servers.custom.id;
  await cli.close();
  const server = await startServerProcess({ ...env, PORT: String(port) }, ['--workers', '2']);
  // Both workers listening before the first request, so the cluster has two to spread them over.
  const listening = () => new Set(server.lines.filter((l) => l.includes('"address"')).map((l) => (JSON.parse(l) as { pid: number }).pid)).size;
  for (let i = 0; i < 200 && listening() < 2; i++) await new Promise((r) => setTimeout(r, 50));
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every call succeeds, served by both workers', async () => {
    const res = await fetch(`${server.url}/oauth2/${customId}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret, resource: `${base}/mcp` }),
    });
    const { access_token: token } = (await res.json()) as { access_token: string };
    const pids = new Set<string>();
    for (let i = 0; i < 6; i++) {
      // A fresh client (and connection) each time, so the cluster spreads them.
      const client = new Client({ name: `worker-test-${i}`, version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => {
          const headers = new Headers(init?.headers);
          headers.set('connection', 'close');
          return fetch(url, { ...init, headers });
        },
      });
      await client.connect(transport);
      const result = await client.callTool({ name: 'list_sessions', arguments: { testId: s.testId } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { totalCount: number }).totalCount).toBe(3);
      await client.close();
    }
    for (const line of server.lines.filter((l) => l.includes('"url":"/mcp"'))) pids.add(String((JSON.parse(line) as { pid: number }).pid));
    expect(pids.size, server.lines.filter((l) => l.includes('/mcp')).slice(0, 3).join('\n')).toBe(2);
  });
});
