/**
 * Two deployments on one Redis: each keeps its rate-limit counters and its changes to itself
 * (a prefix of its own, derived from its database unless REDIS_KEY_PREFIX says otherwise),
 * while every process of one deployment shares them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/changes/change-feed.js';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { within } from '../helpers/net.js';
import { requireRedis } from '../helpers/redis.js';

const redisUrl = await requireRedis();

describe.skipIf(!redisUrl)('deployments sharing one Redis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-prefix-'));
  const open = (database: string, env: Record<string, string> = {}) =>
    openRuntime(loadConfig({ DATABASE_URL: `sqlite:${join(dir, database)}`, REDIS_URL: redisUrl!, LOG_LEVEL: 'silent', ...env }));
  let first: Runtime;
  let firstAgain: Runtime;
  let second: Runtime;
  beforeAll(async () => {
    [first, firstAgain, second] = [await open('first.db'), await open('first.db'), await open('second.db')];
    // Connected before anything is published (publishing never waits long for a connection); a
    // PING while the shared connection is still connecting fails at once, so ask until it answers.
    await Promise.all([first, firstAgain, second].map((r) => within(5000, async () => void (await r.redis!.ping()))));
  });
  afterAll(async () => {
    await Promise.all([first, firstAgain, second].map((r) => r?.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const heard = (runtime: Runtime) => {
    const changes: Change[] = [];
    runtime.feed.subscribe((change) => changes.push(change));
    return changes;
  };

  it('changes reach every process of the deployment, and no other deployment', async () => {
    const [again, other] = [heard(firstAgain), heard(second)];
    await first.store.credentials.createUser('ada@example.com', { actor: 'test' });
    await expect.poll(() => again, { timeout: 5000 }).toEqual([{ topic: 'access' }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(other).toEqual([]);
  });

  it('rate-limit counters are shared within the deployment only', async () => {
    const key = `client:${Date.now()}`;
    await first.rateLimiter.hit(key, 10, 3600);
    await first.rateLimiter.hit(key, 10, 3600);
    expect((await firstAgain.rateLimiter.hit(key, 10, 3600)).remaining).toBe(7);
    expect((await second.rateLimiter.hit(key, 10, 3600)).remaining).toBe(9);
  });

  it('REDIS_KEY_PREFIX joins deployments explicitly (and refuses a bad prefix)', async () => {
    const [a, b] = [await open('third.db', { REDIS_KEY_PREFIX: 'shared:' }), await open('fourth.db', { REDIS_KEY_PREFIX: 'shared:' })];
    try {
      await Promise.all([a, b].map((r) => within(5000, async () => void (await r.redis!.ping()))));
      const changes = heard(b);
      await a.store.credentials.createUser('grace@example.com', { actor: 'test' });
      await expect.poll(() => changes, { timeout: 5000 }).toEqual([{ topic: 'access' }]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'has space' })).toThrow('REDIS_KEY_PREFIX must be 1-64 letters, digits or . _ : - (got "has space")');
  });
});
