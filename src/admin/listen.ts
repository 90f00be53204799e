import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Metrics } from '../observability/metrics.js';
import type { Runtime } from '../runtime.js';
import { buildAdminApp, type AdminPlugin } from './app.js';
import { ADMIN_PLUGINS } from './plugins.js';

/**
 * Starts the admin listener on ADMIN_HOST:ADMIN_PORT when it is on (undefined when
 * ADMIN_PORT=off), logging its address; a taken port stops the start-up with one clear line.
 */
export async function listenForAdmin(
  runtime: Runtime & { metrics?: Metrics },
  log: FastifyBaseLogger,
  plugins: readonly AdminPlugin[] = ADMIN_PLUGINS,
): Promise<FastifyInstance | undefined> {
  const listener = runtime.config.admin;
  if (!listener) return undefined;
  const admin = await buildAdminApp({ ...runtime, logger: log.child({ listener: 'admin' }) }, plugins);
  try {
    const adminAddress = await admin.listen({ host: listener.host, port: listener.port });
    log.info({ adminAddress }, `admin API on ${adminAddress}/admin/api (reached as ${listener.url})`);
  } catch (err) {
    await admin.close();
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`cannot serve the admin API on ${listener.host}:${listener.port} (ADMIN_HOST, ADMIN_PORT): ${code}`);
  }
  return admin;
}
