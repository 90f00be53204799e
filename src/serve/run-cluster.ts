import cluster, { type Worker } from 'node:cluster';
import { pino, type LoggerOptions } from 'pino';
import type { Config } from '../config.js';
import { loggerOptions } from '../http/logging.js';
import { MemoryRateLimiter } from '../http/rate-limiter.js';
import { systemClock } from '../clock.js';
import { openRuntime } from '../runtime.js';
import { listenForMetrics } from './metrics-listener.js';
import { clusterMetrics, serveRateLimits } from './cluster-ipc.js';

const RESTART_DELAY_MS = 1000;

/**
 * The primary of `serve --workers N`: prepares the database once (migrations, first signing
 * key, the custom server's id) so workers never race on it, forks the workers (which share
 * the port), restarts any that dies, and on SIGTERM/SIGINT lets each finish its requests. It
 * owns the metrics listener and answers each scrape with every worker's metrics added up.
 */
export async function runCluster(config: Config, workers: number): Promise<void> {
  const prepared = await openRuntime(config);
  await prepared.close();

  if (!config.redisUrl) serveRateLimits(new MemoryRateLimiter(systemClock));
  // The primary logs as the workers do: same level, same format, same redaction.
  const logger = pino(loggerOptions(config.logLevel, config.logFormat) as LoggerOptions);
  const log = (msg: string, extra: Record<string, unknown> = {}, level: 'info' | 'warn' = 'info') => logger[level](extra, msg);
  // Listening before the workers start, so a taken METRICS_PORT stops the start-up at once.
  const metricsListener = config.metrics
    ? await listenForMetrics(
        config.metrics,
        config.connections,
        clusterMetrics((workerPids) => log('workers did not send their metrics in time; scrape answered without them', { workerPids }, 'warn')),
        logger.child({ listener: 'metrics' }),
      )
    : undefined;
  if (metricsListener) log(`metrics served on ${metricsListener.address}/metrics`, { metricsAddress: metricsListener.address });

  let stopping = false;
  const fork = (): Worker => cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      // A worker still starting may die of the signal itself: it had nothing in flight.
      if (code !== 0 && signal === null) process.exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log('all workers stopped');
        process.exit(process.exitCode ?? 0);
      }
      return;
    }
    log('worker died; restarting', { workerPid: worker.process.pid, code, signal }, 'warn');
    setTimeout(fork, RESTART_DELAY_MS).unref();
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    log('shutting down', { signal });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let i = 0; i < workers; i++) fork();
  log(`started ${workers} workers`, { workers });
}
