/**
 * PostgreSQL stopped under a bounded load (issue 12, item 3), on a throw-away cluster: every
 * answer is a 503 with Retry-After in the path's error shape (or a 200 from a cache), never a
 * 500; the log has one outage line and one recovery line, not one per request; requests
 * succeed again after the restart without touching the server; the CLI fails fast naming the
 * database.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { runCli } from '../cli/run-cli.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { requireBinaries, throwawayPostgres, type ThrowawayPostgres } from '../helpers/throwaway.js';
import { describe } from 'vitest';

const havePostgres = requireBinaries('initdb', 'pg_ctl', 'postgres');
const countLines = (server: ServerProcess, text: string) => server.lines.filter((l) => l.includes(text)).length;

(havePostgres ? describe : describe.skip)('PostgreSQL stopped and restarted under load', () => {
  let db: ThrowawayPostgres;
  let env: Record<string, string>;
  let server: ServerProcess;
  let s: Seeded;
  let serverId: string;

  const tokenRequest = () =>
    fetch(`${server.url}/oauth2/${serverId}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret }),
    });
  const list = (token: string) =>
    fetch(`${server.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    db = await throwawayPostgres();
    env = { DATABASE_URL: db.url, AUTH_SERVER_ID: 'ausPgOutageTest000001', TOKEN_REUSE_SECONDS: '0', RATE_LIMIT_TOKEN_CLIENT: '100000' };
    const cli: Runtime = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    try {
      s = await seed(cli, { sessions: 2 });
      serverId = cli.servers.custom.id;
    } finally {
      await cli.close();
    }
    server = await startServerProcess(env);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await db?.destroy();
  });

  it('answers 503 with Retry-After, logs once, and recovers by itself', { timeout: 60_000 }, async () => {
    const issued = await tokenRequest();
    expect(issued.status).toBe(200);
    const token = ((await issued.json()) as { access_token: string }).access_token;
    expect((await list(token)).status).toBe(200);

    await db.stop();

    // Bounded: 30 to 100 rounds of two API requests and one token request, for at least 1.5 s so
    // the one-second caches (which may answer the first rounds) have expired.
    const unavailable: Response[] = [];
    const others: number[] = [];
    const started = Date.now();
    for (let round = 0; round < 100 && (round < 30 || Date.now() - started < 1500); round++) {
      for (const res of await Promise.all([list(token), list(token), tokenRequest()])) {
        if (res.status === 503) unavailable.push(res);
        else others.push(res.status);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(others.filter((status) => status !== 200)).toEqual([]);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const res of unavailable) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await res.json()) as Record<string, unknown>;
      if (new URL(res.url).pathname.startsWith('/oauth2/')) {
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(body.error).toBe('temporarily_unavailable');
      } else {
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(body).toMatchObject({ status: 503, type: 'urn:results-api:problem:unavailable' });
      }
    }
    // Both families were seen refusing.
    expect(new Set(unavailable.map((r) => new URL(r.url).pathname.split('/')[1]))).toEqual(new Set(['api', 'oauth2']));
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);

    // The operator's command fails fast, in one line naming the database.
    const cli = await runCli(['users', 'list'], { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'silent' });
    expect(cli.code).toBe(1);
    expect(cli.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: the database \(DATABASE_URL\) is unreachable: /)]);

    await db.start();
    let recovered: Response | undefined;
    for (let attempt = 0; attempt < 100 && recovered?.status !== 200; attempt++) {
      await new Promise((r) => setTimeout(r, 100));
      recovered = await list(token);
    }
    expect(recovered?.status).toBe(200);
    expect((await tokenRequest()).status).toBe(200);
    // The recovery line comes from a once-a-second probe.
    for (let attempt = 0; attempt < 30 && countLines(server, 'database reachable again') === 0; attempt++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(countLines(server, 'database unreachable')).toBe(1);
    expect(countLines(server, 'database reachable again')).toBe(1);
    expect(countLines(server, 'unhandled error')).toBe(0);
  });
});
