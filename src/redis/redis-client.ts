import { Redis } from 'ioredis';

/** Bounds for every Redis call: nothing waits on Redis for longer than about a second. */
export const REDIS_CONNECT_TIMEOUT_MS = 1000;
export const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIS_MAX_RETRY_DELAY_MS = 2000;

/**
 * A Redis connection that never makes its caller wait for an outage to end: commands fail at
 * once while disconnected (no offline queue, no per-request retries) or after the command
 * timeout, and reconnection goes on in the background with a capped backoff. Errors are
 * handed to `onError` (ioredis would otherwise print "Unhandled error event" for each).
 */
export function redisClient(url: string, onError: (err: Error) => void): Redis {
  const client = new Redis(url, {
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // Closing waits this long at most for a peer that does not hang up (ioredis then destroys the socket).
    disconnectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    // Subscriptions are made on every 'ready' by their owner, which works without the offline queue.
    autoResubscribe: false,
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 5), REDIS_MAX_RETRY_DELAY_MS),
  });
  client.on('error', onError);
  return client;
}

/**
 * Resolves true once `client` is ready, false if it fails or `ms` pass first; for the first
 * command of a short-lived process, which may run before the connection is up.
 */
export function whenReady(client: Redis, ms: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  if (client.status === 'end' || client.status === 'close') return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onFailure);
      client.off('end', onFailure);
      resolve(ready);
    };
    const onReady = () => done(true);
    const onFailure = () => done(false);
    const timer = setTimeout(onFailure, ms);
    client.once('ready', onReady);
    client.once('error', onFailure);
    client.once('end', onFailure);
  });
}
