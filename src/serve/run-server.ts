import cluster from 'node:cluster';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { Metrics } from '../ops/metrics.js';
import { openRuntime } from '../runtime.js';
import { PrimaryRateLimiter, clusterMetricsSource } from './cluster-ipc.js';

/**
 * One server process: open the runtime, build the app, listen, and on SIGTERM or SIGINT stop
 * accepting, finish the requests in flight, close the pools, exit 0. In a cluster worker
 * without Redis, rate limits and metrics go through the primary.
 */
export async function runServer(config: Config): Promise<void> {
  const inCluster = cluster.isWorker;
  const runtime = await openRuntime(config, inCluster && !config.redisUrl ? { rateLimiter: new PrimaryRateLimiter() } : {});
  const metrics = new Metrics(() => runtime.store.database.poolStats?.());
  if (inCluster) metrics.exposition = clusterMetricsSource(metrics.registry);
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    app = await buildApp({ ...runtime, metrics });
    const address = await app.listen({ host: config.host, port: config.port });
    const authorizationServerId = runtime.servers.custom.id;
    app.log.info(
      { address, authUrl: config.authUrl, baseUrl: config.baseUrl, authorizationServerId },
      `results-api listening on ${address}: auth_url ${config.authUrl} (servers default and ${authorizationServerId}), base_url ${config.baseUrl}`,
    );
  } catch (err) {
    await app?.close();
    await runtime.close();
    throw err;
  }

  const server = app;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A second Ctrl-C: the operator does not want to wait for requests in flight. (A worker
    // also gets the SIGTERM its primary forwards after the terminal's SIGINT: not a second ask.)
    if (stopping) {
      if (signal === 'SIGINT') process.exit(1);
      return;
    }
    stopping = true;
    server.log.info({ signal }, 'shutting down');
    void (async () => {
      try {
        await server.close();
        await runtime.close();
      } catch (err) {
        process.stderr.write(`error: shutdown failed: ${(err as Error).message}\n`);
        process.exitCode = 1;
      }
      // A worker's IPC channel would otherwise keep it alive.
      if (inCluster) cluster.worker?.disconnect();
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
