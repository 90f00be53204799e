import cluster from 'node:cluster';
import { buildApp } from '../app.js';
import { listenForAdmin } from '../admin/listen.js';
import type { Config } from '../config.js';
import { systemClock } from '../clock.js';
import { MemoryRateLimiter } from '../http/rate-limiter.js';
import { Metrics } from '../observability/metrics.js';
import { listenForMetrics, type MetricsListener } from './metrics-listener.js';
import { openRuntime } from '../runtime.js';
import { startJobRunner } from './start-job-runner.js';
import type { JobRunner } from '../jobs/job-runner.js';
import { startDeliveryWorker, type RunningDeliveryWorker } from './start-delivery-worker.js';
import { PrimaryRateLimiter, answerMetricsRequests } from './cluster-ipc.js';

/**
 * One server process: open the runtime, build the app, listen, and on SIGTERM or SIGINT stop
 * accepting, finish the requests in flight, close the pools, exit 0. Alone, it serves its own
 * metrics on the operations listener; as a cluster worker, the primary does (asking each
 * worker), and without Redis rate limits go through the primary.
 */
export async function runServer(config: Config): Promise<void> {
  const inCluster = cluster.isWorker;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  const rateLimiter =
    inCluster && !config.redisUrl
      ? new PrimaryRateLimiter(new MemoryRateLimiter(systemClock), (err) =>
          app?.log.warn({ reason: err.message }, 'the cluster primary did not answer; rate limits counted by this worker until it does'),
        )
      : undefined;
  const runtime = await openRuntime(config, rateLimiter ? { rateLimiter } : {});
  const metrics = new Metrics(() => runtime.store.database.poolStats?.());
  if (inCluster) answerMetricsRequests(metrics.registry);
  runtime.feed.subscribe((change) => metrics.changesHeard.inc({ topic: change.topic }));
  let metricsListener: MetricsListener | undefined;
  let adminApp: Awaited<ReturnType<typeof listenForAdmin>>;
  let jobRunner: JobRunner | undefined;
  let webhooks: RunningDeliveryWorker | undefined;
  try {
    app = await buildApp({ ...runtime, metrics });
    if (!inCluster && config.metrics) {
      metricsListener = await listenForMetrics(config.metrics, config.connections, () => metrics.registry.metrics(), app.log.child({ listener: 'metrics' }));
      app.log.info({ metricsAddress: metricsListener.address }, `metrics served on ${metricsListener.address}/metrics`);
    }
    adminApp = await listenForAdmin({ ...runtime, metrics }, app.log);
    const address = await app.listen({ host: config.host, port: config.port });
    const authorizationServerId = runtime.servers.custom.id;
    app.log.info(
      { address, authUrl: config.authUrl, baseUrl: config.baseUrl, authorizationServerId },
      `results-api listening on ${address}: API reference ${address}/docs, auth_url ${config.authUrl} (servers default and ${authorizationServerId}), base_url ${config.baseUrl}`,
    );
    jobRunner = startJobRunner(runtime, metrics, app.log);
    webhooks = startDeliveryWorker(runtime, app.log, (outcome) => metrics.webhookAttempts.inc({ outcome }));
  } catch (err) {
    await metricsListener?.close();
    await adminApp?.close();
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
        // Jobs first: a running one is handed back at once for another process to take.
        await jobRunner?.stop();
        // Deliveries in flight finish (each within its timeout) before the database closes.
        await webhooks?.stop();
        await server.close();
        await adminApp?.close();
        await metricsListener?.close();
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
