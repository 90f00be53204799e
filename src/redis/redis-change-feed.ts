import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { REDIS_CONNECT_TIMEOUT_MS, whenReady } from './redis-client.js';
import type { Outage } from '../observability/outage.js';
import { LocalChangeFeed, type Change } from '../changes/change-feed.js';

/**
 * Fans changes out to every process through Redis pub/sub (the server processes and the
 * CLI all publish here), so a revocation made anywhere is acted on everywhere at once.
 *
 * Best effort: the database is the truth and every cache re-reads it within one second (on
 * SQLite, every commit is seen anyway), so a change that cannot be announced (Redis down) is
 * delivered here, skipped there, and never fails or blocks the committed change that announces
 * it.
 */
export class RedisChangeFeed extends LocalChangeFeed {
  /** Marks this process's own messages, which it has already delivered to itself. */
  private readonly origin = randomUUID();

  constructor(
    private readonly publisher: Redis,
    subscriber: Redis,
    private readonly outage: Outage,
    private readonly channel: string,
    private readonly commandFailed: (err: Error) => void,
  ) {
    super();
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        const { origin, change } = JSON.parse(message) as { origin: string; change: Change };
        if (origin !== this.origin) this.deliver(change);
      } catch {
        // A malformed message cannot be acted on; the caches' TTL bounds the cost.
      }
    });
    // On every (re)connection: after an outage the subscription has to be made again.
    subscriber.on('ready', () => void subscriber.subscribe(this.channel).catch(() => {}));
  }

  override async publish(change: Change): Promise<void> {
    this.deliver(change);
    // During a known outage, do not wait at all; otherwise give a new connection its chance.
    if (this.outage.isDown || !(await whenReady(this.publisher, REDIS_CONNECT_TIMEOUT_MS))) return;
    await this.publisher.publish(this.channel, JSON.stringify({ origin: this.origin, change })).catch(this.commandFailed);
  }
}
