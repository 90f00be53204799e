import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerHealth } from './health.js';

const ok = async () => {};
const failing = async () => {
  throw new Error('connect ECONNREFUSED');
};

async function readyz(required: Record<string, () => Promise<void>>, degradable: Record<string, () => Promise<void>>) {
  const app = Fastify();
  registerHealth(app, required, degradable);
  const res = await app.inject({ method: 'GET', url: '/readyz' });
  await app.close();
  return { status: res.statusCode, body: res.json() as unknown };
}

describe('/readyz', () => {
  it('Redis down: still ready (200), degraded, naming redis', async () => {
    expect(await readyz({ database: ok }, { redis: failing })).toEqual({
      status: 200,
      body: { status: 'degraded', checks: { database: 'ok', redis: 'failing' } },
    });
  });

  it('database down: not ready (503), whatever Redis does', async () => {
    expect(await readyz({ database: failing }, { redis: ok })).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { database: 'failing', redis: 'ok' } },
    });
  });

  it('everything answers: ok', async () => {
    expect(await readyz({ database: ok }, { redis: ok })).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });
  });
});
