import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Outage } from '../observability/outage.js';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

/** Decrements a counter that exists and is above zero; a window that already ended is left alone. */
const REFUND_SCRIPT = `local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * Fixed-window counters in Redis, so every process shares one budget per key. One round
 * trip per hit (INCR and PEXPIREAT in a single MULTI) or refund (a script). While Redis
 * cannot answer, `local` counts instead (a budget per process rather than none). A failed
 * command (a Redis that accepts connections but does not answer costs the command timeout)
 * goes to `commandFailed`, which marks the outage down; while it is down no request asks Redis,
 * and whoever ends the outage (a reconnection, an answered PING) hands Redis back.
 */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly local: RateLimiter,
    private readonly prefix: string,
    private readonly outage: Outage,
    private readonly commandFailed: (err: Error) => void,
  ) {}

  private get answering(): boolean {
    return this.redis.status === 'ready' && !this.outage.isDown;
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    if (!this.answering) return this.local.hit(key, limit, windowSeconds);
    try {
      return await this.sharedHit(key, limit, windowSeconds);
    } catch (err) {
      this.failed(err);
      return this.local.hit(key, limit, windowSeconds);
    }
  }

  private async sharedHit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const now = this.clock.now();
    const windowMs = windowSeconds * 1000;
    const windowStart = now - (now % windowMs);
    const windowEnd = windowStart + windowMs;
    const redisKey = this.redisKey(key, windowStart);
    const results = await this.redis.multi().incr(redisKey).pexpireat(redisKey, windowEnd + 1000).exec();
    const [incrError, count] = results?.[0] ?? [new Error('no reply'), 0];
    if (incrError) throw incrError;
    const n = Number(count);
    return {
      allowed: n <= limit,
      limit,
      remaining: Math.max(0, limit - n),
      resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
    };
  }

  async refund(key: string, windowSeconds: number): Promise<void> {
    if (!this.answering) return this.local.refund(key, windowSeconds);
    const now = this.clock.now();
    try {
      await this.redis.eval(REFUND_SCRIPT, 1, this.redisKey(key, now - (now % (windowSeconds * 1000))));
    } catch (err) {
      this.failed(err);
      await this.local.refund(key, windowSeconds);
    }
  }

  private failed(err: unknown): void {
    this.commandFailed(err instanceof Error ? err : new Error(String(err)));
  }

  private redisKey(key: string, windowStart: number): string {
    return `${this.prefix}${key}:${windowStart}`;
  }
}
