import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { requireRedis } from '../../test/helpers/redis.js';
import { Outage } from '../observability/outage.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

const redisUrl = await requireRedis();
const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
// Connected before the first test, so the limiter counts in Redis, not in its local fallback.
beforeAll(async () => void (await redis?.ping()));
afterAll(() => redis?.disconnect());

const WINDOW_SECONDS = 3600;

describe.each([
  { name: 'MemoryRateLimiter', make: (clock: ManualClock): RateLimiter => new MemoryRateLimiter(clock) },
  ...(redis ? [{ name: 'RedisRateLimiter', make: (clock: ManualClock): RateLimiter => new RedisRateLimiter(redis, clock, new MemoryRateLimiter(clock), 'test:rl:', new Outage(), () => {}) }] : []),
])('$name', ({ make }) => {
  // Near real time (Redis expires a window's key with the window); a fresh key per test.
  const windowStart = Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000;
  const newLimiter = () => {
    const clock = new ManualClock(windowStart);
    return { clock, limiter: make(clock), key: `test:${randomUUID()}` };
  };

  it('counts hits per window and refuses above the limit', async () => {
    const { limiter, key } = newLimiter();
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.hit(key, 2, WINDOW_SECONDS));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  });

  it('a refund takes back one hit, so a refunded attempt never uses up the budget', async () => {
    const { limiter, key } = newLimiter();
    for (let i = 0; i < 5; i++) {
      expect((await limiter.hit(key, 1, WINDOW_SECONDS)).allowed).toBe(true);
      await limiter.refund(key, WINDOW_SECONDS);
    }
    expect((await limiter.hit(key, 1, WINDOW_SECONDS)).remaining).toBe(0);
  });

  it('a refund never goes below zero, and never reaches into another window', async () => {
    const { clock, limiter, key } = newLimiter();
    await limiter.refund(key, WINDOW_SECONDS);
    await limiter.refund(key, WINDOW_SECONDS);
    expect((await limiter.hit(key, 1, WINDOW_SECONDS)).allowed).toBe(true);
    expect((await limiter.hit(key, 1, WINDOW_SECONDS)).allowed).toBe(false);

    // The next window starts at zero; refunding there does not give the old one back.
    clock.advance(WINDOW_SECONDS * 1000);
    await limiter.refund(key, WINDOW_SECONDS);
    expect((await limiter.hit(key, 1, WINDOW_SECONDS)).allowed).toBe(true);
    expect((await limiter.hit(key, 1, WINDOW_SECONDS)).allowed).toBe(false);
  });
});
