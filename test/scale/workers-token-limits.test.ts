import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { seedClient, type SeededClient } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * Client-authentication limits in a cluster without Redis: the counters live in the primary,
 * and a success is refunded there over IPC, so a busy owner is never throttled while guesses
 * still are, whichever worker answers.
 */

/** A token request on a fresh connection, so the cluster spreads requests over its workers. */
function tokenRequest(url: string, client: Pick<SeededClient, 'clientId' | 'clientSecret'>): Promise<number> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
  return new Promise((done, fail) => {
    request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
      res.resume().on('end', () => done(res.statusCode ?? 0));
    })
      .on('error', fail)
      .end(body.toString());
  });
}

describe('serve --workers 2 (no Redis): RATE_LIMIT_TOKEN_CLIENT=2 failures per client and address', () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-workers-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'results.db')}`, RATE_LIMIT_TOKEN_CLIENT: '2', RATE_LIMIT_WINDOW_SECONDS: '3600' };
  let server: ServerProcess;
  let client: SeededClient;
  let tokenUrl: string;

  beforeAll(async () => {
    const cli = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    client = await seedClient(cli);
    const customId = cli.servers.custom.id;
    await cli.close();
    server = await startServerProcess(env, ['--workers', '2']);
    tokenUrl = `${server.url}/oauth2/${customId}/v1/token`;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('successes never count (nor are refused); failures count across workers, in the primary', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await tokenRequest(tokenUrl, client));
    const guess = { clientId: client.clientId, clientSecret: 'guess' };
    for (let i = 0; i < 4; i++) statuses.push(await tokenRequest(tokenUrl, guess));
    statuses.push(await tokenRequest(tokenUrl, client));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 401, 401, 429, 429, 200]);
  });
});
