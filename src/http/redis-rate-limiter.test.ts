import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Outage, outageReason } from '../observability/outage.js';
import { MemoryRateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

const clock = { now: () => Date.UTC(2026, 0, 1, 12, 0, 30) };

function fakeRedis(status: string, exec: () => Promise<unknown>): Redis {
  const chain = { incr: () => chain, pexpireat: () => chain, exec };
  return { status, multi: () => chain } as unknown as Redis;
}

const unexpected = (err: Error) => {
  throw new Error(`no command should fail here: ${err.message}`);
};

describe('RedisRateLimiter', () => {
  it('counts in Redis while it answers', async () => {
    const limiter = new RedisRateLimiter(fakeRedis('ready', async () => [[null, 7]]), clock, new MemoryRateLimiter(clock), 'test:rl:', new Outage(), unexpected);
    expect(await limiter.hit('k', 10, 60)).toMatchObject({ allowed: true, remaining: 3 });
  });

  it('counts locally while Redis is disconnected, without asking it', async () => {
    const limiter = new RedisRateLimiter(
      fakeRedis('reconnecting', () => Promise.reject(new Error('must not be called'))),
      clock,
      new MemoryRateLimiter(clock),
      'test:rl:',
      new Outage(),
      unexpected,
    );
    expect(await limiter.hit('k', 2, 60)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.hit('k', 2, 60)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.hit('k', 2, 60)).toMatchObject({ allowed: false });
  });

  it('counts locally when a Redis command fails (timeout, connection lost mid-flight), reports it, and leaves Redis alone until the outage ends', async () => {
    let calls = 0;
    const failures: string[] = [];
    const outage = new Outage();
    let answer: () => Promise<unknown> = () => Promise.reject(new Error('Command timed out'));
    const limiter = new RedisRateLimiter(
      fakeRedis('ready', () => {
        calls++;
        return answer();
      }),
      clock,
      new MemoryRateLimiter(clock),
      'test:rl:',
      outage,
      // As SharedRedis does: a failed command on an open connection starts the outage.
      (err) => {
        failures.push(err.message);
        outage.markDown(outageReason(err));
      },
    );
    expect(await limiter.hit('k', 5, 60)).toMatchObject({ allowed: true, remaining: 4 });
    expect(await limiter.hit('k', 5, 60)).toMatchObject({ allowed: true, remaining: 3 });
    expect(await limiter.hit('k', 5, 60)).toMatchObject({ allowed: true, remaining: 2 });
    expect(calls).toBe(1);
    expect(failures).toEqual(['Command timed out']);
    // Whoever ends the outage (a reconnection, an answered PING) hands Redis back.
    answer = async () => [[null, 1]];
    outage.markUp();
    expect(await limiter.hit('k', 5, 60)).toMatchObject({ allowed: true, remaining: 4 });
    expect(calls).toBe(2);
  });
});
