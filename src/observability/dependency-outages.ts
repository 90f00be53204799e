import type { FastifyInstance } from 'fastify';
import { Outage, outageReason } from './outage.js';

const DATABASE_PROBE_INTERVAL_MS = 1000;

/**
 * One log line when a dependency becomes unreachable and one when it is back, however many
 * requests fail in between. Redis reports its own state (its connection reconnects by
 * itself); the database is noticed by a failing request and then probed every second until it
 * answers, so recovery is logged even before the next request arrives.
 *
 * Returns what the error handler calls when a request failed for want of the database.
 */
export function logDependencyOutages(
  app: FastifyInstance,
  deps: { database: { ping(): Promise<void> }; redis?: { outage: Outage } | undefined },
): (err: Error) => void {
  deps.redis?.outage.onChange((event) => {
    if (event.state === 'down') {
      app.log.warn(
        { dependency: 'redis', reason: event.reason },
        'Redis unreachable: rate limits count per process, caches rely on their one-second bound; reconnecting',
      );
    } else app.log.info({ dependency: 'redis' }, 'Redis reachable again: shared rate limits and change fan-out resumed');
  });

  const database = new Outage();
  let probe: NodeJS.Timeout | undefined;
  database.onChange((event) => {
    if (event.state === 'down') {
      app.log.error({ dependency: 'database', reason: event.reason }, 'database unreachable: answering 503 with Retry-After until it is back');
    } else app.log.info({ dependency: 'database' }, 'database reachable again');
  });
  const stopProbe = () => {
    clearInterval(probe);
    probe = undefined;
  };
  app.addHook('onClose', async () => stopProbe());
  return (err) => {
    database.markDown(outageReason(err));
    probe ??= setInterval(() => {
      deps.database.ping().then(
        () => {
          stopProbe();
          database.markUp();
        },
        () => {},
      );
    }, DATABASE_PROBE_INTERVAL_MS).unref();
  };
}
