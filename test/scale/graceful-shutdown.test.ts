import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../helpers/server-process.js';

type Outcome = { answered: true; status: number } | { answered: false; code: string; partial: boolean };

/** One GET; `partial` means the response had started when the connection failed. */
function get(url: string, agent: Agent): Promise<Outcome> {
  return new Promise((done) => {
    const req = request(url, { agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () => done({ answered: true, status: res.statusCode ?? 0 }));
      res.on('aborted', () => done({ answered: false, code: 'aborted', partial: true }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => done({ answered: false, code: err.code ?? err.message, partial: false }));
    req.end();
  });
}

describe('graceful shutdown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-shutdown-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SIGTERM during a stream of requests: every accepted request completes, then the process exits 0', async () => {
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'results.db')}`, RATE_LIMIT_API: '100000' });
    const url = `${server.url}/oauth2/default/v1/keys`;
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const results: Outcome[] = [];
    // Sixteen clients keep requests in flight until the server stops taking them.
    const clients = Array.from({ length: 16 }, async () => {
      for (;;) {
        const result = await get(url, agent);
        results.push(result);
        if (!result.answered || result.status !== 200) return;
      }
    });
    // The stream is flowing (whatever the machine's load) before the signal.
    while (results.length < 50) await new Promise((r) => setTimeout(r, 10));
    const code = await server.stop('SIGTERM');
    await Promise.all(clients);
    agent.destroy();

    expect(code).toBe(0);
    expect(results.filter((r) => r.answered && r.status === 200).length).toBeGreaterThanOrEqual(50);
    // No response was cut off once it had started.
    expect(results.filter((r) => !r.answered && r.partial)).toEqual([]);
    // Every request the server accepted (logged as incoming) was answered (logged as completed).
    const logged = server.lines.map((l) => JSON.parse(l) as { reqId?: string; msg?: string });
    const incoming = new Set(logged.filter((l) => l.msg === 'incoming request').map((l) => l.reqId));
    const completed = new Set(logged.filter((l) => l.msg === 'request completed').map((l) => l.reqId));
    expect(incoming.size).toBeGreaterThanOrEqual(50);
    expect([...incoming].filter((id) => !completed.has(id))).toEqual([]);
    expect(logged.some((l) => l.msg === 'shutting down')).toBe(true);
  });
});
