/**
 * Redis stopped under load (issue 12, item 2): two server processes sharing PostgreSQL and a
 * throw-away Redis keep answering without 5xx while it is down (local rate limits, the
 * one-second cache bound), a process started during the outage serves too, the CLI still revokes a credential and every process refuses it,
 * each process logs the outage once and its end once, and shared rate limits come back. A
 * Redis that keeps its connections open but stops answering is an outage too, logged the same,
 * and the CLI still succeeds then, saying so once.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { runCli } from '../cli/run-cli.js';
import { describeIfPostgres, uniqueSchemaName } from '../helpers/postgres.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { requireBinaries, throwawayRedis, type ThrowawayRedis } from '../helpers/throwaway.js';
import { within } from '../helpers/net.js';

const haveRedis = requireBinaries('redis-server', 'redis-cli');

const countLines = (server: ServerProcess, text: string) => server.lines.filter((l) => l.includes(text)).length;
const DOWN = 'Redis unreachable';
const UP = 'Redis reachable again';

await describeIfPostgres('Redis stopped and restarted under load', (postgresUrl) => {
  if (!haveRedis) return;
  const schema = uniqueSchemaName('t_redis_outage');
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  let redis: ThrowawayRedis;
  let env: Record<string, string>;
  let cli: Runtime;
  let servers: ServerProcess[] = [];
  let admin: pg.Client;
  let s: Seeded;

  const tokenRequest = (server: ServerProcess) =>
    fetch(`${server.url}/oauth2/${cli.servers.custom.id}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret }),
    });
  const getToken = async (server: ServerProcess) => {
    const res = await tokenRequest(server);
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const list = (server: ServerProcess, token: string) =>
    fetch(`${server.url}/api/v2/sessionResults?testId=${s.testId}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    redis = await throwawayRedis();
    env = {
      DATABASE_URL: url.href,
      REDIS_URL: redis.url,
      AUTH_SERVER_ID: 'ausRedisOutageTest001',
      RATE_LIMIT_API: '100000',
      RATE_LIMIT_TOKEN_CLIENT: '100000',
      RATE_LIMIT_TOKEN_ADDRESS: '100000',
      TOKEN_REUSE_SECONDS: '0',
      // Windows are aligned to the clock: a day-long one does not roll over between two requests.
      RATE_LIMIT_WINDOW_SECONDS: '86400',
    };
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    cli = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    s = await seed(cli, { sessions: 2 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await cli?.close();
    await redis?.destroy();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('keeps serving, lets the CLI revoke, and recovers shared rate limits', { timeout: 60_000 }, async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const token = await getToken(a);
    expect((await list(b, token)).status).toBe(200);

    await redis.stop();
    // A process started during the outage must come up and serve too.
    servers.push(await startServerProcess(env));

    // Bounded load on both processes, API and token requests: no 5xx while Redis is down.
    const statuses: number[] = [];
    for (let round = 0; round < 40; round++) {
      const replies = await Promise.all(
        servers.flatMap((server) => [list(server, token), list(server, token), tokenRequest(server)]),
      );
      statuses.push(...replies.map((r) => r.status));
      await Promise.all(replies.map((r) => r.arrayBuffer()));
    }
    expect(statuses).toHaveLength(360);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    for (const server of servers) {
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'degraded', checks: { database: 'ok', redis: 'failing' } });
      expect(countLines(server, DOWN)).toBe(1);
    }

    // The operator's command during the outage: it succeeds and says Redis was unreachable, once.
    const revoke = await runCli(['credentials', 'revoke', '--client-id', s.clientId], {
      PATH: process.env.PATH ?? '',
      ...env,
      LOG_LEVEL: 'silent',
    });
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toContain(`revoked ${s.clientId}`);
    expect(revoke.stderr.match(/Redis \(REDIS_URL\) is unreachable/g)).toHaveLength(1);
    expect(revoke.stderr).not.toContain('Unhandled error event');

    // Within the documented one-second cache bound, with no fan-out.
    await within(1000, async () => {
      for (const server of servers) expect((await list(server, token)).status).toBe(401);
    });

    await redis.start();
    // Reconnection backs off to at most 2 s between attempts.
    await within(10_000, async () => {
      for (const server of servers) expect(await (await fetch(`${server.url}/readyz`)).json()).toMatchObject({ status: 'ok' });
    });
    for (const server of servers) {
      expect(countLines(server, DOWN)).toBe(1);
      expect(countLines(server, UP)).toBe(1);
      expect((await list(server, token)).status).toBe(401);
    }

    // Shared counters again: a fresh client's first request at a is counted at b.
    s = await seed(cli, { sessions: 1 });
    const token2 = await getToken(a);
    const first = await list(a, token2);
    const second = await list(b, token2);
    const limit = Number(first.headers.get('x-ratelimit-limit'));
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(limit - 1);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(limit - 2);
  });

  it('notices a Redis that holds its connections but does not answer, and its return, once each', { timeout: 60_000 }, async () => {
    const token = await getToken(servers[0]!);
    const downBefore = servers.map((server) => countLines(server, DOWN));
    const upBefore = servers.map((server) => countLines(server, UP));
    redis.freeze();
    try {
      // Only the first requests wait (the command timeout); the outage then keeps the rest off Redis.
      const statuses: number[] = [];
      for (let round = 0; round < 5; round++) {
        const replies = await Promise.all(servers.flatMap((server) => [list(server, token), list(server, token)]));
        statuses.push(...replies.map((r) => r.status));
        await Promise.all(replies.map((r) => r.arrayBuffer()));
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // The line may still be on its way through the process's stdout.
      await within(2000, async () => {
        for (const [i, server] of servers.entries()) expect(countLines(server, DOWN)).toBe(downBefore[i]! + 1);
      });
      for (const server of servers) {
        const ready = await fetch(`${server.url}/readyz`);
        expect(await ready.json()).toEqual({ status: 'degraded', checks: { database: 'ok', redis: 'failing' } });
      }

      // The operator's command still succeeds, and says once that Redis is unreachable.
      const revoke = await runCli(['credentials', 'revoke', '--client-id', s.clientId], { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'silent' });
      expect(revoke.code).toBe(0);
      expect(revoke.stdout).toContain(`revoked ${s.clientId}`);
      expect(revoke.stderr.match(/Redis \(REDIS_URL\) is unreachable/g)).toHaveLength(1);
    } finally {
      redis.thaw();
    }
    // Probed each second: no reconnection happens, so the answer to a PING ends the outage.
    await within(5000, async () => {
      for (const [i, server] of servers.entries()) expect(countLines(server, UP)).toBe(upBefore[i]! + 1);
    });
    for (const [i, server] of servers.entries()) {
      expect(countLines(server, DOWN)).toBe(downBefore[i]! + 1);
      expect(await (await fetch(`${server.url}/readyz`)).json()).toMatchObject({ status: 'ok' });
    }
  });
});
