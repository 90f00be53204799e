import type { Redis } from 'ioredis';
import { RedisChangeFeed } from './redis-change-feed.js';
import type { Clock } from '../clock.js';
import { MemoryRateLimiter } from '../http/rate-limiter.js';
import { RedisRateLimiter } from '../http/redis-rate-limiter.js';
import { Outage, outageReason } from '../observability/outage.js';
import { redisClient } from './redis-client.js';

const PROBE_INTERVAL_MS = 1000;

/**
 * What this process shares through Redis (REDIS_URL): the change feed and the rate-limit
 * counters, and whether Redis is reachable. Nothing here waits for Redis: opening it does not
 * connect first, and while Redis is down the feed falls back to the caches' one-second bound
 * and rate limits to this process's own counters, until it is back (reconnection is automatic).
 */
export class SharedRedis {
  /**
   * Down from the first failed connection or command until the connection is ready again, or,
   * when a command failed on an open connection (a Redis that accepts but does not answer),
   * until a PING answers.
   */
  readonly outage = new Outage();
  readonly feed: RedisChangeFeed;
  readonly rateLimiter: RedisRateLimiter;
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private probe: NodeJS.Timeout | undefined;
  private closing = false;

  /** `prefix` goes before every key and channel, so deployments sharing one Redis stay apart. */
  constructor(url: string, clock: Clock, prefix: string) {
    const failed = (err: Error) => this.outage.markDown(outageReason(err));
    this.commands = redisClient(url, failed);
    this.commands.on('ready', () => this.recovered());
    this.commands.on('close', () => {
      if (!this.closing) this.outage.markDown('connection closed');
    });
    // The subscriber's failures show on the command connection too; its own errors are expected then.
    this.subscriber = redisClient(url, () => {});
    const commandFailed = (err: Error) => this.commandFailed(err);
    this.feed = new RedisChangeFeed(this.commands, this.subscriber, this.outage, `${prefix}changes`, commandFailed);
    this.rateLimiter = new RedisRateLimiter(this.commands, clock, new MemoryRateLimiter(clock), `${prefix}rl:`, this.outage, commandFailed);
  }

  /**
   * A command failed. On a closed or reconnecting connection, its events already tell the
   * outage; on an open one nothing else would, and no 'ready' will come to end it: so the
   * outage starts here and a PING each second ends it.
   */
  private commandFailed(err: Error): void {
    if (this.closing || this.commands.status !== 'ready') return;
    this.outage.markDown(outageReason(err));
    this.probe ??= setInterval(() => {
      this.commands.ping().then(
        () => this.recovered(),
        () => {},
      );
    }, PROBE_INTERVAL_MS).unref();
  }

  private recovered(): void {
    clearInterval(this.probe);
    this.probe = undefined;
    this.outage.markUp();
  }

  /** For /readyz. Fails at once while disconnected. */
  async ping(): Promise<void> {
    await this.commands.ping();
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.probe);
    this.subscriber.disconnect();
    this.commands.disconnect();
  }
}
