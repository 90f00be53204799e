import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { ConnectionConfig, MetricsListenerConfig } from '../config.js';
import { applyConnectionLimits, type RefusalLog } from '../http/connection-limits.js';

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464 */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * The operations listener: `GET /metrics` and nothing else, on its own (loopback by default)
 * address, never on the public port, because the counters say why authentications failed.
 * `exposition` is this process's registry, or in a cluster the workers' gathered by the primary.
 * Its connections are bounded as the public and admin listeners' are (`connections`).
 */
export async function listenForMetrics(
  config: MetricsListenerConfig,
  connections: ConnectionConfig,
  exposition: () => Promise<string>,
  log: RefusalLog,
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: this listener serves GET /metrics only\n');
      return;
    }
    exposition().then(
      (text) => {
        response.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => {
        response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
        response.end(`metrics unavailable: ${err.message}\n`);
      },
    );
  });
  applyConnectionLimits(server, connections, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot serve metrics on ${config.host}:${config.port} (METRICS_HOST, METRICS_PORT): ${err.code ?? err.message}`);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    address: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
