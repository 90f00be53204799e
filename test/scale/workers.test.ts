import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { requireRedis } from '../helpers/redis.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/** A GET on a fresh connection (so the cluster spreads requests over its workers) unless `agent` keeps one. */
function get(url: string, headers: Record<string, string> = {}, agent: Agent | false = false): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    request(url, { agent, headers }, (res) => {
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

/** The first log line containing `text`, waiting a little: a log line may arrive after the response it explains. */
async function logLine(server: ServerProcess, text: string): Promise<string | undefined> {
  const find = () => server.lines.find((l) => l.includes(text));
  for (let i = 0; i < 100 && !find(); i++) await new Promise((r) => setTimeout(r, 50));
  return find();
}

const listCount = (metrics: string): number =>
  Number(/http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/sessionResults",status="200"\} (\d+)/.exec(metrics)?.[1] ?? 0);
const workersReporting = (metrics: string, state: 'answered' | 'missing'): number =>
  Number(new RegExp(`^cluster_workers\\{state="${state}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? -1);

/** Starts `serve --workers 2` on a fresh SQLite database and waits for both workers. */
async function startCluster(env: Record<string, string>): Promise<{ server: ServerProcess; s: Seeded; token: string }> {
  const cli = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  const s = await seed(cli, { sessions: 2 });
  const customId = cli.servers.custom.id;
  await cli.close();
  const server = await startServerProcess(env, ['--workers', '2']);
  for (let i = 0; i < 200 && workerPids(server).size < 2; i++) await new Promise((r) => setTimeout(r, 50));
  const res = await fetch(`${server.url}/oauth2/${customId}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret }),
  });
  const token = ((await res.json()) as { access_token: string }).access_token;
  return { server, s, token };
}

describe('serve --workers 2 (one machine, no Redis)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-workers-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'results.db')}`, RATE_LIMIT_API: '6', RATE_LIMIT_WINDOW_SECONDS: '3600' };
  let server: ServerProcess;
  let s: Seeded;
  let token: string;

  beforeAll(async () => {
    ({ server, s, token } = await startCluster(env));
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

  it('the primary serves /metrics on the operations listener with every worker\'s counts; the public port has none', async () => {
    expect((await get(`${server.url}/metrics`)).status).toBe(404);
    const scrape = await get(server.metricsUrl!);
    expect(scrape.status).toBe(200);
    expect(workersReporting(scrape.body, 'answered')).toBe(2);
    expect(workersReporting(scrape.body, 'missing')).toBe(0);
    // Six answered with 200, over both workers (the primary hands out connections in turn).
    expect(listCount(scrape.body)).toBe(6);
  });

  it('a worker that does not answer is reported missing, not awaited', async () => {
    const [stopped] = [...workerPids(server)];
    process.kill(stopped!, 'SIGSTOP');
    try {
      const scrape = await get(server.metricsUrl!);
      expect(scrape.status).toBe(200);
      expect(workersReporting(scrape.body, 'answered')).toBe(1);
      expect(workersReporting(scrape.body, 'missing')).toBe(1);
      const warning = await logLine(server, 'did not send their metrics in time');
      expect(JSON.parse(warning!)).toMatchObject({ level: 40, workerPids: [stopped] });
    } finally {
      process.kill(stopped!, 'SIGCONT');
    }
    const again = await get(server.metricsUrl!);
    expect(workersReporting(again.body, 'answered')).toBe(2);
    expect(listCount(again.body)).toBe(6);
  });

  it('a primary that does not answer holds no request: the worker counts rate limits itself meanwhile', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const primary = server.child.pid!;
    const url = `${server.url}/api/v2/sessionResults?testId=${s.testId}`;
    try {
      // A connection already handed to a worker; a stopped primary accepts no new ones.
      expect((await get(url, { authorization: `Bearer ${token}` }, agent)).status).toBe(429);
      process.kill(primary, 'SIGSTOP');
      try {
        // The primary's budget is spent (429 above); the worker's own counters start afresh.
        expect((await get(url, { authorization: `Bearer ${token}` }, agent)).status).toBe(200);
      } finally {
        process.kill(primary, 'SIGCONT');
      }
      expect(await logLine(server, 'the cluster primary did not answer')).toBeDefined();
      // Answering again, the primary decides again.
      expect((await get(url, { authorization: `Bearer ${token}` }, agent)).status).toBe(429);
    } finally {
      agent.destroy();
    }
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

describe('serve --workers 2 with REDIS_URL (the production setup)', async () => {
  const redisUrl = await requireRedis(); // fails in CI when unreachable; skips with a warning elsewhere
  const dir = mkdtempSync(join(tmpdir(), 'results-api-workers-redis-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'results.db')}`, REDIS_URL: redisUrl ?? '' };
  let server: ServerProcess;
  let s: Seeded;
  let token: string;

  beforeAll(async () => {
    if (redisUrl) ({ server, s, token } = await startCluster(env));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!redisUrl)('/metrics answers with every worker\'s counts', async () => {
    expect(workerPids(server).size).toBe(2);
    for (let i = 0; i < 8; i++) {
      expect((await get(`${server.url}/api/v2/sessionResults?testId=${s.testId}`, { authorization: `Bearer ${token}` })).status).toBe(200);
    }
    const scrape = await get(server.metricsUrl!);
    expect(scrape.status).toBe(200);
    expect(workersReporting(scrape.body, 'answered')).toBe(2);
    expect(listCount(scrape.body)).toBe(8);
    expect((await get(`${server.url}/metrics`)).status).toBe(404);
  });
});
