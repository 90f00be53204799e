import { Redis } from 'ioredis';
import { LocalChangeFeed, type Change } from './change-feed.js';

const CHANNEL = 'results-api:changes';

/**
 * Fans changes out to every process through Redis pub/sub (the server processes and the
 * CLI all publish here), so a revocation made anywhere is acted on everywhere at once.
 */
export class RedisChangeFeed extends LocalChangeFeed {
  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
  ) {
    super();
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== CHANNEL) return;
      try {
        this.deliver(JSON.parse(message) as Change);
      } catch {
        // A malformed message cannot be acted on; the caches' TTL bounds the cost.
      }
    });
  }

  static async connect(url: string): Promise<RedisChangeFeed> {
    const publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    const subscriber = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    await Promise.all([publisher.connect(), subscriber.connect()]);
    await subscriber.subscribe(CHANNEL);
    return new RedisChangeFeed(publisher, subscriber);
  }

  /** Other processes receive it via Redis; this one receives it through its own subscription. */
  override async publish(change: Change): Promise<void> {
    await this.publisher.publish(CHANNEL, JSON.stringify(change));
  }

  override async close(): Promise<void> {
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
