import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/** A GET on a fresh connection, so the cluster spreads requests over its workers. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    request(url, { agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    })
      .on('error', fail)
      .end();
  });
}

const workerPids = (server: ServerProcess) =>
  new Set(server.lines.filter((l) => l.includes('"address"')).map((l) => (JSON.parse(l) as { pid: number }).pid));

describe('serve --workers 2 (one machine, no Redis)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-workers-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'results.db')}`, RATE_LIMIT_API: '6', RATE_LIMIT_WINDOW_SECONDS: '3600' };
  let server: ServerProcess;
  let s: Seeded;
  let token: string;

  beforeAll(async () => {
    const cli = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    s = await seed(cli, { sessions: 2 });
    const customId = cli.servers.custom.id;
    await cli.close();
    server = await startServerProcess(env, ['--workers', '2']);
    // Both workers listen before the test starts.
    for (let i = 0; i < 200 && workerPids(server).size < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`${server.url}/oauth2/${customId}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret }),
    });
    token = ((await res.json()) as { access_token: string }).access_token;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs two workers on one port, and one rate-limit budget per client across them', async () => {
    expect(workerPids(server).size).toBe(2);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await get(`${server.url}/api/v2/sessionResults?testId=${s.testId}`, { authorization: `Bearer ${token}` })).status);
    }
    // Six allowed in all, whichever worker answered each request.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('/metrics describes every worker, whichever answers', async () => {
    const counts = [];
    for (let i = 0; i < 4; i++) {
      const text = (await get(`${server.url}/metrics`)).body;
      const match = /http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/sessionResults",status="200"\} (\d+)/.exec(text);
      counts.push(Number(match?.[1]));
    }
    expect(counts).toEqual([6, 6, 6, 6]);
  });

  it('restarts a worker that dies', async () => {
    const [victim] = [...workerPids(server)];
    process.kill(victim!, 'SIGKILL');
    for (let i = 0; i < 100 && workerPids(server).size < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(workerPids(server).size).toBe(3);
    expect(server.lines.some((l) => l.includes('worker died; restarting'))).toBe(true);
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  });

  it('stops every worker on SIGTERM and exits 0', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.lines.some((l) => l.includes('all workers stopped'))).toBe(true);
  });
});
