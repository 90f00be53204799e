import type { Redis } from 'ioredis';
import { RedisChangeFeed } from '../changes/redis-change-feed.js';
import type { Clock } from '../clock.js';
import { MemoryRateLimiter } from '../http/rate-limiter.js';
import { RedisRateLimiter } from '../http/redis-rate-limiter.js';
import { Outage } from '../ops/outage.js';
import { redisClient } from './redis-client.js';

/**
 * What this process shares through Redis (REDIS_URL): the change feed and the rate-limit
 * counters, and whether Redis is reachable. Nothing here waits for Redis: opening it does not
 * connect first, and while Redis is down the feed falls back to the caches' one-second bound
 * and rate limits to this process's own counters, until it is back (reconnection is automatic).
 */
export class SharedRedis {
  /** Down from the first failed connection or command until the connection is ready again. */
  readonly outage = new Outage();
  readonly feed: RedisChangeFeed;
  readonly rateLimiter: RedisRateLimiter;
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private closing = false;

  /** `prefix` goes before every key and channel, so deployments sharing one Redis stay apart. */
  constructor(url: string, clock: Clock, prefix: string) {
    const failed = (err: Error) => this.outage.markDown(err.message || (err as { code?: string }).code || 'connection failed');
    this.commands = redisClient(url, failed);
    this.commands.on('ready', () => this.outage.markUp());
    this.commands.on('close', () => {
      if (!this.closing) this.outage.markDown('connection closed');
    });
    // The subscriber's failures show on the command connection too; its own errors are expected then.
    this.subscriber = redisClient(url, () => {});
    this.feed = new RedisChangeFeed(this.commands, this.subscriber, this.outage, `${prefix}changes`);
    this.rateLimiter = new RedisRateLimiter(this.commands, clock, new MemoryRateLimiter(clock), `${prefix}rl:`);
  }

  /** For /readyz. Fails at once while disconnected. */
  async ping(): Promise<void> {
    await this.commands.ping();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.subscriber.disconnect();
    this.commands.disconnect();
  }
}
